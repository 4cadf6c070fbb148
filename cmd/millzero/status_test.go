package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/millzero/millzero/run"
)

func TestStatus_TableAndJSONSayWhereTheRunStands(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := runCmd("train", "--config", "three-test", "--run", dir, "--generations", "1"); code != 0 {
		t.Fatalf("train: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runCmd("status", "--run", dir)
	if code != 0 || !strings.Contains(out, "1 generations finished in 0.") || !strings.Contains(out, "trainer: none") {
		t.Fatalf("status: exit %d %s\n%s", code, errOut, out)
	}
	code, out, errOut = runCmd("status", "--run", dir, "--json")
	var st run.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("status --json: exit %d %s\n%s", code, errOut, out)
	}
	if st.Generations != 1 || len(st.PerGen) != 1 || st.PerGen[0].Games < 256 || len(st.Workers) != 1 || st.Lease != nil {
		t.Errorf("status %+v", st)
	}
	if code, _, errOut := runCmd("status", "--run", t.TempDir()); code == 0 || !strings.Contains(errOut, "millzero train first") {
		t.Errorf("status of no run: exit %d, %q", code, errOut)
	}
}

func TestStatus_TextListsTheLastTenGenerationsAndTheNewestStrength(t *testing.T) {
	elo, low, high := 120.0, 80.0, 160.0
	st := run.Status{Run: "runs/x", Variant: "nine", Generations: 15, Hours: 0.5, Pace: 7.25, Best: "gen-000015",
		Strength: []run.StrengthStatus{
			{Model: "gen-000012", Hours: 0.4, Opponent: "alphabeta:6", Games: 20, Score: 0.75, Elo: &elo, Low: &low, High: &high},
			{Model: "gen-000012", Hours: 0.4, Opponent: "tables:search", Games: 500, Score: 0.9},
		}}
	for g := range 15 {
		st.PerGen = append(st.PerGen, run.GenerationStatus{Generation: g, Shards: 2, Games: 64, Decision: "ungated"})
	}
	var b strings.Builder
	writeStatus(&b, st, false)
	out := b.String()
	for _, want := range []string{"15 generations finished in 0.50 run hours (lately 7.2 s each)", "strength of gen-000012 at 0.40 run hours",
		"alphabeta:6       75% of 20 games, Elo +120 [+80, +160]", "tables:search     90% right of 500 positions",
		"(5 earlier generations: --all lists them)", "\n14 "} {
		if !strings.Contains(out, want) {
			t.Errorf("status text lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	budget := st
	budget.RunHours = 8
	if writeStatus(&b, budget, false); !strings.Contains(b.String(), "15 generations finished in 0.50 of its 8 run hours (lately") {
		t.Errorf("status of a run with loop.run_hours 8: want its budget beside its hours:\n%s", b.String())
	}
	if strings.Contains(out, "\n4 ") || !strings.Contains(out, "\n5 ") {
		t.Errorf("want generations 5-14 listed, not 4:\n%s", out)
	}
	b.Reset()
	writeStatus(&b, st, true)
	if out := b.String(); !strings.Contains(out, "\n0 ") || strings.Contains(out, "earlier generations") {
		t.Errorf("--all: want every generation listed:\n%s", out)
	}
}
