package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
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

// BenchmarkFitElo measures a rating fit of 20 players over 10,000 games.
func BenchmarkFitElo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []Record
	for k := 0; k < 10000; k++ {
		i, j := rng.IntN(20), rng.IntN(19)
		if j >= i {
			j++
		}
		recs = append(recs, Record{Player0: fmt.Sprint("p", i), Player1: fmt.Sprint("p", j), Winner: int8(rng.IntN(3) - 1), Forfeit: -1})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitElo(recs, DefaultEloSettings()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSPRT_LLR measures one log-likelihood ratio.
func BenchmarkSPRT_LLR(b *testing.B) {
	t := DefaultSPRT()
	p := Penta{30, 120, 400, 140, 35}
	b.ReportAllocs()
	for b.Loop() {
		t.LLR(p)
	}
}
