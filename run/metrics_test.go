package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// cancelAfter is a Progress that cancels the run once a line it shows
// starts with prefix.
type cancelAfter struct {
	prefix string
	cancel context.CancelFunc
}

func (c cancelAfter) Update(string, ...any) {}
func (c cancelAfter) Done(format string, args ...any) {
	if strings.HasPrefix(fmt.Sprintf(format, args...), c.prefix) {
		c.cancel()
	}
}

// The plots are drawn at the first generation, then at most once a
// minute, and at the end of an invocation however it ends: drawing every
// point of a long run each generation grew to a twentieth of a generation.
func TestPlots_DrawnNowAndThenAndAtTheEnd(t *testing.T) {
	text := "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 3, games: 16, steps: 4}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\ngate: {max_games: 0}\n"
	l := runConfig(t, text)
	if l.redraws != 2 || l.stale {
		t.Errorf("three generations: plots drawn %d times (stale %v), want 2: the first generation and the budget's last", l.redraws, l.stale)
	}

	// A run stopped in its third generation (no budget): the second's
	// metrics are drawn as it stops.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Replace(text, "generations: 3", "generations: 0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l2, err := Open(ctx, filepath.Join(dir, "run"), cfg, Options{Progress: cancelAfter{"generation 1: gen-000002", cancel}})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	why, err := l2.Run(ctx)
	if err != nil || !strings.Contains(why, "interrupted") {
		t.Fatalf("run: %q, %v: want it interrupted", why, err)
	}
	if l2.redraws != 2 || l2.stale {
		t.Errorf("stopped after two generations: plots drawn %d times (stale %v), want 2: the first generation and the stop", l2.redraws, l2.stale)
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "metrics", "loss.png")); err != nil {
		t.Error(err)
	}
}

// TestInMinutes_RunHoursUnderTwoReadAsMinutes: an hours axis under two
// hours becomes minutes (no "0.00035" ticks); a longer one stays hours.
func TestInMinutes_RunHoursUnderTwoReadAsMinutes(t *testing.T) {
	short := []line{{name: "best", x: []float64{0.0001, 0.5, 1.5}, y: []float64{1, 2, 3}}}
	got, label := inMinutes("run hours", short)
	if label != "run minutes" || got[0].x[1] != 30 || short[0].x[1] != 0.5 {
		t.Errorf("under two hours: label %q, x %v (input %v): want run minutes, 30, the input untouched", label, got[0].x, short[0].x)
	}
	long := []line{{name: "best", x: []float64{0.5, 8}, y: []float64{1, 2}}}
	if _, label := inMinutes("hours", long); label != "hours" {
		t.Errorf("eight hours: label %q, want hours", label)
	}
	if _, label := inMinutes("optimizer steps", short); label != "optimizer steps" {
		t.Errorf("steps: label %q, want it kept", label)
	}
}

// TestLossLines_PolicyAndOutcomeApart: loss.png draws training's policy
// and outcome losses apart from its total, and validation's total.
func TestLossLines_PolicyAndOutcomeApart(t *testing.T) {
	tb := &table{header: []string{"generation", "step", "split", "lr", "total", "policy", "outcome", "l2"}, rows: [][]string{
		{"0", "80", "train", "0.001", "3.4", "2.3", "0.9", "0.1"},
		{"0", "160", "train", "0.001", "3.1", "2.2", "0.7", "0.1"},
		{"0", "160", "val", "", "3.2", "2.25", "0.8", "0.1"},
	}}
	lines := lossLines(tb)
	var names []string
	for _, l := range lines {
		names = append(names, fmt.Sprintf("%s:%v", l.name, l.y))
	}
	want := []string{"train total:[3.4 3.1]", "train policy:[2.3 2.2]", "train outcome (value):[0.9 0.7]", "validation total:[3.2]"}
	if !slices.Equal(names, want) {
		t.Errorf("lines %v, want %v", names, want)
	}
}

// TestDoublingTicks_EveryDoublingInRange: the log axis of run hours is
// labelled at each doubling within its range.
func TestDoublingTicks_EveryDoublingInRange(t *testing.T) {
	var got []string
	for _, tk := range (doublingTicks{}).Ticks(0.2, 1.9) {
		got = append(got, tk.Label)
	}
	if want := []string{"0.25", "0.5", "1"}; !slices.Equal(got, want) {
		t.Errorf("ticks %v, want %v", got, want)
	}
}
