package arena

import (
	"context"
	"testing"
)

// BenchmarkMatch_AlphaBeta2VsRandom measures whole paired games of Nine
// Men's Morris on every core, in games per second.
func BenchmarkMatch_AlphaBeta2VsRandom(b *testing.B) {
	v := loadVariant(b, "nine")
	games := 0
	for i := 0; b.Loop(); i++ {
		m := Match{Variant: v, A: AlphaBeta{Depth: 2}, B: Random{}, Pairs: 8, OpeningPlies: 4, Seed: uint64(i)}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		games += len(recs)
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}
