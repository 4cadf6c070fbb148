package rating

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkFitElo measures a rating fit of 20 players over 10,000 games.
func BenchmarkFitElo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	places := [3][]int{{1, 1}, {1, 2}, {2, 1}} // a draw, seat 0 won, seat 1 won
	var gs []Game
	for k := 0; k < 10000; k++ {
		i, j := rng.IntN(20), rng.IntN(19)
		if j >= i {
			j++
		}
		w := rng.IntN(3) - 1
		gs = append(gs, Game{Players: []string{fmt.Sprint("p", i), fmt.Sprint("p", j)}, Places: places[w+1], Winner: w})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitElo(gs, DefaultEloSettings()); err != nil {
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
