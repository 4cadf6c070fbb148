package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/engine"
)

func TestBenchDiagnose_JudgesAPlayersGamesAndRefusesBadInput(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := arena.Match{Variant: v, A: arena.Classic{Depth: 2, HashMB: 1}, B: arena.Random{}, Pairs: 1, OpeningPlies: 2, Seed: 1, Workers: 1, Dir: dir}
	if _, err := m.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd("bench", "diagnose", "--games", dir, "--player", "classic:2", "--depth", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d bench.Diagnosis
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("output is not a JSON diagnosis: %v\n%s", err, out)
	}
	if d.Player != "classic:2" || d.Games != 2 || d.Depth != 3 || d.All.Moves == 0 || len(d.Phases) == 0 {
		t.Errorf("diagnosis %+v: want classic:2's 2 games at depth 3, with moves by phase", d)
	}
	code, out, errOut = runCmd("bench", "diagnose", "--games", dir, "--player", "classic:2", "--depth", "2")
	if code != 0 || !strings.Contains(out, "classic:2 in 2 games of nine") || !strings.Contains(out, "lost/move") {
		t.Errorf("the table: exit %d, %s\n%s", code, errOut, out)
	}
	code, out, errOut = runCmd("bench", "diagnose", "--games", dir, "--player", "classic:2", "--depth", "2", "--judge-weights", "hand")
	if code != 0 || !strings.Contains(out, "(weights hand)") {
		t.Errorf("judged by the hand-written weights: exit %d, %s\n%s", code, errOut, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "diagnose"}, "give --games"},
		{[]string{"bench", "diagnose", "--games", dir}, "classic:2, random"},
		{[]string{"bench", "diagnose", "--games", dir + "/none.parquet"}, "none.parquet"},
		{[]string{"bench", "diagnose", "--games", dir, "--player", "classic:2", "--judge-weights", "nonesuch"}, "nonesuch"},
	} {
		if code, _, errOut := runCmd(c.args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q: want an error saying %q", c.args, code, errOut, c.want)
		}
	}
}
