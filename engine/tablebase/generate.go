package tablebase

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is what a build reports while it runs.
type Progress struct {
	Material Material // the material (and, when its sides differ, its mirror) being solved
	Phase    string   // "init" (every position's moves) or "level" (the retrograde passes)
	Level    int      // the distance being resolved, in the level phase
	Done     int64    // positions (init) or levels (level) done
	Total    int64    // of how many (Total of levels is the budget, or 0 with no limit)
	Resolved int64    // positions won or lost so far
	Elapsed  time.Duration
}

// The bits of a work entry during generation: the distance in 0..13, the
// outcome in 14..15 (0 while unresolved: what is left at the end is
// drawn), and the count of children not yet known to win for the other
// side in 16..23.
const (
	outShift = 14
	cntShift = 16
	winBits  = uint32(Win) << outShift
	lossBits = uint32(Loss) << outShift
	unusedW  = uint32(unused) << outShift
	maxKids  = 512 // bound on the moves of one position (a buffer size)
	maxCount = 255 // bound on the distinct children a work entry counts
)

// solver solves one pair of materials, a v b and b v a, whose quiet moves
// lead into each other; captures lead to the lower materials, which it
// reads from lower.
type solver struct {
	r        *rules
	lower    func(Material) *Table
	workers  int
	progress func(Progress)
}

// solvePair solves a v b and, if b differs, b v a. The tables of a v b-1
// and b v a-1 (the materials a capture leaves) must be in lower.
func (g *solver) solvePair(ms map[int]*moverSets, a, b int) ([]*Table, error) {
	r := g.r
	if a+b >= r.points {
		return nil, fmt.Errorf("tablebase %s: material %dv%d fills the board", r.v.Name, a, b)
	}
	mats := []Material{{a, b}}
	if a != b {
		mats = append(mats, Material{b, a})
	}
	for _, m := range mats {
		if m.Opponent > 3 {
			if g.lower(Material{m.Opponent - 1, m.Mover}) == nil {
				return nil, fmt.Errorf("tablebase %s: solving %s needs %s, not built", r.v.Name, m, Material{m.Opponent - 1, m.Mover})
			}
		}
	}
	var idx [2]*index
	var work [2][]uint32
	for t, m := range mats {
		if ms[m.Mover] == nil {
			ms[m.Mover] = newMoverSets(r, m.Mover)
		}
		idx[t] = newIndex(r, ms[m.Mover], m)
		work[t] = make([]uint32, idx[t].size)
	}
	if a == b {
		idx[1], work[1] = idx[0], work[0]
	}
	type job struct{ t, ri int }
	var jobs []job
	var total int64
	for t := range mats {
		for ri := range idx[t].ms.reps {
			jobs = append(jobs, job{t, ri})
		}
		total += int64(idx[t].size)
	}
	start := time.Now()
	report := func(p Progress) {
		if g.progress != nil {
			p.Material, p.Elapsed = mats[0], time.Since(start)
			g.progress(p)
		}
	}
	var done, resolved atomic.Int64
	var failed atomic.Pointer[error]
	g.parallel(len(jobs), func(j int) {
		t, ri := jobs[j].t, jobs[j].ri
		n, err := g.initRep(idx[t], idx[1-t], work[t], ri)
		if err != nil {
			failed.CompareAndSwap(nil, &err)
		}
		resolved.Add(n)
		if d := done.Add(int64(idx[t].per)); ri%64 == 0 || idx[t].per > 1<<12 {
			report(Progress{Phase: "init", Done: d, Total: total, Resolved: resolved.Load()})
		}
	})
	if e := failed.Load(); e != nil {
		return nil, *e
	}
	report(Progress{Phase: "init", Done: total, Total: total, Resolved: resolved.Load()})
	budget := r.budget(a, b)
	for level := 1; budget == 0 || level < budget; level++ {
		if level+1 > maxNeed {
			return nil, fmt.Errorf("tablebase %s %s: distances beyond %d plies", r.v.Name, mats[0], maxNeed)
		}
		var frontier atomic.Int64
		g.parallel(len(jobs), func(j int) {
			t, ri := jobs[j].t, jobs[j].ri
			f, n := g.levelRep(idx[t], idx[1-t], work[t], work[1-t], ri, level)
			frontier.Add(f)
			resolved.Add(n)
		})
		report(Progress{Phase: "level", Level: level, Done: int64(level), Total: int64(budget), Resolved: resolved.Load()})
		if frontier.Load() == 0 {
			break
		}
	}
	tabs := make([]*Table, len(mats))
	for t := range mats {
		w, data := encode(work[t])
		tabs[t] = &Table{x: idx[t], width: w, data: data}
		work[t] = nil
	}
	return tabs, nil
}

// distinct sorts xs and moves its distinct values to the front, returning
// how many there are (a position reached by two moves, or from two
// symmetric positions, counts once each way).
func distinct(xs []uint64) int {
	if len(xs) < 2 {
		return len(xs)
	}
	slices.Sort(xs)
	n := 1
	for _, x := range xs[1:] {
		if x != xs[n-1] {
			xs[n] = x
			n++
		}
	}
	return n
}

// parallel runs f(0..n-1) on the solver's workers.
func (g *solver) parallel(n int, f func(int)) {
	workers := g.workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := next.Add(1) - 1
				if j >= int64(n) {
					return
				}
				f(int(j))
			}
		}()
	}
	wg.Wait()
}

