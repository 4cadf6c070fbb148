package engine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkPerft measures full-make perft; nodes/s is the figure to compare
// with other engines (millzero bench engine runs depth 6 of the start and
// depth 9 of the moving-phase position). nine-moving is the position after
// the 18 placements of TestPerft_NineAfterPlacing, with its history;
// nine-flying is the FEN of TestPerft_NineFEN, where white flies.
func BenchmarkPerft(b *testing.B) {
	for _, c := range []struct {
		name, variant, moves, fen string
		depth                     int
	}{
		{name: "nine-start-d5", variant: "nine", depth: 5},
		{name: "nine-moving-d7", variant: "nine", moves: "d6 f4 d2 b4 g4 d7 a4 d1 e4 d5 c4 d3 f6 b6 b2 f2 g7 g1", depth: 7},
		{name: "nine-flying-d4", variant: "nine", fen: "**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20", depth: 4},
		{name: "moulin-rouge-d4", variant: "moulin-rouge", depth: 4},
		{name: "three-d6", variant: "three", depth: 6},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := mustLoad(b, c.variant)
			g := NewGame(v)
			for _, m := range strings.Fields(c.moves) {
				if err := g.PlayString(m); err != nil {
					b.Fatal(err)
				}
			}
			if c.fen != "" {
				p, err := v.ParseFEN(c.fen)
				if err != nil {
					b.Fatal(err)
				}
				g = NewGameFrom(v, p)
			}
			var nodes uint64
			b.ReportAllocs()
			for b.Loop() {
				nodes += v.Perft(&g.Pos, c.depth, g.Hashes)
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

// The counts are those of engine/perft_test.go: BenchPerft measures the
// positions the perft tables pin, the moving phase with its history.
func TestBenchPerft_MeasuresTheStartAndTheMovingPhasePosition(t *testing.T) {
	var out strings.Builder
	if err := BenchPerft(&out, 2, 3, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"perft(3) = 12144 in",
		"full-make perft, nine start, depth 3, one core: best",
		"perft(5) = 7224 in",
		"full-make perft, nine moving phase (18 placements played), depth 5, one core: best",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "run "); n != 4 {
		t.Errorf("%d runs, want 2 per position:\n%s", n, out.String())
	}
}
