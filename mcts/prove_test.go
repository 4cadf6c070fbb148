package mcts

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// TestSolver_TerminalProofsTakeTheWinningMill: white flies to g7 to close
// a7-d7-g7, and the removal leaves black with 2 pieces. Every other move
// lets black do the same. With Settings.Solver the search proves the root
// won from the rules' terminal positions and plays the mill even when
// choosing by chance.
func TestSolver_TerminalProofsTakeTheWinningMill(t *testing.T) {
	v := load(t, "nine")
	p := parse(t, v, "OO******/******O*/@@*****@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40")
	set := testSettings(400)
	set.Temperature, set.TemperaturePlies = 1, 1000
	set.Solver = true
	for seed := uint64(0); seed < 4; seed++ {
		s := newSearch(t, v, set, seed)
		s.SetRoot(p, nil)
		if err := s.Run(UniformEvaluator{}); err != nil {
			t.Fatal(err)
		}
		r := s.Result()
		if r.Proven != engine.WinFor(0) {
			t.Fatalf("seed %d: root proven %s after %d playouts, want a win for seat 0", seed, r.Proven, r.Visited)
		}
		for k, a := range r.Actions {
			if want := float32(0); a == r.Best {
				if r.Policy[k] != 1 {
					t.Errorf("seed %d: policy target %v on the proven move, want 1", seed, r.Policy[k])
				}
			} else if r.Policy[k] != want {
				t.Errorf("seed %d: policy target %v on %s, want 0 beside the proven move", seed, r.Policy[k], v.FormatAction(a))
			}
		}
		a, err := s.Choose(40)
		if err != nil {
			t.Fatal(err)
		}
		if q := v.Apply(&p, a); q.Pieces[0]&(1<<2) == 0 {
			t.Errorf("seed %d: chose %s, want the move to g7 that closes the mill", seed, v.FormatAction(a))
		}
	}
}

var (
	tablesOnce sync.Once
	tables     *tablebase.Set
	tablesErr  error
)

// nineTables are nine's 3 v 3 tables, built once for the tests.
func nineTables(t testing.TB) *tablebase.Set {
	tablesOnce.Do(func() { tables, tablesErr = tablebase.Build(load(t, "nine"), tablebase.BuildOptions{Pieces: 6}) })
	if tablesErr != nil {
		t.Fatal(tablesErr)
	}
	return tables
}

func random3v3(rng *rand.Rand, v *engine.Variant) engine.Position {
	p := engine.Position{LastRotation: engine.NoRotation, Side: uint8(rng.IntN(2)), Ply: 40}
	for s := 0; s < 2; s++ {
		for bits.OnesCount32(p.Pieces[s]) < 3 {
			if pt := uint32(1) << rng.IntN(24); (p.Pieces[0]|p.Pieces[1])&pt == 0 {
				p.Pieces[s] |= pt
			}
		}
	}
	// The hash: through the position string, which settles it.
	q, err := v.ParsePosition(v.FormatPosition(&p))
	if err != nil {
		panic(err)
	}
	return q
}

// TestSolver_WithTables_ChoosesTheTableMove: at random 3 v 3 positions,
// with a handful of simulations and moves chosen by chance, the search
// with the tables plays a move that keeps the table's value at its best
// distance: the fastest win, a draw, the slowest loss. With either root.
func TestSolver_WithTables_ChoosesTheTableMove(t *testing.T) {
	for _, root := range []string{RootPUCT, RootGumbel} {
		t.Run(root, func(t *testing.T) { choosesTheTableMove(t, root) })
	}
}

func choosesTheTableMove(t *testing.T, root string) {
	v := load(t, "nine")
	tb := nineTables(t)
	set := testSettings(16)
	set.Root = root
	set.Temperature, set.TemperaturePlies = 1, 1000
	rng := rand.New(rand.NewPCG(3, 4))
	s := newSearch(t, v, set, 1)
	s.SetProver(tb)
	var moves []tablebase.Move
	for i := 0; i < 60; i++ {
		p := random3v3(rng, v)
		if r, _ := v.Outcome(&p); r != engine.Ongoing {
			continue
		}
		s.SetRoot(p, nil)
		if err := s.Run(UniformEvaluator{}); err != nil {
			t.Fatal(err)
		}
		a, err := s.Choose(40)
		if err != nil {
			t.Fatal(err)
		}
		if moves, err = tb.Moves(&p, moves); err != nil {
			t.Fatal(err)
		}
		for _, m := range moves {
			if m.Action == a && m.Value != moves[0].Value {
				t.Errorf("%s: chose %s (%v), the table's best is %s (%v)", v.FormatPosition(&p),
					v.FormatAction(a), m.Value, v.FormatAction(moves[0].Action), moves[0].Value)
			}
		}
	}
}

// TestSolver_WithTables_WinsWonPositionsAgainstBestDefence plays the
// search with the tables for the winning side of won 3 v 3 positions
// against the tables' longest defence, to the end of the game. With
// either root.
func TestSolver_WithTables_WinsWonPositionsAgainstBestDefence(t *testing.T) {
	for _, root := range []string{RootPUCT, RootGumbel} {
		t.Run(root, func(t *testing.T) { winsWonPositions(t, root) })
	}
}

