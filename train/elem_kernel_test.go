package train

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestElemKernelsMatchTheGoLoops: elemVV and elemVS with the kernels give
// the Go loops' values bit for bit, for every op, on lengths around the
// kernels' eight, with zeros of both signs, infinities and NaNs.
func TestElemKernelsMatchTheGoLoops(t *testing.T) {
	if !haveAVX2() {
		t.Skip("no element-wise kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-38, 3e38}
	value := func() float32 {
		if rng.IntN(4) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64() * 10)
	}
	same := func(x, y []float32) int {
		for j := range x {
			if math.Float32bits(x[j]) != math.Float32bits(y[j]) {
				return j
			}
		}
		return -1
	}
	for _, n := range []int{1, 7, 8, 9, 16, 63, 64, 1000} {
		a, b := make([]float32, n), make([]float32, n)
		for j := range a {
			a[j], b[j] = value(), value()
		}
		b[0] = a[0] // equal operands for '>'
		for _, op := range []byte{'+', '*', '>'} {
			for _, s := range []float32{b[n/2], special[rng.IntN(len(special))]} {
				kv, gv, ks, gs := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
				elemVV(op, kv, a, b, true)
				elemVS(op, ks, a, s, true)
				elemVV(op, gv, a, b, false)
				elemVS(op, gs, a, s, false)
				if j := same(kv, gv); j >= 0 {
					t.Errorf("n %d: %g %c %g: kernel %g, Go %g", n, a[j], op, b[j], kv[j], gv[j])
				}
				if j := same(ks, gs); j >= 0 {
					t.Errorf("n %d: %g %c %g (scalar): kernel %g, Go %g", n, a[j], op, s, ks[j], gs[j])
				}
			}
		}
	}
}
