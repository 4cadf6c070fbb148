package mcts

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/engine"
)

// randomEvaluator answers with random priors and outcomes, some of them
// garbage (zero, negative, NaN), which the search must renormalise.
type randomEvaluator struct{ rng *rand.Rand }

func (e randomEvaluator) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		bad := e.rng.IntN(8)
		for j := range b.Priors(i) {
			b.Priors(i)[j] = e.rng.Float32() * 5
			if bad == 0 {
				b.Priors(i)[j] = -1
			}
		}
		if bad == 1 {
			b.Priors(i)[0] = float32(nanF64())
		}
		for j := range b.Outcome(i) {
			b.Outcome(i)[j] = e.rng.Float32()
		}
	}
	return nil
}

func nanF64() float64 {
	zero := 0.0
	return zero / zero
}

// TestSearch_InvariantsOverRandomPositions is the property test of the
// search over many random positions of every variant: visit counts add up,
// priors are renormalised over the legal actions, and no illegal action is
// chosen, with noise, batching and tree reuse on.
func TestSearch_InvariantsOverRandomPositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, name := range engine.Names() {
		t.Run(name, func(t *testing.T) {
			v := load(t, name)
			for gi, g := range randomPositions(v, 12, 1) {
				// Random settings: any batch, virtual loss (even none),
				// first-play urgency, noise, reuse and temperatures.
				set := DefaultSettings()
				set.Simulations = 1 + rng.IntN(100)
				set.BatchSize = 1 + rng.IntN(24)
				set.VirtualLoss = []float64{0, 1, 3}[rng.IntN(3)]
				set.FPUReduction, set.FPURoot = rng.Float64(), rng.Float64()
				set.DirichletFraction, set.DirichletAlpha = rng.Float64(), 0.01+rng.Float64()
				set.ReuseTree = rng.IntN(2) == 0
				set.TemperaturePlies = rng.IntN(100)
				set.Temperature, set.FinalTemperature = 2*rng.Float64(), rng.Float64()/2
				s := newSearch(t, v, set, uint64(gi))
				s.SetGame(g)
				var eval Evaluator = randomEvaluator{rand.New(rand.NewPCG(uint64(gi), 3))}
				if gi%3 == 0 {
					eval = rollouts(t, v, 1, uint64(gi))
				}
				// Search, play, and search again from the reused subtree.
				for move := 0; move < 3; move++ {
					if r, _ := g.Outcome(); r != engine.Ongoing {
						break
					}
					if err := s.Run(eval); err != nil {
						t.Fatal(err)
					}
					checkTree(t, s, g.Hashes)
					res := s.Result()
					if res.Visited < set.Simulations {
						t.Fatalf("%d root visits, want %d", res.Visited, set.Simulations)
					}
					sumPolicy := float32(0)
					for _, p := range res.Policy {
						sumPolicy += p
					}
					if sumPolicy < 0.999 || sumPolicy > 1.001 {
						t.Fatalf("policy target sums to %v", sumPolicy)
					}
					if !v.IsLegal(&g.Pos, res.Best) {
						t.Fatalf("best action %s is not legal in %s", v.FormatAction(res.Best), v.FormatPosition(&g.Pos))
					}
					a, err := s.Choose(int(g.Pos.Ply))
					if err != nil {
						t.Fatal(err)
					}
					if err := g.Play(a); err != nil {
						t.Fatalf("chosen action: %v", err)
					}
					if r, _ := g.Outcome(); r != engine.Ongoing {
						break
					}
					if err := s.Advance(a); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestSelect_VirtualLossSpreadsABatch: one round of gathering from an
// expanded root sends each descent to a different child.
func TestSelect_VirtualLossSpreadsABatch(t *testing.T) {
	v := load(t, "nine")
	set := testSettings(1)
	set.BatchSize = 8
	s := newSearch(t, v, set, 1)
	if err := s.Run(UniformEvaluator{}); err != nil { // expands the root
		t.Fatal(err)
	}
	s.set.Simulations = 100
	b := NewBatch(v)
	s.gather(b)
	if b.Len() != 8 {
		t.Fatalf("gathered %d leaves, want 8", b.Len())
	}
	seen := map[uint64]bool{}
	for i := 0; i < b.Len(); i++ {
		seen[b.Position(i).Hash] = true
	}
	if len(seen) != 8 {
		t.Errorf("%d distinct leaves among 8", len(seen))
	}
	if root := &s.nodes[0]; root.inflight != 8 {
		t.Errorf("root has %d playouts in flight, want 8", root.inflight)
	}
	if err := UniformEvaluator.Evaluate(UniformEvaluator{}, b); err != nil {
		t.Fatal(err)
	}
	s.absorb(b)
	checkTree(t, s, nil)
}

// TestSelect_FirstPlayUrgencyIsASetting: a larger FPU reduction makes the
// search try fewer new actions and go deeper.
func TestSelect_FirstPlayUrgencyIsASetting(t *testing.T) {
	v := load(t, "nine")
	tried := func(reduction float64) int {
		set := testSettings(200)
		set.FPUReduction, set.FPURoot = reduction, reduction
		s := newSearch(t, v, set, 1)
		if err := s.Run(UniformEvaluator{}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, visits := range s.Result().Visits {
			if visits > 0 {
				n++
			}
		}
		return n
	}
	wide, narrow := tried(0), tried(1)
	if !(narrow < wide) {
		t.Errorf("root actions tried: %d with fpu reduction 0, %d with 1: want fewer with 1", wide, narrow)
	}
}

// evenAndBiased is an evaluator that says seat 0 wins every position, so a
// node's value shows whether it was scored by the network or the rules.
type seatZeroWins struct{}

func (seatZeroWins) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		for j := range b.Priors(i) {
			b.Priors(i)[j] = 1
		}
		clear(b.Outcome(i))
		b.Outcome(i)[0] = 1
	}
	return nil
}

// TestTerminal_ScoredByTheRules: every child of these roots ends the game
// by a draw rule; the search scores them as draws, whatever the evaluator
// says.
func TestTerminal_ScoredByTheRules(t *testing.T) {
	cases := []struct {
		name, variant, pos string
		why                engine.Reason
	}{
		{"TestTerminal_NoCaptureDraw", "nine",
			"O***@***/*@*O****/*****O*@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:99 endgame:0 quiet:0 ply:200", engine.NoCaptureDraw},
		{"TestTerminal_EndgameDraw", "nine",
			"O***@***/*@*O****/*****O*@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:10 endgame:19 quiet:0 ply:200", engine.EndgameDraw},
		{"TestTerminal_PlyCap", "nine",
			"O***@***/*@*O****/*****O*@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:10 endgame:0 quiet:0 ply:999", engine.PlyCapDraw},
		{"TestTerminal_BoardFullDraw", "twelve",
			"@@OO@OO@/@OO@@*OO/OO@@OO@@ side:1 hand:0,1 pending:0,0 out:0 rot:- nocap:23 endgame:0 quiet:0 ply:23", engine.BoardFullDraw},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := load(t, c.variant)
			p := parse(t, v, c.pos)
			s := newSearch(t, v, testSettings(300), 1)
			s.SetRoot(p, nil)
			if err := s.Run(seatZeroWins{}); err != nil {
				t.Fatal(err)
			}
			root := &s.nodes[0]
			for k := int32(0); k < int32(root.children); k++ {
				ch := &s.nodes[root.first+k]
				q := v.Apply(&p, ch.action)
				if q.Reason != c.why {
					t.Fatalf("test position: %s leads to %s, want %s", v.FormatAction(ch.action), q.Reason, c.why)
				}
				if ch.visits > 0 && (ch.state != terminal || ch.result != engine.Draw) {
					t.Errorf("child %s: state %d result %s, want a terminal draw", v.FormatAction(ch.action), ch.state, ch.result)
				}
				if ch.visits > 0 && ch.valueSum[0] != 0.5*float32(ch.visits) {
					t.Errorf("child %s: seat 0 scored %v over %d visits, want a draw's 0.5 each", v.FormatAction(ch.action), ch.valueSum[0], ch.visits)
				}
			}
		})
	}
}

// TestTerminal_RepetitionOverHistoryAndPath: a repetition draw counts the
// game's positions before the root and the positions on the search path.
func TestTerminal_RepetitionOverHistoryAndPath(t *testing.T) {
	v := load(t, "three-nodiagonal")
	// White a3-a2, Black b3... a cycle of four moves that returns to p0:
	// White a3-a2, Black b2-b3, White a2-a3, Black b3-b2.
	p0 := parse(t, v, "O*@O*O@*/@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:20")
	cycle := []string{"a3-a2", "b2-b3", "a2-a3", "b3-b2"}
	g := engine.NewGameFrom(v, p0)
	prefer := map[uint64]engine.Action{}
	for _, m := range cycle {
		a := action(t, v, &g.Pos, m)
		prefer[g.Pos.Hash] = a
		if err := g.Play(a); err != nil {
			t.Fatal(err)
		}
	}
	// g is at p0 for the second time. The path a3-a2 b2-b3 a2-a3 b3-b2
	// reaches it a third time: a draw only by counting history and path.
	root := g.Pos
	cases := []struct {
		name    string
		history []uint64
		depth   int // plies down the cycle to the repeated position
		draw    bool
	}{
		{"history and path", g.Hashes, 4, true},
		{"path alone is not enough", nil, 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := testSettings(60)
			set.CPuct = 50 // follow the scripted priors down the cycle
			s := newSearch(t, v, set, 1)
			s.SetRoot(root, c.history)
			if err := s.Run(scriptEvaluator{prefer}); err != nil {
				t.Fatal(err)
			}
			checkTree(t, s, c.history)
			i := int32(0)
			p := root
			for d := 0; d < c.depth; d++ {
				n := &s.nodes[i]
				if n.state != expanded {
					t.Fatalf("depth %d: node not expanded (state %d)", d, n.state)
				}
				want := prefer[p.Hash]
				found := false
				for k := int32(0); k < int32(n.children); k++ {
					if s.nodes[n.first+k].action == want {
						i, found = n.first+k, true
					}
				}
				if !found {
					t.Fatalf("depth %d: no child %s", d, v.FormatAction(want))
				}
				p = v.Apply(&p, want)
			}
			n := &s.nodes[i]
			isDraw := n.state == terminal && n.result == engine.Draw
			if isDraw != c.draw {
				t.Errorf("repeated position: state %d result %s, want terminal draw %v", n.state, n.result, c.draw)
			}
		})
	}
}

// losingEvaluator says seat 0 wins every position it is shown, and gives
// every action a prior of 1 but rare, whose prior is 1e-9: a network that
// rules a move out.
type losingEvaluator struct{ rare engine.Action }

func (e losingEvaluator) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		for j, a := range b.Legal(i) {
			b.Priors(i)[j] = 1
			if a == e.rare {
				b.Priors(i)[j] = 1e-9
			}
		}
		o := b.Outcome(i)
		for j := range o {
			o[j] = 0
		}
		o[0] = 1
	}
	return nil
}

