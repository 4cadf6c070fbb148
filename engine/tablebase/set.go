package tablebase

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/millzero/millzero/engine"
)

// ErrNotInTables is returned (wrapped, or bare from Probe) for a position
// the tables do not hold: pieces in hand, or a material not built.
var ErrNotInTables = errors.New("position not in the tables")

// Value is a position's value with perfect play under the variant's
// rules, at the position's own no-capture and 3 v 3 counters.
type Value struct {
	Outcome Outcome // for the side to move
	// Plies is the distance of a win or loss (0 for a draw): the place or
	// move plies up to and including the mill that makes the next capture,
	// or, when the game ends without one, up to and including the turn at
	// which the loser has no legal move. It is the number of plies of the
	// no-capture counter that the win uses, so a win at distance d holds
	// from a counter c exactly when d <= no_capture_draw - c (and the same
	// for the 3 v 3 rule). The winner hurries, the loser delays. A position
	// owing a removal has distance 0: the capture is its own next ply.
	Plies int
}

func (v Value) String() string {
	if v.Outcome == Draw {
		return "draw"
	}
	return fmt.Sprintf("%s in %d", v.Outcome, v.Plies)
}

// Set is the tables of one variant: the materials built, or read from a
// directory. It is immutable once made (Build, Open); share it freely:
// Probe allocates nothing and is safe for concurrent use.
type Set struct {
	r      *rules
	dir    string
	tables [engine.MaxPoints + 1][engine.MaxPoints + 1]*Table
	ms     map[int]*moverSets
}

func newSet(v *engine.Variant, dir string) (*Set, error) {
	r, err := newRules(v)
	if err != nil {
		return nil, err
	}
	return &Set{r: r, dir: dir, ms: map[int]*moverSets{}}, nil
}

// Variant is the variant the tables are for.
func (s *Set) Variant() *engine.Variant { return s.r.v }

// Dir is the directory the tables were read from or written to, or "".
func (s *Set) Dir() string { return s.dir }

// Table is the table of material m, or nil.
func (s *Set) Table(m Material) *Table {
	if m.Mover < 0 || m.Opponent < 0 || m.Mover > engine.MaxPoints || m.Opponent > engine.MaxPoints {
		return nil
	}
	return s.tables[m.Mover][m.Opponent]
}

