package classic

import (
	"context"
	"testing"

	"github.com/millzero/millzero/engine"
)

// benchSearch searches g to depth once per iteration from a cleared table
// and reports the nodes visited per second.
func benchSearch(b *testing.B, g *engine.Game, depth int) {
	s, err := New(g.V, Options{HashMB: 2})
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
	benchSearch(b, engine.NewGame(v), 14)
}

// BenchmarkClassic_NineMoving searches a moving-phase position of Nine to
// depth 12.
func BenchmarkClassic_NineMoving(b *testing.B) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, movingGame(b, v), 12)
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
