package selfplay

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
)

// spreadSamples are positions of random games of nine, one every seventh
// ply, with their ply and repetitions as self-play records them.
func spreadSamples(t *testing.T, v *engine.Variant, n int) []dataset.Sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var out []dataset.Sample
	var buf []engine.Action
	for len(out) < n {
		g := engine.NewGame(v)
		for ply := 0; len(out) < n; ply++ {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			if ply%7 == 3 {
				out = append(out, dataset.Sample{Variant: v.Name, Ply: len(g.Actions), Position: g.Pos,
					Repetitions: v.Repetitions(&g.Pos, g.Hashes), Full: true})
			}
			buf = v.Legal(&g.Pos, buf[:0])
			if err := g.Play(buf[rng.IntN(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func spreadEvaluator(t *testing.T, v *engine.Variant, symmetry bool) mcts.Evaluator {
	t.Helper()
	net, err := model.New(v.Name, model.NewArch(v, model.Config{Width: 16, Blocks: 1, Features: model.EncoderBoard}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := model.NewEvaluator(v, net, 64, symmetry, 3)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func spreadSettings() mcts.Settings {
	s := DefaultSettings().Search
	s.Simulations, s.Root, s.BatchSize = 32, mcts.RootGumbel, 4
	s.TemperaturePlies, s.FinalTemperature = 16, 0
	return s
}

func TestTargetSpread_SearchesAgreeWhenNothingIsRandom(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	// Past the temperature's plies a gumbel root draws no noise, and an
	// evaluator that never turns the board makes every search the same.
	var late []dataset.Sample
	for _, s := range spreadSamples(t, v, 40) {
		if s.Ply >= 16 {
			late = append(late, s)
		}
	}
	if len(late) < 10 {
		t.Fatalf("%d positions past ply 16: want 10 or more", len(late))
	}
	sp, err := TargetSpread(v, spreadEvaluator(t, v, false), spreadSettings(), late, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Positions != len(late) || sp.Searches != 4 {
		t.Fatalf("spread of %d positions, %d searches: want %d and 4", sp.Positions, sp.Searches, len(late))
	}
	if sp.Agreement.Mean != 1 || math.Abs(sp.MeanEntropy.Mean-sp.Entropy.Mean) > 1e-6 {
		t.Fatalf("identical searches: agreement %v, mean target's entropy %v against one target's %v: want 1 and equal",
			sp.Agreement, sp.MeanEntropy, sp.Entropy)
	}
	if !(sp.Excess.Mean > 0) || math.Abs(sp.CrossEntropy.Mean-sp.MeanEntropy.Mean-sp.Excess.Mean) > 1e-9 {
		t.Fatalf("cross-entropy %v, mean entropy %v, excess %v: want the excess their positive difference", sp.CrossEntropy, sp.MeanEntropy, sp.Excess)
	}
}

func TestTargetSpread_NoiseAndTurnedBoardsMakeSearchesDisagree(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	samples := spreadSamples(t, v, 24)
	for _, symmetry := range []bool{false, true} {
		// The samples' plies made young: every root draws Gumbel noise.
		young := append([]dataset.Sample(nil), samples...)
		for i := range young {
			young[i].Ply, young[i].Repetitions = 0, 0
		}
		for name, ss := range map[string][]dataset.Sample{"gumbel noise": young, "turned boards": samples} {
			if name == "turned boards" && !symmetry {
				continue
			}
			sp, err := TargetSpread(v, spreadEvaluator(t, v, symmetry), spreadSettings(), ss, 6, 1)
			if err != nil {
				t.Fatal(err)
			}
			// The entropy is concave: the mean target's is at least the
			// targets' mean entropy, more where they differ.
			if !(sp.Agreement.Mean < 1) || !(sp.MeanEntropy.Mean > sp.Entropy.Mean+0.01) {
				t.Errorf("%s (symmetry %v): agreement %v, mean target's entropy %v, one target's %v: want disagreement", name, symmetry,
					sp.Agreement, sp.MeanEntropy, sp.Entropy)
			}
			if !(sp.Excess.Mean > 0) || !(sp.Agreement.Half > 0) {
				t.Errorf("%s: excess %v, agreement %v: want a positive excess and an interval", name, sp.Excess, sp.Agreement)
			}
		}
	}
}

func TestTargetSpread_RefusesTooFewSearchesOrPositions(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	e := spreadEvaluator(t, v, false)
	if _, err := TargetSpread(v, e, spreadSettings(), spreadSamples(t, v, 2), 1, 1); err == nil || !strings.Contains(err.Error(), "1 searches") {
		t.Errorf("one search a position: err %v, want one naming it", err)
	}
	if _, err := TargetSpread(v, e, spreadSettings(), nil, 4, 1); err == nil || !strings.Contains(err.Error(), "no positions") {
		t.Errorf("no positions: err %v", err)
	}
}

func TestPlaceholderHistory_RestoresTheRootsRepetitions(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	p := engine.NewGame(v).Pos
	p.Quiet = 40
	for reps := range 3 {
		h := placeholderHistory(nil, &p, 30, reps)
		if len(h) != 30 {
			t.Fatalf("history of %d: want 30", len(h))
		}
		if got := v.Repetitions(&p, h); got != reps {
			t.Errorf("%d repetitions restored as %d", reps, got)
		}
	}
}

// TestTargetSpread_AFloorOnTheQSpreadSoftensTheTargets: the searches report
// their completed Q's spread, and with min_q_spread 1 (the values' own
// scale) the targets of an untrained network, whose children's values lie
// close together, keep more of the prior's entropy than when any spread is
// stretched to [0,1].
func TestTargetSpread_AFloorOnTheQSpreadSoftensTheTargets(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	samples := spreadSamples(t, v, 24)
	var sp [2]Spread
	for i, floor := range []float64{0, 1} {
		set := spreadSettings()
		set.MinQSpread = floor
		if sp[i], err = TargetSpread(v, spreadEvaluator(t, v, false), set, samples, 4, 1); err != nil {
			t.Fatal(err)
		}
		if !(sp[i].QSpread.Mean > 0 && sp[i].QSpread.Mean <= 1) || sp[i].NarrowQ.Mean < 0 || sp[i].NarrowQ.Mean > 1 {
			t.Fatalf("min_q_spread %v: spread %v, narrow share %v: want a spread in (0,1] and a share in [0,1]", floor, sp[i].QSpread, sp[i].NarrowQ)
		}
	}
	if !(sp[1].Entropy.Mean > sp[0].Entropy.Mean+0.1) {
		t.Errorf("one target's entropy %v with min_q_spread 1, %v with 0: want the floor's targets softer", sp[1].Entropy, sp[0].Entropy)
	}
	if !(sp[0].NarrowQ.Mean > 0) {
		t.Errorf("an untrained network's searches: narrow share %v, want some spreads under %v", sp[0].NarrowQ, NarrowSpread)
	}
}
