package tablebase

import (
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/engine"
)

// BenchmarkBuild solves every material of nine up to 7 pieces (3 v 3, 4 v 3
// and 3 v 4) in memory on every core.
func BenchmarkBuild(b *testing.B) {
	v := load(b, "nine")
	for b.Loop() {
		if _, err := Build(v, BuildOptions{Pieces: 7}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProbe probes random positions of nine's 4 v 3 and 3 v 4 tables
// (one op is one probe, the canonical index and one entry read).
func BenchmarkProbe(b *testing.B) {
	v := load(b, "nine")
	s := build(b, v, 7)
	rng := rand.New(rand.NewPCG(1, 2))
	ps := make([]engine.Position, 4096)
	for i := range ps {
		a, c := 4, 3
		if i%2 == 1 {
			a, c = 3, 4
		}
		mover := randomSet(rng, 24, a, 0)
		ps[i] = position(v, i%2, mover, randomSet(rng, 24, c, mover))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Probe(&ps[i&4095]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
}
