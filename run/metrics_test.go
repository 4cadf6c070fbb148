package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/runmetrics"
)

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
	l2, err := OpenTrainer(ctx, filepath.Join(dir, "run"), cfg, TrainerOptions{Options: Options{Progress: cancelAfter{"generation 1: gen-000002", cancel}}})
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

// TestLossLines_PolicyAndOutcomeApart: loss.png draws training's policy
// and outcome losses apart from its total, and validation's total.
func TestLossLines_PolicyAndOutcomeApart(t *testing.T) {
	lines := lossLines([]runmetrics.LossRow{
		{Generation: 0, Step: 80, Split: "train", LR: 0.001, Total: 3.4, Policy: 2.3, Outcome: 0.9, L2: 0.1},
		{Generation: 0, Step: 160, Split: "train", LR: 0.001, Total: 3.1, Policy: 2.2, Outcome: 0.7, L2: 0.1},
		{Generation: 0, Step: 160, Split: "val", Total: 3.2, Policy: 2.25, Outcome: 0.8, L2: 0.1},
	})
	var names []string
	for _, l := range lines {
		names = append(names, fmt.Sprintf("%s:%v", l.Name, l.Y))
	}
	want := []string{"train total:[3.4 3.1]", "train policy:[2.3 2.2]", "train outcome (value):[0.9 0.7]", "validation total:[3.2]"}
	if !slices.Equal(names, want) {
		t.Errorf("lines %v, want %v", names, want)
	}
}
