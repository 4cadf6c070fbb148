package train

import (
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/model"
)

// BenchmarkAdamUpdate is one Adam update of as many weights as the default
// network has, in ns per weight: with the kernel (where the CPU has it)
// and with the Go loop, the reference it matches.
func BenchmarkAdamUpdate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 577792
	p := []model.Param{{Name: "w", Shape: []int{n, 1}, Data: make([]float32, n)}}
	g := [][]float32{make([]float32, n)}
	for i := range p[0].Data {
		p[0].Data[i] = float32(rng.NormFloat64() * 0.05)
		g[0][i] = float32(rng.NormFloat64() * 0.01)
	}
	for _, kernel := range []bool{true, false} {
		if kernel && !haveAVX2() {
			continue
		}
		b.Run(map[bool]string{true: "kernel", false: "go"}[kernel], func(b *testing.B) {
			o := newOptimizer(plainConfig(), p, kernel)
			for b.Loop() {
				step(o, p, g, 1e-3)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/param")
		})
	}
}