// TestSelect_ARepetitionDrawIsFoundWhateverItsPrior: the side that loses
// everywhere else has one move that repeats the position a third time, a
// draw, and the network gives it a prior of 1e-9. The search knows the
// draw at expansion, so it visits the move and chooses it (a benchmark
// game was drawn by such a move that the model's search never looked at).
func TestSelect_ARepetitionDrawIsFoundWhateverItsPrior(t *testing.T) {
	v := load(t, "three-nodiagonal")
	p0 := parse(t, v, "O*@O*O@*/@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:20")
	cycle := []string{"a3-a2", "b2-b3", "a2-a3", "b3-b2"}
	g := engine.NewGameFrom(v, p0)
	for i := 0; i < 7; i++ { // the cycle once, then all but its last move
		if err := g.Play(action(t, v, &g.Pos, cycle[i%4])); err != nil {
			t.Fatal(err)
		}
	}
	repeat := action(t, v, &g.Pos, "b3-b2") // p0 a third time
	if q := v.Apply(&g.Pos, repeat); v.Repetitions(&q, append(g.Hashes, g.Pos.Hash))+1 < v.RepetitionDraw {
		t.Fatal("b3-b2 does not repeat p0 a third time: the test's game is wrong")
	}
	s := newSearch(t, v, testSettings(200), 1)
	s.SetGame(g)
	if err := s.Run(losingEvaluator{repeat}); err != nil {
		t.Fatal(err)
	}
	checkTree(t, s, g.Hashes)
	r := s.Result()
	if r.Best != repeat {
		for i, a := range r.Actions {
			t.Logf("%s: %d visits", v.FormatAction(a), r.Visits[i])
		}
		t.Fatalf("the search chose %s, want the drawing repetition %s", v.FormatAction(r.Best), v.FormatAction(repeat))
	}
	if seat1 := r.Value[1]; seat1 < 0.3 {
		t.Errorf("root value for the side to move %.3f: want near the draw's 0.5", seat1)
	}
}

