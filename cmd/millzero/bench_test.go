package main

import (
	"strings"
	"testing"
)

// The counts are those of engine/perft_test.go: bench engine measures the
// positions the perft tables pin, the moving phase with its history.
func TestBenchEngine_MeasuresTheStartAndTheMovingPhasePosition(t *testing.T) {
	var out strings.Builder
	if err := benchEngineAt(&out, 2, 3, 5); err != nil {
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