func winsWonPositions(t *testing.T, root string) {
	v := load(t, "nine")
	tb := nineTables(t)
	rng := rand.New(rand.NewPCG(5, 6))
	set := testSettings(16)
	set.Root = root
	s := newSearch(t, v, set, 1)
	s.SetProver(tb)
	var moves []tablebase.Move
	plies := 0
	defer func() { t.Logf("10 games, %d plies", plies) }()
	for games := 0; games < 10; {
		p := random3v3(rng, v)
		val, err := tb.Probe(&p)
		if err != nil || val.Outcome != tablebase.Win || val.Plies < 3 {
			continue
		}
		games++
		winner := int(p.Side)
		g := engine.NewGameFrom(v, p)
		for {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				if r != engine.WinFor(winner) {
					t.Fatalf("from %s (%v): the game ended %s", v.FormatPosition(&p), val, r)
				}
				break
			}
			var a engine.Action
			if int(g.Pos.Side) == winner {
				s.SetGame(g)
				if err := s.Run(UniformEvaluator{}); err != nil {
					t.Fatal(err)
				}
				if a, err = s.Choose(len(g.Actions)); err != nil {
					t.Fatal(err)
				}
			} else {
				if moves, err = tb.Moves(&g.Pos, moves); err != nil {
					t.Fatal(err)
				}
				a = moves[0].Action
			}
			if err := g.Play(a); err != nil {
				t.Fatal(err)
			}
			plies++
		}
	}
}

// TestSolver_WithTables_AllocatesNothing: searching table positions with
// the tables as prover allocates nothing once the arena has grown.
func TestSolver_WithTables_AllocatesNothing(t *testing.T) {
	v := load(t, "nine")
	tb := nineTables(t)
	rng := rand.New(rand.NewPCG(8, 9))
	var ps []engine.Position
	for len(ps) < 8 {
		if p := random3v3(rng, v); !p.Removing() {
			if r, _ := v.Outcome(&p); r == engine.Ongoing {
				ps = append(ps, p)
			}
		}
	}
	// A position owing a removal too: the tables answer it from its removals.
	ps = append(ps, parse(t, v, "OOO*****/********/@@*****@ side:0 hand:0,0 pending:0,1 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40"))
	for _, root := range []string{RootPUCT, RootGumbel} {
		set := testSettings(64)
		set.Root = root
		s := newSearch(t, v, set, 1)
		s.SetProver(tb)
		run := func() {
			for _, p := range ps {
				s.SetRoot(p, nil)
				if err := s.Run(UniformEvaluator{}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Choose(40); err != nil {
					t.Fatal(err)
				}
				s.Result()
			}
		}
		run()
		if n := testing.AllocsPerRun(5, run); n != 0 {
			t.Errorf("root %s: %v allocations per run of %d searches", root, n, len(ps))
		}
	}
}

// TestSolver_WithTables_PlaysOnWithTheTreeKept: self-play with tables
// (selfplay's tables: play_out) keeps the tree from move to move, so the
// next root is a child the tables proved, with the visits its proof backed
// up (more than a fast search's, as after a full search); the search must
// still expand it and choose. Both seats search, full and fast searches
// taking turns, from random positions one placement each before 3 v 3 (the
// first table positions are the root's grandchildren) to the end of the
// game, with either root.
func TestSolver_WithTables_PlaysOnWithTheTreeKept(t *testing.T) {
	for _, root := range []string{RootPUCT, RootGumbel} {
		t.Run(root, func(t *testing.T) {
			v := load(t, "nine")
			set := testSettings(16)
			set.Root, set.ReuseTree = root, true
			s := newSearch(t, v, set, 1)
			s.SetProver(nineTables(t))
			rng := rand.New(rand.NewPCG(7, 8))
			for games := 0; games < 5; {
				p := random3v3(rng, v)
				for seat := range 2 {
					p.Pieces[seat] &^= 1 << bits.TrailingZeros32(p.Pieces[seat])
					p.Hand[seat] = 1
				}
				p.Side, p.Ply = 0, 16
				p, err := v.ParsePosition(v.FormatPosition(&p))
				if err != nil {
					t.Fatal(err)
				}
				if r, _ := v.Outcome(&p); r != engine.Ongoing {
					continue
				}
				games++
				g := engine.NewGameFrom(v, p)
				s.SetGame(g)
				for ply := 0; ; ply++ {
					if r, _ := g.Outcome(); r != engine.Ongoing {
						break
					}
					if ply == 1000 {
						t.Fatalf("from %s: no end in 1000 plies", v.FormatPosition(&p))
					}
					s.SetSimulations([]int{4, 64}[ply%2])
					if err := s.Run(UniformEvaluator{}); err != nil {
						t.Fatal(err)
					}
					a, err := s.Choose(len(g.Actions))
					if err != nil {
						t.Fatalf("from %s, ply %d: %v", v.FormatPosition(&p), ply, err)
					}
					if err := g.Play(a); err != nil {
						t.Fatal(err)
					}
					if r, _ := g.Outcome(); r == engine.Ongoing {
						if err := s.Advance(a); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}
