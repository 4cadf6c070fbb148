package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/model"
)

// runGraph evaluates n's Gorgonia graph on x (batch rows) and returns the
// policy and outcome logits.
func runGraph(t *testing.T, n *model.Network, x []float32, batch int) (policy, outcome []float32) {
	t.Helper()
	gr, err := newNetGraph(n, batch)
	if err != nil {
		t.Fatal(err)
	}
	a := n.Arch
	if err := G.Let(gr.X, tensor.New(tensor.WithShape(batch, a.Inputs), tensor.WithBacking(x))); err != nil {
		t.Fatal(err)
	}
	if err := G.Let(gr.Mask, tensor.New(tensor.WithShape(batch, a.Actions), tensor.WithBacking(make([]float32, batch*a.Actions)))); err != nil {
		t.Fatal(err)
	}
	return runTape(t, gr)
}

// runTape runs gr, its inputs let, on Gorgonia's own machine and returns
// copies of its policy and outcome logits.
func runTape(t *testing.T, gr *netGraph) (policy, outcome []float32) {
	t.Helper()
	vm := G.NewTapeMachine(gr.G)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	policy = append([]float32(nil), gr.Logits.Value().Data().([]float32)...)
	outcome = append([]float32(nil), gr.Outcome.Value().Data().([]float32)...)
	return policy, outcome
}

func TestForwardMatchesGraph(t *testing.T) {
	for _, c := range []struct {
		arch  model.Arch
		batch int
	}{
		{model.Arch{Inputs: 5, Width: 3, Blocks: 0, Actions: 4, Outcomes: 3}, 1},
		{model.Arch{Inputs: 13, Width: 7, Blocks: 2, Actions: 11, Outcomes: 5}, 5},
		{model.Arch{Inputs: 106, Width: 256, Blocks: 3, Actions: 624, Outcomes: 3}, 16},
		{model.Arch{Inputs: 150, Width: 64, Blocks: 1, Actions: 600, Outcomes: 4}, 64},
	} {
		t.Run(fmt.Sprintf("%v_batch%d", c.arch, c.batch), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.batch), 9))
			n := randomNetwork(t, c.arch, uint64(c.arch.Width))
			x := randomSlice(rng, c.batch*c.arch.Inputs)
			wantP, wantO := runGraph(t, n, x, c.batch)
			f := model.NewForward(n, c.batch)
			gotP := make([]float32, c.batch*c.arch.Actions)
			gotO := make([]float32, c.batch*c.arch.Outcomes)
			if err := f.Run(x, c.batch, gotP, gotO); err != nil {
				t.Fatal(err)
			}
			if d := maxRelDiff(gotP, wantP); d > 1e-4 {
				t.Errorf("policy logits differ from Gorgonia's by %g", d)
			}
			if d := maxRelDiff(gotO, wantO); d > 1e-4 {
				t.Errorf("outcome logits differ from Gorgonia's by %g", d)
			}
		})
	}
}

func TestGraphReadsWeightsInPlace(t *testing.T) {
	a := model.Arch{Inputs: 4, Width: 3, Blocks: 1, Actions: 5, Outcomes: 3}
	n := randomNetwork(t, a, 3)
	gr, err := newNetGraph(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float32{1, 2, 3, 4, -1, 0, 1, 2}))
	G.Let(gr.X, x)
	G.Let(gr.Mask, tensor.New(tensor.WithShape(2, 5), tensor.WithBacking(make([]float32, 10))))
	vm := G.NewTapeMachine(gr.G)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	before := append([]float32(nil), gr.Outcome.Value().Data().([]float32)...)
	vm.Reset()
	last := n.Params[len(n.Params)-1].Data
	last[0] += 1
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	after := gr.Outcome.Value().Data().([]float32)
	if after[0] != before[0]+1 || after[3] != before[3]+1 {
		t.Errorf("outcome logits %v after adding 1 to the first outcome bias, before %v", after, before)
	}
}

// The graph of a network grown by model.Grow computes what the forward
// pass of the network it grew from does: the added units and blocks start
// silent in the trainer's graph too.
func TestGraphOfAGrownNetworkComputesTheSameFunction(t *testing.T) {
	a := model.Arch{Inputs: 13, Width: 7, Blocks: 1, Actions: 11, Outcomes: 3}
	n := randomNetwork(t, a, 4)
	const batch = 9
	x := randomSlice(rand.New(rand.NewPCG(1, 2)), batch*a.Inputs)
	wantP := make([]float32, batch*a.Actions)
	wantO := make([]float32, batch*a.Outcomes)
	if err := model.NewForward(n, batch).Run(x, batch, wantP, wantO); err != nil {
		t.Fatal(err)
	}
	for _, c := range []model.Config{{Width: 12, Blocks: 1}, {Width: 7, Blocks: 3}, {Width: 20, Blocks: 2}} {
		g, err := model.Grow(n, c, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("grow to %+v: %v", c, err)
		}
		gotP, gotO := runGraph(t, g, x, batch)
		if d := maxRelDiff(gotP, wantP); d > 1e-4 {
			t.Errorf("grow to %+v: the graph's policy logits differ by %g", c, d)
		}
		if d := maxRelDiff(gotO, wantO); d > 1e-4 {
			t.Errorf("grow to %+v: the graph's outcome logits differ by %g", c, d)
		}
	}
}

func TestNewNetGraphRefusesAnInvalidNetwork(t *testing.T) {
	n := randomNetwork(t, model.Arch{Inputs: 4, Width: 3, Blocks: 1, Actions: 5, Outcomes: 3}, 1)
	n.Params[3].Data = n.Params[3].Data[:2]
	if _, err := newNetGraph(n, 2); err == nil || !strings.Contains(err.Error(), "block0.fc1.bias") {
		t.Errorf("a short bias: error %v, want one naming it", err)
	}
	if _, err := newNetGraph(randomNetwork(t, n.Arch, 1), 0); err == nil {
		t.Error("batch 0: no error")
	}
}

// randomNetwork is a network of architecture a with random weights and
// biases (biases too, unlike model.New, so that the tests see them).
func randomNetwork(t testing.TB, a model.Arch, seed uint64) *model.Network {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	n, err := model.New("test", a, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range n.Params {
		if !p.IsWeight() {
			for i := range p.Data {
				p.Data[i] = float32(rng.NormFloat64() * 0.1)
			}
		}
	}
	return n
}

func randomSlice(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// maxRelDiff is the largest |a-b| / max(1, |b|).
func maxRelDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		e := math.Abs(float64(a[i]-b[i])) / math.Max(1, math.Abs(float64(b[i])))
		if math.IsNaN(e) {
			return math.Inf(1) // a NaN compares false with any bound
		}
		d = max(d, e)
	}
	return d
}
