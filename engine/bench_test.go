package engine

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPerft measures full-make perft; nodes/s is the figure to compare
// with other engines (millzero bench engine runs depth 6).
func BenchmarkPerft(b *testing.B) {
	for _, c := range []struct {
		name, variant string
		depth         int
	}{{"nine-start-d5", "nine", 5}, {"moulin-rouge-d4", "moulin-rouge", 4}, {"three-d6", "three", 6}} {
		b.Run(c.name, func(b *testing.B) {
			v := mustLoad(b, c.variant)
			p := v.Start()
			var nodes uint64
			b.ReportAllocs()
			for b.Loop() {
				nodes += v.Perft(&p, c.depth, nil)
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// BenchmarkRandomPlayout plays random games to the end: the cost of a
// rollout for the search's generation-0 evaluator.
func BenchmarkRandomPlayout(b *testing.B) {
	for _, name := range []string{"nine", "twelve", "three", "moulin-rouge", "moulin-rouge-4"} {
		b.Run(name, func(b *testing.B) {
			v := mustLoad(b, name)
			rng := rand.New(rand.NewPCG(1, 2))
			buf := make([]Action, 0, MaxActions)
			var plies int
			b.ReportAllocs()
			for b.Loop() {
				p := v.Start()
				for {
					acts := v.Legal(&p, buf)
					if len(acts) == 0 {
						break
					}
					p = v.Apply(&p, acts[rng.IntN(len(acts))])
					plies++
				}
			}
			b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
		})
	}
}
