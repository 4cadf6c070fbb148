package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/bench"
)

func TestBenchProgress_RatesTheChosenModelsAndRefusesBadChoices(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errOut := runCmd("train", "--config", "three-test", "--run", dir, "--generations", "3"); code != 0 {
		t.Fatalf("train: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCmd("bench", "progress", "--run", dir, "--at-generations", "1,2,3", "--sims", "4", "--pairs", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []bench.ProgressRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("output is not JSON rows: %v\n%s", err, out)
	}
	if len(rows) != 3 || rows[0].Generation != 1 || rows[2].Generation != 3 || rows[1].Previous == nil {
		t.Fatalf("rows %+v: want generations 1-3, each after the first with its match against the one before", rows)
	}
	// The games, the table and the plot are kept in the run.
	code, out, errOut = runCmd("bench", "progress", "--run", dir, "--at-generations", "1,2,3", "--sims", "4", "--pairs", "1")
	if code != 0 || !strings.Contains(out, "gen-000003") || !strings.Contains(out, "(matches played now 0, found there 3)") {
		t.Errorf("again: exit %d, %q, %q: want the table, every match found in the run's bench/progress", code, out, errOut)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--at-generations", "3,1"}, "oldest first"},
		{[]string{"--at-generations", "1,9"}, `"9" is not a generation`},
		{[]string{"--models", "1"}, "two models"},
		{[]string{"--pairs", "0"}, "--pairs 0"},
		{[]string{"--run", filepath.Join(t.TempDir(), "none")}, "no generation finished"},
		{[]string{"--at-generations", "1,2", "--book", filepath.Join(t.TempDir(), "none.txt")}, "--book: opening book: open "},
	} {
		args := append([]string{"bench", "progress", "--run", dir}, c.args...)
		if code, _, errOut := runCmd(args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q: want an error with %q", c.args, code, errOut, c.want)
		}
	}
}
