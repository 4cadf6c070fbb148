package tablebase

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/millzero/millzero/engine"
)

func load(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func parse(t testing.TB, text string) *engine.Variant {
	t.Helper()
	v, err := engine.ParseVariant([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// built caches in-memory builds shared by the tests (each is deterministic).
var built sync.Map

func build(t testing.TB, v *engine.Variant, pieces int) *Set {
	t.Helper()
	key := v.Name + "/" + string(rulesHashString(v)) + "/" + Material{pieces, 0}.String()
	if s, ok := built.Load(key); ok {
		return s.(*Set)
	}
	s, err := Build(v, BuildOptions{Pieces: pieces})
	if err != nil {
		t.Fatal(err)
	}
	built.Store(key, s)
	return s
}

func rulesHashString(v *engine.Variant) []byte {
	h := rulesHash(v)
	return h[:]
}

// position is the engine position of a table position: the mover is seat
// side, with counters at zero.
func position(v *engine.Variant, side int, mover, opp uint32) engine.Position {
	p := engine.Position{LastRotation: engine.NoRotation, Side: uint8(side)}
	p.Pieces[side], p.Pieces[1-side] = mover, opp
	return p
}

func TestIndex_EveryCanonicalIndexRoundTrips(t *testing.T) {
	for _, name := range []string{"nine", "nine-diagonal", "corner-spokes"} {
		v := load(t, name)
		r, err := newRules(v)
		if err != nil {
			t.Fatal(err)
		}
		mats := []Material{{3, 3}, {4, 3}}
		if name != "nine" {
			mats = mats[:1]
		}
		for _, m := range mats {
			x := newIndex(r, newMoverSets(r, m.Mover), m)
			used := 0
			for ri := range x.ms.reps {
				x.each(ri, func(i uint64, opp uint32) {
					mover, o2 := x.position(i)
					if o2 != opp || mover != x.ms.reps[ri] {
						t.Fatalf("%s %s: index %d: each gives %x, position gives %x", name, m, i, opp, o2)
					}
					if !x.canonical(ri, opp) {
						return
					}
					used++
					for s := 0; s < v.NumSymmetries(); s++ {
						if j := x.of(r.mapBits(s, mover), r.mapBits(s, opp)); j != i {
							t.Fatalf("%s %s: index %d under symmetry %d gives %d", name, m, i, s, j)
						}
					}
				})
			}
			// Every position is the image of exactly one canonical index.
			orbits := 0
			total := r.binom[r.points][m.Mover] * r.binom[r.points-m.Mover][m.Opponent]
			seen := map[uint64]bool{}
			for ri := range x.ms.reps {
				x.each(ri, func(i uint64, opp uint32) {
					if x.canonical(ri, opp) {
						var images [32][2]uint32
						n := 0
					sym:
						for s := 0; s < v.NumSymmetries(); s++ {
							im := [2]uint32{r.mapBits(s, x.ms.reps[ri]), r.mapBits(s, opp)}
							for _, seen := range images[:n] {
								if seen == im {
									continue sym
								}
							}
							images[n] = im
							n++
						}
						orbits += n
						seen[i] = true
					}
				})
			}
			if uint64(orbits) != total || len(seen) != used {
				t.Errorf("%s %s: canonical orbits cover %d positions, want %d", name, m, orbits, total)
			}
		}
	}
}

// checkConsistent checks every canonical position of material m against
// its moves: a win at distance d has a move to a position won for the
// mover at distance d-1 (0 for a capture), and none faster; a loss at d
// has only moves to losses, the slowest at d-1 (or no move, at d = 1); a
// draw has no winning move and a drawing one.
func checkConsistent(t *testing.T, s *Set, m Material) {
	t.Helper()
	v := s.Variant()
	tab := s.Table(m)
	if tab == nil {
		t.Fatalf("%s: no table %s", v.Name, m)
	}
	var legal [engine.MaxActions]engine.Action
	checked := 0
	for ri := range tab.x.ms.reps {
		tab.x.each(ri, func(i uint64, opp uint32) {
			o, d := tab.entry(i)
			if o == unused || t.Failed() {
				return
			}
			checked++
			p := position(v, int(i%2), tab.x.ms.reps[ri], opp)
			val, err := s.Probe(&p)
			if err != nil || val.Outcome != o || val.Plies != d {
				t.Fatalf("%s %s index %d: probe %v %v, entry %s %d", v.Name, m, i, val, err, o, d)
			}
			best, n := Value{}, 0
			for _, a := range v.Legal(&p, legal[:0]) {
				q := v.Apply(&p, a)
				cv, err := s.Probe(&q)
				if err != nil {
					t.Fatalf("%s after %s: %v", v.FormatPosition(&p), v.FormatAction(a), err)
				}
				if q.Result == engine.Ongoing && q.Side != p.Side {
					cv.Outcome = cv.Outcome.flip()
				}
				if n == 0 || rank(cv) > rank(best) {
					best = cv
				}
				n++
			}
			pos := v.FormatPosition(&p)
			switch {
			case n == 0:
				if o != Loss || d != 1 {
					t.Fatalf("%s %s: %s has no move, but is %s in %d", v.Name, m, pos, o, d)
				}
			case o == Win && (best.Outcome != Win || best.Plies != d-1),
				o == Loss && (best.Outcome != Loss || best.Plies != d-1),
				o == Draw && best.Outcome != Draw:
				t.Fatalf("%s %s: %s is %s in %d, but its best move leads to %v", v.Name, m, pos, o, d, best)
			}
		})
	}
	if checked == 0 {
		t.Fatalf("%s %s: nothing checked", v.Name, m)
	}
}

func TestSelfConsistency_EveryPositionAgreesWithItsMoves(t *testing.T) {
	cases := []struct {
		variant string
		pieces  int
		mats    []Material
	}{
		{"nine", 7, []Material{{3, 3}, {4, 3}, {3, 4}}},
		{"nine-diagonal", 7, []Material{{3, 3}, {4, 3}}},
		{"nine-noflying", 7, []Material{{3, 3}, {3, 4}}},
		{"corner-spokes", 6, []Material{{3, 3}}},
	}
	for _, c := range cases {
		if testing.Short() && c.variant != "nine" {
			continue
		}
		t.Run(c.variant, func(t *testing.T) {
			s := build(t, load(t, c.variant), c.pieces)
			for _, m := range c.mats {
				checkConsistent(t, s, m)
			}
		})
	}
}

// exact is the value of p for its side to move by exhaustive search over
// the engine's own Legal and Apply, with the draw rules Apply applies: the
// reference the tables are checked against. memo holds positions with
// their counters.
type exactKey struct {
	p0, p1      uint32
	side        uint8
	pending     [2]uint8
	noCap, endg uint16
}

func exact(v *engine.Variant, p *engine.Position, memo map[exactKey]Outcome) Outcome {
	if r, _ := v.Outcome(p); r != engine.Ongoing {
		w, ok := r.Winner()
		switch {
		case !ok:
			return Draw
		case w == int(p.Side):
			return Win
		}
		return Loss
	}
	k := exactKey{p.Pieces[0], p.Pieces[1], p.Side, [2]uint8{p.Pending[0], p.Pending[1]}, p.NoCapture, p.Endgame}
	if o, ok := memo[k]; ok {
		return o
	}
	best := Loss
	var buf [engine.MaxActions]engine.Action
	for _, a := range v.Legal(p, buf[:0]) {
		q := v.Apply(p, a)
		o := exact(v, &q, memo)
		if q.Side != p.Side {
			o = o.flip()
		}
		if o == Win {
			best = Win
			break
		}
		if o == Draw {
			best = Draw
		}
	}
	memo[k] = best
	return best
}

func randomSet(rng *rand.Rand, n, k int, taken uint32) uint32 {
	var m uint32
	for bits.OnesCount32(m) < k {
		if pt := uint32(1) << rng.IntN(n); (m|taken)&pt == 0 {
			m |= pt
		}
	}
	return m
}

func TestAgreesWithExhaustiveSearch_Random3v3And4v3(t *testing.T) {
	// Short draw rules keep the exhaustive search small; they also make
	// many table wins draws, which is what the counters must get right.
	cases := []struct {
		text      string
		positions int
	}{
		{"name: short-noflying\nbase: nine-noflying\nno_capture_draw: 10\nendgame_draw: 8\n", 30},
		{"name: short-flying\nbase: nine\nno_capture_draw: 4\nendgame_draw: 3\n", 15},
		{"name: short-diagonal\nbase: nine-diagonal\nfly_at: 0\nno_capture_draw: 9\nendgame_draw: 7\n", 15},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		v := parse(t, c.text)
		t.Run(v.Name, func(t *testing.T) {
			s := build(t, v, 7)
			rng := rand.New(rand.NewPCG(7, 11))
			memo := map[exactKey]Outcome{}
			counts := map[Outcome]int{}
			for i := 0; i < c.positions; i++ {
				a, b := 3, 3
				switch i % 3 {
				case 1:
					a = 4
				case 2:
					b = 4
				}
				// Half the positions are won or lost at a fresh counter
				// where 500 tries find one (by the table; the search
				// checks it).
				var p engine.Position
				for try := 0; try < 500; try++ {
					mover := randomSet(rng, 24, a, 0)
					p = position(v, rng.IntN(2), mover, randomSet(rng, 24, b, mover))
					if val, _ := s.Probe(&p); i%2 == 1 || val.Outcome != Draw {
						break
					}
				}
				for c := 0; c < v.NoCaptureDraw; c++ {
					p.NoCapture = uint16(c)
					if a == 3 && b == 3 {
						p.Endgame = uint16(min(c, v.EndgameDraw-1))
					}
					got, err := s.Probe(&p)
					if err != nil {
						t.Fatal(err)
					}
					want := exact(v, &p, memo)
					counts[want]++
					if got.Outcome != want {
						t.Fatalf("%s at no-capture %d, endgame %d: table %v, exhaustive search %s", v.FormatPosition(&p), p.NoCapture, p.Endgame, got, want)
					}
				}
			}
			t.Logf("%s: %v over %d states", v.Name, counts, len(memo))
		})
	}
}

// playOut plays the tables' first choice from p to the end of the game.
func playOut(t *testing.T, s *Set, p engine.Position) engine.Position {
	t.Helper()
	v := s.Variant()
	var moves []Move
	for p.Result == engine.Ongoing {
		var err error
		if moves, err = s.Moves(&p, moves); err != nil {
			t.Fatal(err)
		}
		if len(moves) == 0 {
			r, _ := v.Outcome(&p)
			p.Result = r
			break
		}
		p = v.Apply(&p, moves[0].Action)
	}
	return p
}

func TestDrawRules_CounterTurnsTableWinIntoDraw(t *testing.T) {
	cases := []struct {
		name, text string
		set        func(p *engine.Position, left int, v *engine.Variant)
	}{
		// The no-capture rule alone (no 3 v 3 rule): 100 plies.
		{"no-capture", "name: nocap-only\nbase: nine\nendgame_draw: 0\n", func(p *engine.Position, left int, v *engine.Variant) {
			p.NoCapture = uint16(v.NoCaptureDraw - left)
		}},
		// The 3 v 3 rule of nine: 20 plies since both were down to 3.
		{"3v3", "name: nine-copy\nbase: nine\n", func(p *engine.Position, left int, v *engine.Variant) {
			p.NoCapture = uint16(v.EndgameDraw - left)
			p.Endgame = p.NoCapture
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := parse(t, c.text)
			s := build(t, v, 6)
			tab := s.Table(Material{3, 3})
			st := tab.Stats()
			d := st.MaxPlies
			if st.MaxOutcome == Loss {
				d-- // the loser's best reply is a win one ply shorter
			}
			var p engine.Position
			found := false
			for ri := range tab.x.ms.reps {
				tab.x.each(ri, func(i uint64, opp uint32) {
					if o, dd := tab.entry(i); !found && o == Win && dd == d {
						p, found = position(v, 0, tab.x.ms.reps[ri], opp), true
					}
				})
			}
			if !found || d < 5 {
				t.Fatalf("no win at distance %d (5 or more) in %s 3v3", d, v.Name)
			}
			c.set(&p, d, v)
			if val, _ := s.Probe(&p); val.Outcome != Win || val.Plies != d {
				t.Errorf("%s, %d plies left: %v, want a win in %d", v.FormatPosition(&p), d, val, d)
			}
			if end := playOut(t, s, p); end.Result != engine.WinFor(0) {
				t.Errorf("%s, %d plies left: best play ends %s (%s), want a win for the mover", v.FormatPosition(&p), d, end.Result, end.Reason)
			}
			c.set(&p, d-1, v)
			if val, _ := s.Probe(&p); val.Outcome != Draw {
				t.Errorf("%s, %d plies left: %v, want a draw (the win needs %d)", v.FormatPosition(&p), d-1, val, d)
			}
			if end := playOut(t, s, p); end.Result != engine.Draw {
				t.Errorf("%s, %d plies left: best play ends %s (%s), want the draw", v.FormatPosition(&p), d-1, end.Result, end.Reason)
			}
		})
	}
}

func TestProbe_OutsideTheTables(t *testing.T) {
	v := load(t, "nine")
	s := build(t, v, 7)
	start := v.Start()
	if _, err := s.Probe(&start); !errors.Is(err, ErrNotInTables) {
		t.Errorf("start position: %v, want ErrNotInTables", err)
	}
	p := position(v, 0, 0xF, 0xF0000)
	if _, err := s.Probe(&p); !errors.Is(err, ErrNotInTables) {
		t.Errorf("4v4 with tables to 7 pieces: %v, want ErrNotInTables", err)
	}
	if _, err := Build(load(t, "three"), BuildOptions{Pieces: 6}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("three: %v, want ErrUnsupported", err)
	}
}
