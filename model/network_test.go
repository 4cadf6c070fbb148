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
