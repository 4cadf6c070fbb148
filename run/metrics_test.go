package run

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSeries_ReopensWithItsRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m", "loss.csv")
	s, err := openSeries(path, "step", "loss")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.add(1, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := s.add(2, float32(0.25)); err != nil {
		t.Fatal(err)
	}
	again, err := openSeries(path, "step", "loss")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustLoad(t, again).column("loss"); len(got) != 2 || got[1] != 0.25 {
		t.Fatalf("reopened column %v", got)
	}
	if _, err := openSeries(path, "step", "elo"); err == nil {
		t.Fatal("a table with another header opened")
	}
	// A generation's rows replaced: the others stay, in order.
	if err := again.replace("1", []any{1, 0.75}, []any{1, 0.5}); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad(t, s).column("loss"); !slices.Equal(got, []float64{0.25, 0.75, 0.5}) {
		t.Errorf("after replacing step 1: %v (%d rows), want [0.25 0.75 0.5]", got, len(got))
	}
}

// mustLoad reads a series' rows.
func mustLoad(t *testing.T, s *series) *table {
	t.Helper()
	tab, err := s.load()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestPlotLines_WritesAPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "elo.png")
	ln := line{name: "best", x: []float64{0, 1, 2}, y: []float64{0, 50, 80}}
	if err := plotLines(path, "Elo", "hours", "Elo", ln); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 8 || string(data[1:4]) != "PNG" {
		t.Fatalf("not a PNG: %v", err)
	}
	// The same line with error bars draws them.
	ln.low, ln.high = []float64{0, 20, 40}, []float64{0, 80, 120}
	barsPath := filepath.Join(t.TempDir(), "bars.png")
	if err := plotLines(barsPath, "Elo", "hours", "Elo", ln); err != nil {
		t.Fatal(err)
	}
	bars, err := os.ReadFile(barsPath)
	if err != nil || len(bars) < 8 || string(bars[1:4]) != "PNG" {
		t.Fatalf("with error bars, not a PNG: %v", err)
	}
	if bytes.Equal(bars, data) {
		t.Error("the plot with error bars is the plot without them")
	}
}

// The loop's Elo refit reads the newest generations' matches and the
// best's ladder, not every match of the run: a refit over all of them
// grows with the run and took 18 s a generation after 40 minutes.
func TestEloFile_TheNewestGenerationsAndTheBestsLadder(t *testing.T) {
	const g, best = 200, 120
	for _, c := range []struct {
		name string
		want bool
	}{
		{"gate-gen-000200.parquet", true},
		{"ladder-gen-000200-alphabeta2.parquet", true},
		{"ladder-gen-000152-random.parquet", true},  // the oldest of the newest 50
		{"ladder-gen-000151-random.parquet", false}, // one older
		{"gate-gen-000151.parquet", false},
		{"ladder-gen-000120-random.parquet", true}, // the best's
		{"gate-gen-000120.parquet", false},         // the best's own gate: its ladder links it
		{"my-match.parquet", true},                 // not the loop's: kept
		{"gate-gen-12.parquet", true},
	} {
		if got := eloFile(c.name, g, best); got != c.want {
			t.Errorf("eloFile(%q, %d, %d) = %v, want %v", c.name, g, best, got, c.want)
		}
	}
}
