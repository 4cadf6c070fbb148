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
		c := plainConfig()
		c.Optimizer = name
		params := []model.Param{{Name: "w", Shape: []int{2, 2}, Data: []float32{1e-29, -1e-29, 1, math.Float32frombits(3)}}}
		opt := newOptimizer(c, params, haveAVX2())
		zero := [][]float32{make([]float32, 4)}
		grad := [][]float32{{1e-31, -1e-31, 0, 0}}
		step(opt, params, grad, 1e-3)
		for i := 0; i < 2000; i++ {
			step(opt, params, zero, 1e-3)
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

// flush tests bits; it must agree with the definition -Tiny < x < Tiny.
func TestFlushZeroesExactlyTheValuesSmallerThanTiny(t *testing.T) {
	if got := math.Float32bits(model.Tiny); got != tinyBits {
		t.Fatalf("tinyBits %#x, float32(Tiny) is %#x", tinyBits, got)
	}
	tiny := float32(model.Tiny)
	for _, x := range []float32{0, tiny, -tiny, math.Nextafter32(tiny, 0), -math.Nextafter32(tiny, 0),
		math.Nextafter32(tiny, 1), math.Float32frombits(1), -math.Float32frombits(1), 1, -1, 1e-20, -1e-20,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())} {
		want := x
		if x > -model.Tiny && x < model.Tiny {
			want = 0
		}
		if got := flush(x); math.Float32bits(got) != math.Float32bits(want) && !(want == 0 && got == 0) {
			t.Errorf("flush(%g) = %g, want %g", x, got, want)
		}
	}
}
