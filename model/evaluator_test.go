package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// positionsBatch is a batch of n random ongoing positions of v.
func positionsBatch(t testing.TB, v *engine.Variant, n int, seed uint64) *mcts.Batch {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	b := mcts.NewBatch(v)
	for b.Len() < n {
		p := randomPosition(v, rng, rng.IntN(60))
		if legal := v.Legal(&p, nil); len(legal) > 0 && p.Result == engine.Ongoing {
			b.SetRepetitions(b.Add(&p, legal), rng.IntN(3))
		}
	}
	return b
}

func evalNetwork(t *testing.T, v *engine.Variant) *Network {
	n := randomNetwork(t, NewArch(v, Config{Width: 32, Blocks: 2}), 5)
	n.Variant = v.Name
	return n
}

func TestEvaluatorAnswersSoftmaxOverLegalLogitsAndAbsoluteSeats(t *testing.T) {
	for _, name := range []string{"nine", "moulin-rouge-3"} {
		t.Run(name, func(t *testing.T) {
			v := mustVariant(t, name)
			n := evalNetwork(t, v)
			e, err := NewEvaluator(v, n, 4, false, 1)
			if err != nil {
				t.Fatal(err)
			}
			b := positionsBatch(t, v, 9, 3) // more than one chunk of 4
			if err := e.Evaluate(b); err != nil {
				t.Fatal(err)
			}
			a := n.Arch
			f := NewForward(n, 1)
			x := make([]float32, a.Inputs)
			pl := make([]float32, a.Actions)
			ol := make([]float32, a.Outcomes)
			for i := 0; i < b.Len(); i++ {
				p := b.Position(i)
				Encode(v, a.Encoder, p, b.Repetitions(i), x)
				f.Run(x, 1, pl, ol)
				var z float64
				for _, act := range b.Legal(i) {
					z += math.Exp(float64(pl[v.ActionIndex(act)]))
				}
				for j, act := range b.Legal(i) {
					want := math.Exp(float64(pl[v.ActionIndex(act)])) / z
					if got := b.Priors(i)[j]; math.Abs(float64(got)-want) > 1e-5 {
						t.Fatalf("position %d action %s: prior %v, want %v", i, v.FormatAction(act), got, want)
					}
				}
				z = 0
				for _, o := range ol {
					z += math.Exp(float64(o))
				}
				for k, o := range ol {
					want := math.Exp(float64(o)) / z
					abs := AbsoluteOutcome(k, int(p.Side), v.Players)
					if got := b.Outcome(i)[abs]; math.Abs(float64(got)-want) > 1e-5 {
						t.Fatalf("position %d (seat %d to move) outcome class %d: %v, want %v", i, p.Side, abs, got, want)
					}
				}
			}
		})
	}
}

func TestEvaluatorMapsAnswersBackFromTheSymmetry(t *testing.T) {
	v := mustVariant(t, "nine")
	n := evalNetwork(t, v)
	plain, _ := NewEvaluator(v, n, 8, false, 1)
	sym, _ := NewEvaluator(v, n, 8, true, 1)
	for s := 1; s < v.NumSymmetries(); s += 3 {
		sym.pick = func(*engine.Position) int { return s }
		b := positionsBatch(t, v, 5, uint64(s))
		if err := sym.Evaluate(b); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.Len(); i++ {
			q := v.MapPosition(s, *b.Position(i))
			at, out := evaluateAlone(t, plain, v, &q, b.Repetitions(i))
			for j, act := range b.Legal(i) {
				if got, want := b.Priors(i)[j], at[v.MapAction(s, act)]; math.Abs(float64(got-want)) > 1e-6 {
					t.Fatalf("symmetry %d position %d action %s: prior %v, the mapped position gives %v", s, i, v.FormatAction(act), got, want)
				}
			}
			for k := range b.Outcome(i) {
				if got, want := b.Outcome(i)[k], out[k]; math.Abs(float64(got-want)) > 1e-6 {
					t.Fatalf("symmetry %d position %d outcome %d: %v, the mapped position gives %v", s, i, k, got, want)
				}
			}
		}
	}
}

