package train

import (
	"math"
	"testing"

	"github.com/millzero/millzero/model"
)

// Weights and moments of units that stopped learning decay geometrically;
// the optimizer must not let them into float32's subnormal range, where
// arithmetic is many times slower.
func TestOptimizer_NeverLeavesSubnormals(t *testing.T) {
	for _, name := range []string{"adam", "sgd"} {
		c := DefaultConfig()
		c.Optimizer = name
		params := []model.Param{{Name: "w", Shape: []int{2, 2}, Data: []float32{1e-29, -1e-29, 1, math.Float32frombits(3)}}}
		opt := newOptimizer(c, params)
		zero := [][]float32{make([]float32, 4)}
		grad := [][]float32{{1e-31, -1e-31, 0, 0}}
		opt.step(params, grad, 1e-3)
		for i := 0; i < 2000; i++ {
			opt.step(params, zero, 1e-3)
		}
		check := func(what string, xs []float32) {
			for _, x := range xs {
				if x != 0 && math.Abs(float64(x)) < model.Tiny {
					t.Fatalf("%s: %s holds %g", name, what, x)
				}
			}
		}
		check("weights", params[0].Data)
		extra, _ := opt.state()
		for _, e := range extra {
			check(e.Name, e.Data)
		}
	}
}