// outcomeEvaluator gives every position the same outcome weights (each
// seat wins, then draw) and every action the same prior.
type outcomeEvaluator struct{ outcome []float32 }

func (e outcomeEvaluator) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		for j := range b.Legal(i) {
			b.Priors(i)[j] = 1
		}
		copy(b.Outcome(i), e.outcome)
	}
	return nil
}

// repeatingGame is a moving-phase game of nine, four pieces a side and no
// mill near, where both sides have moved a piece back and forth: seat 1 is
// to move, and one of its moves (returned) repeats the position a third
// time; every other move leaves the game going.
func repeatingGame(t *testing.T, v *engine.Variant) (*engine.Game, engine.Action) {
	t.Helper()
	p0 := parse(t, v, "O*@*O*@*/********/O*@*O*@* side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:30")
	cycle := []string{"a7-d7", "g7-g4", "d7-a7", "g4-g7"}
	g := engine.NewGameFrom(v, p0)
	for i := 0; i < 7; i++ {
		if err := g.Play(action(t, v, &g.Pos, cycle[i%4])); err != nil {
			t.Fatal(err)
		}
	}
	repeat := action(t, v, &g.Pos, "g4-g7")
	if q := v.Apply(&g.Pos, repeat); v.Repetitions(&q, append(g.Hashes, g.Pos.Hash))+1 < v.RepetitionDraw {
		t.Fatal("g4-g7 does not repeat the start a third time: the test's game is wrong")
	}
	return g, repeat
}