// initRep fills the entries of mover set ri of table x: a win at
// distance 1 where a mill wins (its capture is won), a loss at distance 1
// where every action loses at once (no action, or only mills whose
// captures lose), else the count of the distinct positions of the other
// table its quiet moves reach, plus one if a mill draws (so that it can
// never count down to a loss). It returns the positions resolved.
func (g *solver) initRep(x, other *index, work []uint32, ri int) (int64, error) {
	r := g.r
	rep := x.ms.reps[ri]
	fly := r.flies(x.mat.Mover)
	var kids [maxKids]uint64
	var resolved int64
	var err error
	x.each(ri, func(i uint64, opp uint32) {
		if !x.canonical(ri, opp) {
			work[i] = unusedW
			return
		}
		empty := r.all &^ (rep | opp)
		remOpp := r.removable(opp)
		nk := 0
		drawExit := false
		for f := rep; f != 0; f &= f - 1 {
			from := bits.TrailingZeros32(f)
			to := empty
			if !fly {
				to &= r.adj[from]
			}
			for ; to != 0; to &= to - 1 {
				t := bits.TrailingZeros32(to)
				mover := rep ^ 1<<from ^ 1<<t
				if mills := r.millsAt(mover, t); mills > 0 && remOpp != 0 {
					k := 1
					if r.perMill {
						k = min(mills, bits.OnesCount32(remOpp))
					}
					switch g.removal(mover, opp, k) {
					case Win:
						work[i] = winBits | 1
						resolved++
						return
					case Draw:
						drawExit = true
					}
					continue
				}
				kids[nk] = other.of(opp, mover)
				nk++
			}
		}
		nk = distinct(kids[:nk])
		if nk > maxCount-1 {
			err = fmt.Errorf("tablebase %s %s: more than %d moves from one position", r.v.Name, x.mat, maxCount-1)
			return
		}
		if drawExit {
			nk++
		}
		if nk == 0 {
			work[i] = lossBits | 1
			resolved++
			return
		}
		work[i] = uint32(nk) << cntShift
	})
	return resolved, err
}

// removal is the outcome, for the side that formed a mill, of owing k
// removals from opp after its move left it the set mover: the best over
// the pieces it may take, each leading to a lower material (at a fresh
// no-capture counter), a further removal, or a win when opp falls below 3.
func (g *solver) removal(mover, opp uint32, k int) Outcome {
	r := g.r
	best := Loss
	for m := r.removable(opp); m != 0; m &= m - 1 {
		left := opp &^ (m & -m)
		n := bits.OnesCount32(left)
		if n < 3 {
			return Win
		}
		var o Outcome
		if k > 1 && r.removable(left) != 0 {
			o = g.removal(mover, left, k-1)
		} else {
			t := g.lower(Material{n, bits.OnesCount32(mover)})
			o, _ = t.entry(t.x.of(left, mover))
			o = o.flip()
		}
		if o == Win {
			return Win
		}
		if o == Draw {
			best = Draw
		}
	}
	return best
}

// levelRep resolves the predecessors of the positions of mover set ri of
// table x that were resolved at distance level: a loss there makes every
// position of the other table that moves into it a win at level+1; a win
// there counts down each such position, which is lost at level+1 when
// none of its moves is left. It returns the number of those positions
// (the frontier) and of the positions it resolved.
func (g *solver) levelRep(x, other *index, work, otherWork []uint32, ri, level int) (frontier, resolved int64) {
	r := g.r
	rep := x.ms.reps[ri]
	fly := r.flies(x.mat.Opponent)
	remMover := r.removable(rep)
	base := uint64(ri) * x.per
	row := work[base : base+x.per]
	var preds [maxKids]uint64
	for j := range row {
		e := atomic.LoadUint32(&row[j])
		if int(e&maxNeed) != level {
			continue
		}
		out := Outcome(e >> outShift & 3)
		if out != Win && out != Loss {
			continue
		}
		frontier++
		opp := r.unrankAmong(uint64(j), x.mat.Opponent, r.all&^rep)
		empty := r.all &^ (rep | opp)
		np := 0
		for qm := opp; qm != 0; qm &= qm - 1 {
			q := bits.TrailingZeros32(qm)
			if remMover != 0 && r.millsAt(opp, q) > 0 {
				continue // the move to q formed a mill: it led to a removal, not here
			}
			from := empty
			if !fly {
				from &= r.adj[q]
			}
			for ; from != 0; from &= from - 1 {
				p := bits.TrailingZeros32(from)
				preds[np] = other.of(opp^1<<q^1<<uint(p), rep)
				np++
			}
		}
		np = distinct(preds[:np])
		next := uint32(level + 1)
		for _, c := range preds[:np] {
			w := &otherWork[c]
			for {
				old := atomic.LoadUint32(w)
				if old>>outShift&3 != 0 {
					break
				}
				var nw uint32
				if out == Loss {
					nw = winBits | next
				} else if cnt := old>>cntShift - 1; cnt == 0 {
					nw = lossBits | next
				} else {
					nw = cnt << cntShift
				}
				if atomic.CompareAndSwapUint32(w, old, nw) {
					if nw>>outShift != 0 {
						resolved++
					}
					break
				}
			}
		}
	}
	return frontier, resolved
}
