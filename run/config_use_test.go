package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/millzero/millzero/model"
)

func TestLoop_NoGateMakesEveryCandidateTheBest(t *testing.T) {
	text := "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 2, games: 16, steps: 4}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
	l := runConfig(t, text)
	best, err := l.dir.Best()
	if err != nil || best != 2 {
		t.Errorf("best after two ungated generations: %d (%v), want 2", best, err)
	}
	if fs, _ := filepath.Glob(filepath.Join(l.dir.Arena(), "gate-*")); len(fs) != 0 {
		t.Errorf("gate games played without a gate: %v", fs)
	}
}

func TestLoop_SelfPlayOrientationsReachTheEvaluator(t *testing.T) {
	text := "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 2, games: 16, steps: 4}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, orientations: 3, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
	l := runConfig(t, text)
	job, err := l.selfplayJob(3, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := job.NewEvaluator(0)
	if err != nil {
		t.Fatal(err)
	}
	if n := ev.(*model.Evaluator).Orientations(); n != 3 {
		t.Errorf("self-play's evaluator averages %d turns of the board, want selfplay.orientations' 3", n)
	}
}

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
