package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// runGraph evaluates n's Gorgonia graph on x (batch rows) and returns the
// policy and outcome logits.
func runGraph(t *testing.T, n *Network, x []float32, batch int) (policy, outcome []float32) {
	t.Helper()
	gr, err := NewGraph(n, batch)
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
		arch  Arch
		batch int
	}{
		{Arch{Inputs: 5, Width: 3, Blocks: 0, Actions: 4, Outcomes: 3}, 1},
		{Arch{Inputs: 13, Width: 7, Blocks: 2, Actions: 11, Outcomes: 5}, 5},
		{Arch{Inputs: 106, Width: 256, Blocks: 3, Actions: 624, Outcomes: 3}, 16},
		{Arch{Inputs: 150, Width: 64, Blocks: 1, Actions: 600, Outcomes: 4}, 64},
	} {
		t.Run(fmt.Sprintf("%v_batch%d", c.arch, c.batch), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.batch), 9))
			n := randomNetwork(t, c.arch, uint64(c.arch.Width))
			x := randomSlice(rng, c.batch*c.arch.Inputs)
			wantP, wantO := runGraph(t, n, x, c.batch)
			f := NewForward(n, c.batch)
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
	a := Arch{Inputs: 4, Width: 3, Blocks: 1, Actions: 5, Outcomes: 3}
	n := randomNetwork(t, a, 3)
	gr, err := NewGraph(n, 2)
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

func TestForwardAllocatesNothing(t *testing.T) {
	a := Arch{Inputs: 106, Width: 64, Blocks: 2, Actions: 624, Outcomes: 3}
	n := randomNetwork(t, a, 1)
	f := NewForward(n, 16)
	x := make([]float32, 16*a.Inputs)
	p := make([]float32, 16*a.Actions)
	o := make([]float32, 16*a.Outcomes)
	if allocs := testing.AllocsPerRun(20, func() { f.Run(x, 16, p, o) }); allocs != 0 {
		t.Errorf("Run allocates %v times per call", allocs)
	}
}

func TestForwardTrunkAndLogitAreRunsPolicy(t *testing.T) {
	a := Arch{Inputs: 106, Width: 64, Blocks: 2, Actions: 624, Outcomes: 3}
	n := randomNetwork(t, a, 4)
	const batch = 5
	x := make([]float32, batch*a.Inputs)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range x {
		x[i] = float32(rng.IntN(2))
	}
	f := NewForward(n, batch)
	p, o := make([]float32, batch*a.Actions), make([]float32, batch*a.Outcomes)
	if err := f.Run(x, batch, p, o); err != nil {
		t.Fatal(err)
	}
	g := NewForward(n, batch)
	o2 := make([]float32, batch*a.Outcomes)
	if err := g.Trunk(x, batch, o2); err != nil {
		t.Fatal(err)
	}
	for i := range o {
		if math.Abs(float64(o2[i]-o[i])) > 1e-5*(1+math.Abs(float64(o[i]))) {
			t.Fatalf("outcome logit %d: %v, Run gives %v", i, o2[i], o[i])
		}
	}
	for r := 0; r < batch; r++ {
		for k := 0; k < a.Actions; k++ {
			want := p[r*a.Actions+k]
			if got := g.Logit(r, k); math.Abs(float64(got-want)) > 1e-5*(1+math.Abs(float64(want))) {
				t.Fatalf("position %d action %d: logit %v, Run gives %v", r, k, got, want)
			}
		}
	}
	if allocs := testing.AllocsPerRun(20, func() { g.Trunk(x, batch, o2); g.Logit(batch-1, a.Actions-1) }); allocs != 0 {
		t.Errorf("Trunk and Logit allocate %v times per call", allocs)
	}
	if err := g.Trunk(x, batch+1, o2); err == nil {
		t.Error("Trunk of a batch over the capacity: no error")
	}
}

func TestForwardRejectsBadBatch(t *testing.T) {
	a := Arch{Inputs: 4, Width: 3, Blocks: 1, Actions: 5, Outcomes: 3}
	f := NewForward(randomNetwork(t, a, 1), 2)
	for _, c := range []struct {
		batch      int
		nx, np, no int
	}{
		{0, 8, 10, 6}, {3, 12, 15, 9}, {2, 7, 10, 6}, {2, 8, 9, 6}, {2, 8, 10, 5},
	} {
		if err := f.Run(make([]float32, c.nx), c.batch, make([]float32, c.np), make([]float32, c.no)); err == nil {
			t.Errorf("batch %d with buffers %d/%d/%d: no error", c.batch, c.nx, c.np, c.no)
		}
	}
}

func TestNetworkValidateNamesTheBadTensor(t *testing.T) {
	a := Arch{Inputs: 4, Width: 3, Blocks: 1, Actions: 5, Outcomes: 3}
	n := randomNetwork(t, a, 1)
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	n.Params[3].Data = n.Params[3].Data[:2]
	if err := n.Validate(); err == nil || !strings.Contains(err.Error(), "block0.fc1.bias") {
		t.Errorf("short bias: %v", err)
	}
	if _, err := NewGraph(n, 2); err == nil {
		t.Error("NewGraph of an invalid network: no error")
	}
}
