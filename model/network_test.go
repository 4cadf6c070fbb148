package model

import (
	"math"
	"path/filepath"
	"testing"
)

func TestFlushTiny_SubnormalWeightsBecomeZero(t *testing.T) {
	n := randomNetwork(t, Arch{Inputs: 8, Width: 8, Blocks: 1, Actions: 5, Outcomes: 3}, 1)
	sub := math.Float32frombits(1) // the smallest subnormal
	n.Params[0].Data[0] = sub
	n.Params[0].Data[1] = -1e-31
	n.Params[0].Data[2] = 1e-20
	if got := n.FlushTiny(); got != 2 {
		t.Fatalf("flushed %d, want 2", got)
	}
	if n.Params[0].Data[0] != 0 || n.Params[0].Data[1] != 0 || n.Params[0].Data[2] != 1e-20 {
		t.Fatalf("after flush: %v", n.Params[0].Data[:3])
	}
}

func TestLoadCheckpoint_FlushesSubnormalWeights(t *testing.T) {
	n := randomNetwork(t, Arch{Inputs: 8, Width: 8, Blocks: 1, Actions: 5, Outcomes: 3}, 1)
	n.Params[0].Data[0] = math.Float32frombits(5)
	path := filepath.Join(t.TempDir(), "c.safetensors")
	if err := (&Checkpoint{Net: n}).Save(path); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Net.Params[0].Data[0] != 0 {
		t.Fatalf("a subnormal weight survived loading: %g", c.Net.Params[0].Data[0])
	}
}

// Trunk and Heads lay the layers over Params as the checkpoint names
// them: the input layer, two per block (the second residual), the policy
// head, the outcome head, each a weight In×Out and its bias.
func TestTrunkAndHeads_IndexEveryTensorInOrder(t *testing.T) {
	a := Arch{Inputs: 9, Width: 6, Blocks: 2, Actions: 7, Outcomes: 3}
	n := randomNetwork(t, a, 1)
	pol, out := a.Heads()
	ls := append(a.Trunk(), pol, out)
	wantNames := []string{"input", "block0.fc1", "block0.fc2", "block1.fc1", "block1.fc2", "policy", "value"}
	if len(ls) != len(wantNames) || 2*len(ls) != len(n.Params) {
		t.Fatalf("%d layers over %d tensors, want %d over %d", len(ls), len(n.Params), len(wantNames), 2*len(wantNames))
	}
	for i, l := range ls {
		w, b := n.Params[l.W], n.Params[l.W+1]
		if l.W != 2*i || w.Name != wantNames[i]+".weight" || b.Name != wantNames[i]+".bias" ||
			!equalShape(w.Shape, []int{l.In, l.Out}) || !equalShape(b.Shape, []int{l.Out}) {
			t.Errorf("layer %d %+v: tensors %s %v and %s %v", i, l, w.Name, w.Shape, b.Name, b.Shape)
		}
		trunk := i < len(ls)-2
		if l.ReLU != trunk || l.Residual != (trunk && i > 0 && i%2 == 0) {
			t.Errorf("layer %d (%s) %+v: ReLU %v, Residual %v", i, wantNames[i], l, l.ReLU, l.Residual)
		}
	}
}

func TestReoriented_CopiesAndLeavesTheNetworkAsItWas(t *testing.T) {
	n := randomNetwork(t, Arch{Inputs: 8, Width: 8, Blocks: 1, Actions: 5, Outcomes: 3}, 1)
	r := n.Reoriented(true)
	if n.Arch.Canonical || !r.Arch.Canonical {
		t.Fatalf("Reoriented(true): the original canonical %v, the copy %v; want false, true", n.Arch.Canonical, r.Arch.Canonical)
	}
	r.Params[0].Data[0]++
	if n.Params[0].Data[0] == r.Params[0].Data[0] {
		t.Error("the copy shares its weights with the original")
	}
}
