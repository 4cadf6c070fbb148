package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/model"
)

// TestAdamKernelMatchesTheGoLoop: adam.update (the kernel where the CPU
// has it, the Go loop for the tail) gives the Go loop's weights and
// moments bit for bit, over many steps of gradients of every scale, with
// values near Tiny (flushed or kept), zeros, and lengths that are not a
// multiple of the kernel's eight.
func TestAdamKernelMatchesTheGoLoop(t *testing.T) {
	if !haveAVX2() {
		t.Skip("no Adam kernel on this CPU")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 1003
	value := func() float32 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return float32(rng.NormFloat64() * 2 * model.Tiny) // about Tiny: some flushed
		case 2:
			return float32(rng.NormFloat64() * 1e-20)
		default:
			return float32(rng.NormFloat64() * math.Pow(10, -float64(rng.IntN(8))))
		}
	}
	params := func() []model.Param {
		return []model.Param{{Name: "w", Shape: []int{n, 1}, Data: make([]float32, n)}}
	}
	pk, pg := params(), params()
	for j := range pk[0].Data {
		pk[0].Data[j] = value()
		pg[0].Data[j] = pk[0].Data[j]
	}
	ok := newOptimizer(plainConfig(), pk, true).(*adam)
	og := newOptimizer(plainConfig(), pg, false).(*adam)
	g := make([]float32, n)
	for s := 0; s < 50; s++ {
		for j := range g {
			g[j] = value()
		}
		lr := 1e-3 * float64(1+s%3)
		ok.begin(lr)
		og.begin(lr)
		// Two shares, as two workers take them, the first not a multiple of 8.
		ok.update(0, pk[0].Data, g, 0, 501)
		ok.update(0, pk[0].Data, g, 501, n)
		og.updateGo(pg[0].Data, g, og.m[0], og.v[0])
		for j := range n {
			for name, pair := range map[string][2]float32{
				"w": {pk[0].Data[j], pg[0].Data[j]}, "m": {ok.m[0][j], og.m[0][j]}, "v": {ok.v[0][j], og.v[0][j]},
			} {
				if math.Float32bits(pair[0]) != math.Float32bits(pair[1]) {
					t.Fatalf("step %d, %s[%d]: kernel %g (%#x), Go %g (%#x)", s, name, j,
						pair[0], math.Float32bits(pair[0]), pair[1], math.Float32bits(pair[1]))
				}
			}
		}
	}
}
