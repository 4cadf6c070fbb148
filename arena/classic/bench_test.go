package classic

import (
	"context"
	"testing"

	"github.com/millzero/millzero/engine"
)

// benchSearch searches g to depth once per iteration from a cleared table
// and reports the nodes visited per second.
func benchSearch(b *testing.B, g *engine.Game, depth int, w *Weights) {
	s, err := New(g.V, Options{HashMB: 2, Weights: w})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Search(ctx, g, Limits{Depth: depth}, nil); err != nil { // warm-up
		b.Fatal(err)
	}
	var nodes int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.NewGame()
		res, err := s.Search(ctx, g, Limits{Depth: depth}, nil)
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// BenchmarkClassic_NineStart searches the Nine start to depth 14.
func BenchmarkClassic_NineStart(b *testing.B) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, engine.NewGame(v), 14, nil)
}

// BenchmarkClassic_NineStartHand searches the Nine start to depth 14 with
// the hand-written weights.
func BenchmarkClassic_NineStartHand(b *testing.B) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, engine.NewGame(v), 14, handWeights())
}

// BenchmarkClassic_NineMoving searches a moving-phase position of Nine to
// depth 12.
func BenchmarkClassic_NineMoving(b *testing.B) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, movingGame(b, v), 12, nil)
}

// BenchmarkClassic_NineMovingHand searches the moving-phase position to
// depth 12 with the hand-written weights.
func BenchmarkClassic_NineMovingHand(b *testing.B) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, movingGame(b, v), 12, handWeights())
}

// movingGame is a game of v played into the moving phase by a fixed
// opening: every piece placed, none taken.
func movingGame(tb testing.TB, v *engine.Variant) *engine.Game {
	g := engine.NewGame(v)
	for _, m := range movingOpening {
		if err := g.PlayString(m); err != nil {
			tb.Fatalf("opening %s: %v", m, err)
		}
	}
	return g
}

// movingOpening places all eighteen pieces of Nine without a mill.
var movingOpening = []string{"a7", "d7", "g7", "g4", "b4", "b2", "f4", "f6", "c3", "c5", "e5", "e3", "d2", "d6", "b6", "a1", "g1", "a4"}

// benchEvaluate evaluates positions of random games of nine with w, and
// reports the time an evaluation takes.
func benchEvaluate(b *testing.B, w *Weights) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(v, Options{HashMB: 1, Weights: w})
	if err != nil {
		b.Fatal(err)
	}
	var ps []engine.Position
	for _, p := range randomPositions(v, 4096, 3) {
		if !p.Removing() {
			ps = append(ps, p)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sum int32
	for i := 0; i < b.N; i++ {
		sum += s.ev.evaluate(&ps[i%len(ps)], 0)
	}
	if sum == 1 {
		b.Log(sum)
	}
}

// BenchmarkEvaluate_Hand is the hand-written evaluation.
func BenchmarkEvaluate_Hand(b *testing.B) { benchEvaluate(b, handWeights()) }

// BenchmarkEvaluate_Default is the variant's default weights.
func BenchmarkEvaluate_Default(b *testing.B) { benchEvaluate(b, nil) }

// BenchmarkEvaluate_Every weighs every feature: the evaluation's cost
// when every feature counts.
func BenchmarkEvaluate_Every(b *testing.B) {
	w := handWeights()
	for ph := range NumPhases {
		for f := range NumFeatures {
			w.W[ph][f] = int32(f) + 1
		}
	}
	benchEvaluate(b, w)
}
