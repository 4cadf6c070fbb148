package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// loop.run_hours counts the hours of every invocation: a run that has had
// them stops before any work, one that reaches them stops in the
// generation it is in, and a larger budget goes on from there.
func TestLoop_RunHoursCountEveryInvocation(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", "variant: three\nmodel: {width: 16, blocks: 1}\n"+
		"loop: {generations: 2, games: 16, steps: 4}\n"+
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n"+
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n")
	loc := dir + "/run"
	open := func(t *testing.T) *Trainer {
		t.Helper()
		l, err := OpenTrainer(context.Background(), loc, cfg, TrainerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	finished := func(t *testing.T, l *Trainer) (int, float64) {
		t.Helper()
		gens := mustLoad(t, l.gens)
		h := gens.column("hours")
		return len(h), h[len(h)-1]
	}

	first := open(t)
	if _, err := first.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	first.Close()
	_, had := finished(t, first)

	spent := open(t)
	spent.Config().Loop.Generations = 0
	spent.Config().Loop.RunHours = had
	why, err := spent.Run(context.Background())
	if n, _ := finished(t, spent); err != nil || !strings.Contains(why, "budget of") || !strings.Contains(why, "hours in all is spent") || n != 2 {
		t.Fatalf("a run that has had its run_hours: %q, %v, %d generations; want it to stop before a third", why, err, n)
	}
	spent.Close()

	reach := open(t)
	reach.Config().Loop.Generations = 0
	budget := had + (300 * time.Millisecond).Hours()
	reach.Config().Loop.RunHours = budget
	start := time.Now()
	why, err = reach.Run(context.Background())
	n, _ := finished(t, reach)
	if err != nil || !strings.Contains(why, fmt.Sprintf("hours in all is spent in generation %d ", n)) {
		t.Fatalf("run_hours reached: %q, %v, %d generations finished; want a stop in the generation after them", why, err, n)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("run_hours 0.3 s ahead: the run stopped after %s", el)
	}
	reach.Close()

	more := open(t)
	more.Config().Loop.Generations = n + 1
	why, err = more.Run(context.Background())
	if m, _ := finished(t, more); err != nil || m != n+1 || !strings.Contains(why, "reached the budget") {
		t.Fatalf("a larger budget: %q, %v, %d generations; want one more than %d", why, err, m, n)
	}
}

func TestConfig_RunHoursMustNotBeNegative(t *testing.T) {
	if _, err := loadConfigText(t, "loop: {run_hours: -1}\n"); err == nil || !strings.Contains(err.Error(), "run_hours -1") {
		t.Errorf("run_hours -1: %v, want an error naming it", err)
	}
}
