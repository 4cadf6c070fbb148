package mcts

import (
	"math"
	"testing"

	"github.com/millzero/millzero/engine"
)

// TestExpand_PriorsRenormalisedOverTheLegalActions: whatever the evaluator
// writes, the children's priors are a distribution.
func TestExpand_PriorsRenormalisedOverTheLegalActions(t *testing.T) {
	v := load(t, "nine")
	legal := []engine.Action{engine.PlaceAt(0), engine.PlaceAt(1), engine.PlaceAt(2), engine.PlaceAt(3)}
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := []struct {
		name   string
		priors []float32
		want   []float32
	}{
		{"scaled", []float32{2, 6, 0, 2}, []float32{0.2, 0.6, 0, 0.2}},
		{"already a distribution", []float32{0.25, 0.25, 0.5, 0}, []float32{0.25, 0.25, 0.5, 0}},
		{"all zero is uniform", []float32{0, 0, 0, 0}, []float32{0.25, 0.25, 0.25, 0.25}},
		{"negative is uniform", []float32{1, -1, 1, 1}, []float32{0.25, 0.25, 0.25, 0.25}},
		{"NaN is uniform", []float32{1, nan, 1, 1}, []float32{0.25, 0.25, 0.25, 0.25}},
		{"infinite is uniform", []float32{1, inf, 1, 1}, []float32{0.25, 0.25, 0.25, 0.25}},
	}
	for _, c := range cases {
		s := newSearch(t, v, testSettings(1), 1)
		s.expand(0, legal, c.priors)
		root := &s.nodes[0]
		if root.state != expanded || root.children != 4 {
			t.Fatalf("%s: root state %d with %d children", c.name, root.state, root.children)
		}
		for k := range legal {
			ch := &s.nodes[root.first+int32(k)]
			if ch.action != legal[k] || math.Abs(float64(ch.prior-c.want[k])) > 1e-6 {
				t.Errorf("%s: child %d is %s with prior %v, want %s with %v", c.name, k,
					v.FormatAction(ch.action), ch.prior, v.FormatAction(legal[k]), c.want[k])
			}
		}
	}
}