// Materials lists the materials held, fewest pieces first.
func (s *Set) Materials() []Material {
	var out []Material
	for a := range s.tables {
		for b, t := range s.tables[a] {
			if t != nil {
				out = append(out, Material{a, b})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.Mover+x.Opponent != y.Mover+y.Opponent {
			return x.Mover+x.Opponent < y.Mover+y.Opponent
		}
		return x.Mover > y.Mover
	})
	return out
}

func (s *Set) moverSets(k int) *moverSets {
	if s.ms[k] == nil {
		s.ms[k] = newMoverSets(s.r, k)
	}
	return s.ms[k]
}

// pairs lists the pairs of materials {a v b, b v a} with a >= b >= 3 and
// at most pieces pieces, in the order they can be built (each after the
// pairs its captures lead to).
func pairs(pieces int) [][2]int {
	var out [][2]int
	for total := 6; total <= pieces; total++ {
		for a := total - 3; 2*a >= total; a-- {
			out = append(out, [2]int{a, total - a})
		}
	}
	return out
}

// BuildOptions say what Build builds and where.
type BuildOptions struct {
	Pieces   int                          // build every material of at most this many pieces on the board (6 and up)
	Dir      string                       // write each material's file here, and reuse the files already here; "" keeps the tables in memory only
	Workers  int                          // goroutines; 0 is GOMAXPROCS
	Progress func(Progress)               // called now and then during each material, if set
	Done     func(Material, string, bool) // called after each material with its file ("" in memory) and whether it was reused
}

// Build solves every material of v with at most opt.Pieces pieces on the
// board, each from the materials its captures lead to. With a directory it
// is resumable: a material whose file is already there (and valid for
// these rules) is read, not rebuilt; a file there that is not valid is an
// error naming it.
func Build(v *engine.Variant, opt BuildOptions) (*Set, error) {
	s, err := newSet(v, opt.Dir)
	if err != nil {
		return nil, err
	}
	if opt.Pieces < 6 {
		return nil, fmt.Errorf("tablebase %s: pieces %d: want 6 or more (3 v 3 is the smallest material)", v.Name, opt.Pieces)
	}
	if opt.Pieces >= s.r.points {
		return nil, fmt.Errorf("tablebase %s: pieces %d: want fewer than the board's %d points", v.Name, opt.Pieces, s.r.points)
	}
	if opt.Dir != "" {
		if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("tablebase: %w", err)
		}
	}
	g := &solver{r: s.r, lower: s.Table, workers: opt.Workers, progress: opt.Progress}
	for _, p := range pairs(opt.Pieces) {
		mats := []Material{{p[0], p[1]}}
		if p[0] != p[1] {
			mats = append(mats, Material{p[1], p[0]})
		}
		if opt.Dir != "" {
			reused := 0
			for _, m := range mats {
				path := filepath.Join(opt.Dir, FileName(v.Name, m))
				if _, err := os.Stat(path); err != nil {
					continue
				}
				t, err := readTable(path, s.r, s.moverSets(m.Mover), m)
				if err != nil {
					return nil, fmt.Errorf("%w (delete it to build it again)", err)
				}
				s.tables[m.Mover][m.Opponent] = t
				reused++
			}
			if reused == len(mats) {
				if opt.Done != nil {
					for _, m := range mats {
						opt.Done(m, s.Table(m).path, true)
					}
				}
				continue
			}
		}
		tabs, err := g.solvePair(s.ms, p[0], p[1])
		if err != nil {
			return nil, err
		}
		for i, t := range tabs {
			m := mats[i]
			if opt.Dir != "" {
				t.path = filepath.Join(opt.Dir, FileName(v.Name, m))
				if err := writeTable(t.path, s.r, t); err != nil {
					return nil, fmt.Errorf("tablebase: %w", err)
				}
			}
			s.tables[m.Mover][m.Opponent] = t
			if opt.Done != nil {
				opt.Done(m, t.path, false)
			}
		}
	}
	return s, nil
}

// Open reads the tables of v from dir: every material of at most pieces
// pieces, each of which must be there (an error names a missing or bad
// file). With pieces 0 it reads whatever materials of v the directory
// holds (at least one).
func Open(v *engine.Variant, dir string, pieces int) (*Set, error) {
	s, err := newSet(v, dir)
	if err != nil {
		return nil, err
	}
	var mats []Material
	if pieces > 0 {
		for _, p := range pairs(pieces) {
			mats = append(mats, Material{p[0], p[1]})
			if p[0] != p[1] {
				mats = append(mats, Material{p[1], p[0]})
			}
		}
	} else {
		names, err := filepath.Glob(filepath.Join(dir, v.Name+"-*v*.mtb"))
		if err != nil {
			return nil, fmt.Errorf("tablebase %s: %w", dir, err)
		}
		for _, n := range names {
			var m Material
			if _, err := fmt.Sscanf(filepath.Base(n), v.Name+"-%dv%d.mtb", &m.Mover, &m.Opponent); err == nil &&
				FileName(v.Name, m) == filepath.Base(n) && m.Mover >= 3 && m.Opponent >= 3 && m.Mover+m.Opponent < s.r.points {
				mats = append(mats, m)
			}
		}
		if len(mats) == 0 {
			return nil, fmt.Errorf("tablebase %s: no table files of %s (%s)", dir, v.Name, FileName(v.Name, Material{3, 3}))
		}
	}
	for _, m := range mats {
		path := filepath.Join(dir, FileName(v.Name, m))
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("tablebase: material %s missing: %w (build it with millzero tablebase build)", m, err)
		}
		t, err := readTable(path, s.r, s.moverSets(m.Mover), m)
		if err != nil {
			return nil, err
		}
		s.tables[m.Mover][m.Opponent] = t
	}
	return s, nil
}