// TestContempt_EverySideAvoidsADrawItCanAfford: seat 1 can draw at once by
// repetition, and every other move leads to positions the network gives it
// 45% of (decisive: no draw). An even draw (0.5) is worth more, so without
// contempt the search repeats; with contempt 0.1 a draw is worth 0.4 to
// every seat, and it plays on. Either way the root value it reports is on
// the even scale: the seats' values sum to 1.
func TestContempt_EverySideAvoidsADrawItCanAfford(t *testing.T) {
	v := load(t, "nine")
	eval := outcomeEvaluator{[]float32{0.55, 0.45, 0}}
	for _, c := range []struct {
		contempt float64
		repeats  bool
	}{{0, true}, {0.1, false}} {
		g, repeat := repeatingGame(t, v)
		set := testSettings(200)
		set.Contempt = c.contempt
		s := newSearch(t, v, set, 1)
		s.SetGame(g)
		if err := s.Run(eval); err != nil {
			t.Fatal(err)
		}
		r := s.Result()
		if (r.Best == repeat) != c.repeats {
			t.Errorf("contempt %v: the search chose %s; want the repetition %s: %v", c.contempt, v.FormatAction(r.Best), v.FormatAction(repeat), c.repeats)
		}
		if sum := r.Value[0] + r.Value[1]; math.Abs(float64(sum)-1) > 1e-5 {
			t.Errorf("contempt %v: root values %v sum to %v, want 1", c.contempt, r.Value[:2], sum)
		}
	}
}

// TestContempt_TheRootValueIsOnTheEvenScale: a network that sees 60% draws
// everywhere gives each seat 0.5 on the even scale, 0.44 as the search
// counts with contempt 0.1; Result.Value reports the even 0.5, so the
// value targets and resignation read the same scale with and without it.
func TestContempt_TheRootValueIsOnTheEvenScale(t *testing.T) {
	v := load(t, "nine")
	set := testSettings(64)
	set.Contempt = 0.1
	s := newSearch(t, v, set, 1)
	if err := s.Run(outcomeEvaluator{[]float32{0.2, 0.2, 0.6}}); err != nil {
		t.Fatal(err)
	}
	r := s.Result()
	for k := 0; k < 2; k++ {
		if math.Abs(float64(r.Value[k])-0.5) > 1e-5 {
			t.Errorf("seat %d: root value %v, want 0.5 on the even scale", k, r.Value[k])
		}
	}
	root := &s.nodes[0]
	if got := root.valueSum[0] / float32(root.visits); math.Abs(float64(got)-0.44) > 1e-5 {
		t.Errorf("seat 0's mean as the search counts it %v, want 0.2 + 0.6 x 0.4 = 0.44", got)
	}
}
