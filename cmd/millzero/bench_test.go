package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBench_CPUProfileOfTheMeasurement(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "mcts.pprof")
	code, out, errOut := runCmd("bench", "mcts", "--variant", "three", "--sims", "50", "--cpuprofile", prof)
	if code != 0 || !strings.Contains(out, "simulations") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("profile %s: %v", prof, err)
	}
	if code, _, errOut := runCmd("bench", "mcts", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "p")); code == 0 || !strings.Contains(errOut, "--cpuprofile") {
		t.Errorf("a profile in a missing directory: exit %d, %q: want an error naming --cpuprofile", code, errOut)
	}
}

func TestBench_SelfplayWithSearchSettings(t *testing.T) {
	code, out, errOut := runCmd("bench", "selfplay", "--variant", "three", "--seconds", "0.3", "--search", "minimax_weight=0.25")
	if code != 0 || !strings.Contains(out, "laid over the defaults: minimax_weight=0.25") || !strings.Contains(out, "moves/s") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	// The default's minimax backup is for two players: a variant of three
	// benches without it.
	if code, out, errOut := runCmd("bench", "selfplay", "--variant", "moulin-rouge-3", "--seconds", "0.3"); code != 0 || !strings.Contains(out, "moves/s") {
		t.Errorf("three players: exit %d: %s\n%s", code, errOut, out)
	}
	if code, _, errOut := runCmd("bench", "selfplay", "--seconds", "0.3", "--search", "minimax_weight=2"); code == 0 || !strings.Contains(errOut, "--search") || !strings.Contains(errOut, "minimax_weight 2") {
		t.Errorf("a weight out of range: exit %d, %q: want an error naming --search and the setting", code, errOut)
	}
}