// Probe is p's value with perfect play. The tables hold two-player
// positions with every piece placed and at least 3 each on the board, of
// the materials built; a position owing a removal is answered from the
// positions its removals lead to, and a finished game by its result. Any
// other position gives ErrNotInTables (bare, so a probe allocates nothing),
// never a guess.
//
// The value is exact under the no-capture and 3 v 3 rules at p's own
// counters, and under the repetition rule for the side that follows the
// tables (a win's distance falls with each of the winner's moves, so it
// never repeats a position). The ply cap (max_plies) is not modelled.
func (s *Set) Probe(p *engine.Position) (Value, error) { return s.probe(*p) }

// probe is Probe on a copy: its recursion through removals takes positions
// by value, so that none escapes to the heap.
func (s *Set) probe(p engine.Position) (Value, error) {
	if p.Result != engine.Ongoing {
		w, ok := p.Result.Winner()
		switch {
		case !ok:
			return Value{Outcome: Draw}, nil
		case w == int(p.Side):
			return Value{Outcome: Win}, nil
		}
		return Value{Outcome: Loss}, nil
	}
	if p.Hand[0]|p.Hand[1] != 0 || p.Side > 1 {
		return Value{}, ErrNotInTables
	}
	if p.Removing() {
		return s.probeRemoval(p)
	}
	mover, opp := p.Pieces[p.Side], p.Pieces[1-p.Side]
	a, b := bits.OnesCount32(mover), bits.OnesCount32(opp)
	t := s.tables[a][b]
	if t == nil {
		return Value{}, ErrNotInTables
	}
	o, d := t.entry(t.x.of(mover, opp))
	if o == Draw || d > s.left(&p, a, b) {
		return Value{Outcome: Draw}, nil
	}
	return Value{Outcome: o, Plies: d}, nil
}

// left is the quiet plies p's counters leave before a draw: the no-capture
// rule's, and at 3 v 3 the endgame rule's when fewer.
func (s *Set) left(p *engine.Position, a, b int) int {
	n := math.MaxInt
	if s.r.noCap > 0 {
		n = s.r.noCap - int(p.NoCapture)
	}
	if s.r.endgame > 0 && a == 3 && b == 3 {
		n = min(n, s.r.endgame-int(p.Endgame))
	}
	return n
}

// probeRemoval values a position owing a removal by the best of its
// removals for the side to move.
func (s *Set) probeRemoval(p engine.Position) (Value, error) {
	v := s.r.v
	var buf [engine.MaxActions]engine.Action
	best := Value{Outcome: Loss}
	for _, a := range v.Legal(&p, buf[:0]) {
		q := v.Apply(&p, a)
		cv, err := s.probe(q)
		if err != nil {
			return Value{}, err
		}
		if q.Side != p.Side {
			cv.Outcome = cv.Outcome.flip()
		}
		switch cv.Outcome {
		case Win:
			return Value{Outcome: Win}, nil
		case Draw:
			best = Value{Outcome: Draw}
		}
	}
	return best, nil
}

// rank orders values for the side to move: wins, fastest first, then
// draws, then losses, slowest first. Higher is better.
func rank(v Value) int {
	switch v.Outcome {
	case Win:
		return 1<<20 - v.Plies
	case Loss:
		return -(1 << 20) + v.Plies
	}
	return 0
}

// Move is a legal action with the value it leads to, for the side that
// plays it.
type Move struct {
	Action engine.Action
	Value  Value // the value of the position after Action, seen by the side that played it
}

