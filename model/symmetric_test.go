package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// playedPositions is n positions of games of random legal actions in v
// (randomPosition), up to 60 plies in.
func playedPositions(v *engine.Variant, n int, seed uint64) []engine.Position {
	rng := rand.New(rand.NewPCG(seed, 5))
	out := make([]engine.Position, n)
	for i := range out {
		out[i] = randomPosition(v, rng, rng.IntN(60))
	}
	return out
}

var symmetricVariants = []string{"nine", "three", "twelve", "morabaraba", "moulin-rouge"}

func TestFeatureMap_MovesEveryFeatureAsTheBoardTurns(t *testing.T) {
	for _, name := range symmetricVariants {
		v := mustVariant(t, name)
		for enc := EncoderBoard; enc <= EncoderVersion; enc++ {
			n := FeatureSize(v, enc)
			x, y := make([]float32, n), make([]float32, n)
			for _, p := range playedPositions(v, 60, 1) {
				for s := range v.NumSymmetries() {
					m := FeatureMap(v, enc, s)
					q := v.MapPosition(s, p)
					Encode(v, enc, &p, 0, x)
					Encode(v, enc, &q, 0, y)
					for f := range x {
						if y[m[f]] != x[f] {
							t.Fatalf("%s encoder %d symmetry %d: feature %d is %v, mapped to %d of the turned board: %v", name, enc, s, f, x[f], m[f], y[m[f]])
						}
					}
				}
			}
		}
	}
}

// TestTying_ASymmetricNetworkAnswersEveryTurnAlike: the policy of a
// turned board is the turned policy, and its outcome the same, for a
// network tied by Init; an untied one of the same weights' draw does not.
func TestTying_ASymmetricNetworkAnswersEveryTurnAlike(t *testing.T) {
	for _, name := range symmetricVariants {
		v := mustVariant(t, name)
		a := NewArch(v, Config{Width: 2*v.Board.Points + 5, Blocks: 1, Features: EncoderTactics, Symmetric: true})
		tie, err := NewTying(v, a)
		if err != nil {
			t.Fatal(err)
		}
		net := randomNetwork(t, a, 3)
		if err := tie.Check(net); err == nil {
			t.Fatalf("%s: a network of random weights passes Check", name)
		}
		untied := net.Clone()
		if err := tie.Init(net); err != nil {
			t.Fatal(err)
		}
		if err := tie.Check(net); err != nil {
			t.Fatalf("%s: after Init: %v", name, err)
		}
		if tie.Orbits() >= a.ParamCount() {
			t.Fatalf("%s: %d orbits of %d values: nothing tied", name, tie.Orbits(), a.ParamCount())
		}
		if d := worstTurnedAnswer(t, v, net, true); d > 1e-4 {
			t.Errorf("%s: the tied network's answers to turned boards differ by up to %g", name, d)
		}
		if d := worstTurnedAnswer(t, v, untied, true); d < 1e-2 {
			t.Errorf("%s: the untied network's answers differ by only %g: the test cannot tell", name, d)
		}
	}
}

// worstTurnedAnswer is the largest difference, over positions of v and
// every symmetry of its board, between network n's answer to a position
// and its answer to the turned position: each policy logit against the
// turned action's (with mapActions; else against the same index's), and
// each outcome logit against the same one's.
func worstTurnedAnswer(t *testing.T, v *engine.Variant, n *Network, mapActions bool) float64 {
	t.Helper()
	a := n.Arch
	fwd := NewForward(n, 1)
	x := make([]float32, a.Inputs)
	p0, p1 := make([]float32, a.Actions), make([]float32, a.Actions)
	o0, o1 := make([]float32, a.Outcomes), make([]float32, a.Outcomes)
	d := 0.0
	for _, p := range playedPositions(v, 20, 2) {
		Encode(v, a.Encoder, &p, 0, x)
		if err := fwd.Run(x, 1, p0, o0); err != nil {
			t.Fatal(err)
		}
		for s := 1; s < v.NumSymmetries(); s++ {
			q := v.MapPosition(s, p)
			Encode(v, a.Encoder, &q, 0, x)
			if err := fwd.Run(x, 1, p1, o1); err != nil {
				t.Fatal(err)
			}
			for i := range p0 {
				j := i
				if mapActions {
					j = v.ActionIndex(v.MapAction(s, v.ActionAt(i)))
				}
				d = math.Max(d, math.Abs(float64(p1[j]-p0[i])))
			}
			for k := range o0 {
				d = math.Max(d, math.Abs(float64(o1[k]-o0[k])))
			}
		}
	}
	return d
}

func TestTying_Project(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 56, Blocks: 1, Features: EncoderBoard, Symmetric: true})
	tie, err := NewTying(v, a)
	if err != nil {
		t.Fatal(err)
	}
	net := randomNetwork(t, a, 4)
	var before, after float64
	for i, p := range net.Params {
		for _, x := range p.Data {
			before += float64(x)
		}
		tie.Project(i, p.Data)
		for _, x := range p.Data {
			after += float64(x)
		}
	}
	if math.Abs(before-after) > 1e-3*math.Max(1, math.Abs(before)) {
		t.Errorf("projection changed the values' sum from %v to %v (a mean keeps it)", before, after)
	}
	if err := tie.Check(net); err != nil {
		t.Errorf("after Project: %v", err)
	}
}

func TestTying_RefusesWhatDoesNotFit(t *testing.T) {
	v := mustVariant(t, "nine")
	if _, err := NewTying(v, NewArch(v, Config{Width: 16, Blocks: 1, Symmetric: true})); err == nil || !strings.Contains(err.Error(), "24 points") {
		t.Errorf("width 16 on 24 points: %v", err)
	}
	three := mustVariant(t, "three")
	tie, err := NewTying(v, NewArch(v, Config{Width: 24, Blocks: 1, Symmetric: true}))
	if err != nil {
		t.Fatal(err)
	}
	other := randomNetwork(t, NewArch(three, Config{Width: 24, Blocks: 1, Symmetric: true}), 1)
	if err := tie.Init(other); err == nil {
		t.Error("a tying of nine initialised a network of three")
	}
	a := NewArch(v, Config{Width: 24, Blocks: 1, Symmetric: true})
	if err := a.GrowsTo(NewArch(v, Config{Width: 48, Blocks: 1, Symmetric: true})); err == nil {
		t.Error("a symmetric network grows")
	}
}

func TestCheckpoint_KeepsTheSymmetry(t *testing.T) {
	v := mustVariant(t, "three")
	a := NewArch(v, Config{Width: 12, Blocks: 1, Symmetric: true})
	n := randomNetwork(t, a, 1)
	n.Variant = v.Name
	path := t.TempDir() + "/s.safetensors"
	if err := (&Checkpoint{Net: n}).Save(path); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Net.Arch.Symmetric || !strings.HasSuffix(c.Net.Arch.String(), " symmetric") {
		t.Errorf("loaded %v: the symmetry is lost", c.Net.Arch)
	}
}
