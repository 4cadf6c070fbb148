package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// runGraphNet evaluates the Gorgonia graph of n, a graph network for v, on
// the batch × Inputs features x with Gorgonia's own machine, and returns
// the policy and outcome logits.
func runGraphNet(t *testing.T, v *engine.Variant, n *model.Network, x []float32, batch int) (policy, outcome []float32) {
	t.Helper()
	gr, err := newNetGraph(n, batch)
	if err != nil {
		t.Fatal(err)
	}
	a := n.Arch
	pf, err := newPointFeatures(v, a)
	if err != nil {
		t.Fatal(err)
	}
	xp, xg := make([]float32, batch*a.Points*a.Planes), make([]float32, batch*a.Globals())
	pf.split(x, batch, xp, xg)
	for _, in := range []struct {
		n     *G.Node
		data  []float32
		shape []int
	}{{gr.XP, xp, []int{batch * a.Points, a.Planes}}, {gr.XG, xg, []int{batch, a.Globals()}}, {gr.Mask, make([]float32, batch*a.Actions), []int{batch, a.Actions}}} {
		if err := G.Let(in.n, tensor.New(tensor.WithShape(in.shape...), tensor.WithBacking(in.data))); err != nil {
			t.Fatal(err)
		}
	}
	return runTape(t, gr)
}

// graphConfig is a graph network's trunk.
func graphConfig(width, blocks, features int) model.Config {
	return model.Config{Kind: model.KindGraph, Width: width, Blocks: blocks, Features: features}
}

// The training graph of a graph network computes what the forward pass
// does (model/graph.go's function, which package model checks the pass
// against), logits in the action space's order: on a board of few points,
// on nine men's morris, and on a rotating board (its rotation logits
// last), for one position and for several.
func TestGraphNetMatchesTheSpecification(t *testing.T) {
	for _, tc := range []struct {
		variant         string
		width, blocks   int
		features, batch int
	}{
		{"three", 4, 1, 1, 1}, {"three", 6, 2, 3, 5},
		{"nine", 8, 1, 2, 1}, {"nine", 16, 2, 3, 5},
		{"moulin-rouge", 8, 1, 1, 1}, {"moulin-rouge", 12, 2, 3, 5},
	} {
		t.Run(fmt.Sprintf("%s/width=%d/blocks=%d/features=%d/batch=%d", tc.variant, tc.width, tc.blocks, tc.features, tc.batch), func(t *testing.T) {
			v := mustVariant(t, tc.variant)
			a := model.NewArch(v, graphConfig(tc.width, tc.blocks, tc.features))
			if v.Board.Rotating != (a.Rotations() > 0) {
				t.Fatalf("%s: %d rotation actions", tc.variant, a.Rotations())
			}
			n := randomNetwork(t, a, uint64(tc.width))
			x := randomSlice(rand.New(rand.NewPCG(uint64(tc.batch), 11)), tc.batch*a.Inputs)
			wantP, wantO := referenceLogits(t, v, n, x, tc.batch)
			gotP, gotO := runGraphNet(t, v, n, x, tc.batch)
			if len(gotP) != tc.batch*a.Actions || len(gotO) != tc.batch*a.Outcomes {
				t.Fatalf("%d policy and %d outcome logits, want %d and %d", len(gotP), len(gotO), tc.batch*a.Actions, tc.batch*a.Outcomes)
			}
			if d := maxRelDiff64(gotP, wantP); d > 1e-4 {
				t.Errorf("policy logits differ from the forward pass's by %g", d)
			}
			if d := maxRelDiff64(gotO, wantO); d > 1e-4 {
				t.Errorf("outcome logits differ from the forward pass's by %g", d)
			}
		})
	}
}

// maxRelDiff64 is the largest |a-b| / max(1, |b|).
func maxRelDiff64(a []float32, b []float64) float64 {
	d := 0.0
	for i := range a {
		e := math.Abs(float64(a[i])-b[i]) / math.Max(1, math.Abs(b[i]))
		if math.IsNaN(e) {
			return math.Inf(1) // a NaN compares false with any bound
		}
		d = max(d, e)
	}
	return d
}

// What only an MLP has is refused for a graph network, by name: tying its
// weights over the board's symmetries (its structure answers every turn
// alike).
func TestGraphNetwork_TyingIsRefused(t *testing.T) {
	v := mustVariant(t, "three")
	n := newNet(t, v, graphConfig(4, 1, 1), 1)
	tied := n.Clone()
	tied.Arch.Symmetric = true
	if _, err := New(v, tied, plainConfig()); err == nil || !strings.Contains(err.Error(), "symmetric") {
		t.Errorf("a trainer of a tied graph network: error %v", err)
	}
}