// Moves appends to buf[:0] every legal action of p with the value it
// leads to for p's side to move, best first (the winner's fastest wins,
// then draws, then the loser's slowest losses). The first ones that share
// the best value are the table's choice. It returns ErrNotInTables
// (wrapped) when p or one of its children is not in the tables.
func (s *Set) Moves(p *engine.Position, buf []Move) ([]Move, error) {
	buf = buf[:0]
	v := s.r.v
	if _, err := s.Probe(p); err != nil {
		return buf, fmt.Errorf("tablebase %s: %w", v.Name, err)
	}
	var legal [engine.MaxActions]engine.Action
	for _, a := range v.Legal(p, legal[:0]) {
		q := v.Apply(p, a)
		cv, err := s.Probe(&q)
		if err != nil {
			return buf[:0], fmt.Errorf("tablebase %s: after %s: %w", v.Name, v.FormatAction(a), err)
		}
		if q.Side != p.Side {
			cv.Outcome = cv.Outcome.flip()
		}
		buf = append(buf, Move{Action: a, Value: cv})
	}
	sort.SliceStable(buf, func(i, j int) bool { return rank(buf[i].Value) > rank(buf[j].Value) })
	return buf, nil
}

// Prove is Probe for a search (it makes a Set an mcts.Prover): p's result
// with perfect play, as a win for a seat or a draw, with its distance, or
// ok false when p is not in the tables.
func (s *Set) Prove(p *engine.Position) (r engine.Result, plies int, ok bool) {
	val, err := s.Probe(p)
	if err != nil {
		return engine.Ongoing, 0, false
	}
	switch val.Outcome {
	case Win:
		return engine.WinFor(int(p.Side)), val.Plies, true
	case Loss:
		return engine.WinFor(1 - int(p.Side)), val.Plies, true
	}
	return engine.Draw, 0, true
}

// WriteStats prints a row per material: wins, draws and losses (one per
// symmetry class), the longest distance with a position reaching it, and
// the file's size.
func (s *Set) WriteStats(w io.Writer) {
	v := s.Variant()
	fmt.Fprintf(w, "%-8s %12s %12s %12s %9s %10s  %s\n", "material", "wins", "draws", "losses", "longest", "bytes", "a position at the longest distance (mover is white)")
	for _, m := range s.Materials() {
		t := s.Table(m)
		st := t.Stats()
		size := int64(0)
		if fi, err := os.Stat(t.Path()); err == nil {
			size = fi.Size()
		}
		where := "-"
		if st.MaxPlies > 0 {
			p := engine.Position{LastRotation: engine.NoRotation}
			p.Pieces[0], p.Pieces[1] = st.MaxMover, st.MaxOpp
			if fen, err := v.FEN(&p); err == nil {
				where = fen
			} else {
				where = v.FormatPosition(&p)
			}
			where = fmt.Sprintf("%s (%s)", where, st.MaxOutcome)
		}
		fmt.Fprintf(w, "%-8s %12d %12d %12d %9d %10d  %s\n", m, st.Wins, st.Draws, st.Losses, st.MaxPlies, size, where)
	}
}

// WriteProbe prints p's value for the side to move and every legal move
// with the value it leads to, the table's choices starred. A position
// outside the tables is an error wrapping ErrNotInTables that says why
// and what the tables hold; nothing is printed.
func (s *Set) WriteProbe(w io.Writer, p *engine.Position) error {
	val, err := s.Probe(p)
	if errors.Is(err, ErrNotInTables) {
		var held []string
		for _, m := range s.Materials() {
			held = append(held, m.String())
		}
		why := "its material is not built"
		if p.Hand[0]|p.Hand[1] != 0 {
			why = "pieces are still in hand; the tables hold positions with every piece on the board"
		}
		return fmt.Errorf("%w of %s: %s (they hold %s)", ErrNotInTables, s.dir, why, strings.Join(held, " "))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s to move: %s\n", [2]string{"white", "black"}[p.Side&1], val)
	moves, err := s.Moves(p, nil)
	if err != nil {
		fmt.Fprintf(w, "moves: %v\n", err)
		return nil
	}
	for _, m := range moves {
		mark := " "
		if m.Value == moves[0].Value {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-8s %s\n", mark, s.r.v.FormatAction(m.Action), m.Value)
	}
	return nil
}
