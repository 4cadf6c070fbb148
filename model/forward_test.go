package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

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
}