func TestEvaluatorAllocatesNothing(t *testing.T) {
	v := mustVariant(t, "nine")
	e, err := NewEvaluator(v, evalNetwork(t, v), 16, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := positionsBatch(t, v, 16, 1)
	if n := testing.AllocsPerRun(10, func() { e.Evaluate(b) }); n != 0 {
		t.Errorf("Evaluate allocates %v times", n)
	}
}

func TestEvaluatorRefusesANetworkOfAnotherVariant(t *testing.T) {
	nine, twelve := mustVariant(t, "nine"), mustVariant(t, "twelve")
	if _, err := NewEvaluator(twelve, evalNetwork(t, nine), 8, false, 1); err == nil {
		t.Error("a nine network evaluating twelve: no error")
	}
}

func TestEvaluatorOrientations_AllOfThemMakeTheAnswerEquivariant(t *testing.T) {
	v := mustVariant(t, "nine")
	n := evalNetwork(t, v)
	all, _ := NewEvaluator(v, n, 8, true, 1)
	if err := all.SetOrientations(v.NumSymmetries()); err != nil {
		t.Fatal(err)
	}
	one, _ := NewEvaluator(v, n, 8, true, 1)
	b := positionsBatch(t, v, 20, 3) // three chunks of 8 positions
	if err := all.Evaluate(b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < b.Len(); i += 4 {
		// The mean of the sixteen single views, each taken by hand.
		sum := make([]float64, len(b.Legal(i)))
		var out [engine.MaxSeats + 1]float64
		for s := range v.NumSymmetries() {
			one.pick = func(*engine.Position) int { return s }
			mb := mcts.NewBatch(v)
			mb.SetRepetitions(mb.Add(b.Position(i), b.Legal(i)), b.Repetitions(i))
			if err := one.Evaluate(mb); err != nil {
				t.Fatal(err)
			}
			for j, p := range mb.Priors(0) {
				sum[j] += float64(p) / float64(v.NumSymmetries())
			}
			for k, p := range mb.Outcome(0) {
				out[k] += float64(p) / float64(v.NumSymmetries())
			}
		}
		for j := range sum {
			if got := b.Priors(i)[j]; math.Abs(float64(got)-sum[j]) > 1e-5 {
				t.Fatalf("position %d action %d: prior %v over every orientation, the views' mean %v", i, j, got, sum[j])
			}
		}
		for k, got := range b.Outcome(i) {
			if math.Abs(float64(got)-out[k]) > 1e-5 {
				t.Fatalf("position %d outcome %d: %v over every orientation, the views' mean %v", i, k, got, out[k])
			}
		}
		// A turned board gets the same answer, turned.
		const s = 5
		q := v.MapPosition(s, *b.Position(i))
		at, _ := evaluateAlone(t, all, v, &q, b.Repetitions(i))
		for j, act := range b.Legal(i) {
			if got, want := b.Priors(i)[j], at[v.MapAction(s, act)]; math.Abs(float64(got-want)) > 1e-5 {
				t.Fatalf("position %d action %s: prior %v, on the turned board %v", i, v.FormatAction(act), got, want)
			}
		}
	}
}

func TestEvaluatorOrientations_TwoDistinctViewsAllocateNothingAndBadCountsAreRefused(t *testing.T) {
	v := mustVariant(t, "nine")
	net := evalNetwork(t, v)
	e, _ := NewEvaluator(v, net, 16, true, 1)
	if err := e.SetOrientations(2); err != nil || e.Orientations() != 2 {
		t.Fatalf("SetOrientations(2): %v, %d views", err, e.Orientations())
	}
	b := positionsBatch(t, v, 16, 1)
	if n := testing.AllocsPerRun(10, func() { e.Evaluate(b) }); n != 0 {
		t.Errorf("Evaluate with two views allocates %v times", n)
	}
	for i := 0; i < 16; i++ {
		if e.syms[2*i] == e.syms[2*i+1] {
			t.Fatalf("position %d: both views in symmetry %d", i, e.syms[2*i])
		}
	}
	for _, n := range []int{0, v.NumSymmetries() + 1} {
		if err := e.SetOrientations(n); err == nil || !strings.Contains(err.Error(), "orientations") {
			t.Errorf("SetOrientations(%d): err %v", n, err)
		}
	}
	fixed, _ := NewEvaluator(v, net, 16, false, 1)
	if err := fixed.SetOrientations(2); err == nil || !strings.Contains(err.Error(), "random symmetry") {
		t.Errorf("two views without random symmetry: err %v", err)
	}
}

func TestEvaluator_ACanonicalNetworkAnswersEveryTurnOfTheBoardAlike(t *testing.T) {
	v := mustVariant(t, "nine")
	n, err := New(v.Name, NewArch(v, Config{Width: 16, Blocks: 1, Orientation: OrientCanonical}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvaluator(v, n, 8, false, 1) // no random symmetry asked: the canonical one all the same
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetOrientations(2); err == nil || !strings.Contains(err.Error(), "canonical") {
		t.Errorf("two views of a canonical network: %v", err)
	}
	b := positionsBatch(t, v, 6, 9)
	if err := e.Evaluate(b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < b.Len(); i++ {
		for _, s := range []int{1, 6, 13} {
			q := v.MapPosition(s, *b.Position(i))
			at, out := evaluateAlone(t, e, v, &q, b.Repetitions(i))
			for j, act := range b.Legal(i) {
				if got, want := at[v.MapAction(s, act)], b.Priors(i)[j]; math.Abs(float64(got-want)) > 1e-6 {
					t.Fatalf("position %d turned by %d: action %s's prior %v, unturned %v", i, s, v.FormatAction(act), got, want)
				}
			}
			for k := range out {
				if got, want := out[k], b.Outcome(i)[k]; got != want {
					t.Fatalf("position %d turned by %d: outcome %d %v, unturned %v", i, s, k, got, want)
				}
			}
		}
	}
}

// evaluateAlone is e's answer to position q alone (with reps
// repetitions): each legal action's prior, and the outcome weights.
func evaluateAlone(t *testing.T, e *Evaluator, v *engine.Variant, q *engine.Position, reps int) (map[engine.Action]float32, []float32) {
	t.Helper()
	legal := v.Legal(q, nil)
	mb := mcts.NewBatch(v)
	mb.SetRepetitions(mb.Add(q, legal), reps)
	if err := e.Evaluate(mb); err != nil {
		t.Fatal(err)
	}
	at := map[engine.Action]float32{}
	for j, act := range legal {
		at[act] = mb.Priors(0)[j]
	}
	return at, mb.Outcome(0)
}

// A network with a score head gives every position of a batch the side to
// move's expected material difference, over one view or the mean of
// several; one without the head leaves it unknown (NaN) and says so, and
// a search that wants the score refuses it.
func TestEvaluator_ScoresWithAScoreHead(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 16, Blocks: 1, Features: EncoderTactics, Kind: KindGraph})
	plain := randomNetwork(t, a, 2)
	plain.Variant = v.Name
	a.Aux = AuxScore
	n := randomNetwork(t, a, 2)
	n.Variant = v.Name

	set := mcts.DefaultSettings()
	set.ScoreUtility = 0.2
	e, err := NewEvaluator(v, plain, 4, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := positionsBatch(t, v, 9, 3)
	if err := e.Evaluate(b); err != nil {
		t.Fatal(err)
	}
	if e.Scores() || !math.IsNaN(float64(b.Score(0))) {
		t.Fatalf("without a score head: Scores %v, score %v", e.Scores(), b.Score(0))
	}
	if err := mcts.CheckEvaluator(set, e); err == nil || !strings.Contains(err.Error(), "score_utility 0.2") {
		t.Fatalf("a score utility over a network without the head: %v", err)
	}

	e, err = NewEvaluator(v, n, 4, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := mcts.CheckEvaluator(set, e); err != nil {
		t.Fatal(err)
	}
	if err := e.Evaluate(b); err != nil {
		t.Fatal(err)
	}
	f := NewForward(n, 1)
	x := make([]float32, a.Inputs)
	out := make([]float32, a.Outcomes)
	for i := 0; i < b.Len(); i++ {
		Encode(v, a.Encoder, b.Position(i), b.Repetitions(i), x)
		if err := f.Trunk(x, 1, out); err != nil {
			t.Fatal(err)
		}
		if got, want := b.Score(i), f.Score(0); math.Abs(float64(got-want)) > 1e-5 {
			t.Fatalf("position %d: score %v, the network's %v", i, got, want)
		}
	}

	// Over every turn of the board the score is the mean of the turns'.
	e, err = NewEvaluator(v, n, 4, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetOrientations(v.NumSymmetries()); err != nil {
		t.Fatal(err)
	}
	if err := e.Evaluate(b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < b.Len(); i++ {
		var want float64
		for s := range v.NumSymmetries() {
			q := v.MapPosition(s, *b.Position(i))
			Encode(v, a.Encoder, &q, b.Repetitions(i), x)
			if err := f.Trunk(x, 1, out); err != nil {
				t.Fatal(err)
			}
			want += float64(f.Score(0)) / float64(v.NumSymmetries())
		}
		if got := b.Score(i); math.Abs(float64(got)-want) > 1e-4 {
			t.Fatalf("position %d over %d turns: score %v, the turns' mean %v", i, v.NumSymmetries(), got, want)
		}
	}
}
