package run

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files of the tests that compare whole output
// (go test ./run -run Golden -update) instead of comparing with them.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with the file testdata/name, or with -update
// writes it there.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it):\n--- got\n%s--- want\n%s", path, t.Name(), got, want)
	}
}

// testStatus is a status of fifteen generations, a strength measurement
// with and without an Elo, and a reanalysed shard.
func testStatus() Status {
	elo, low, high := 120.0, 80.0, 160.0
	st := Status{Run: "runs/x", Variant: "nine", Generations: 15, Hours: 0.5, Pace: 7.25, Best: "gen-000015",
		Strength: []StrengthStatus{
			{Model: "gen-000012", Hours: 0.4, Opponent: "alphabeta:6", Games: 20, Score: 0.75, Elo: &elo, Low: &low, High: &high},
			{Model: "gen-000012", Hours: 0.4, Opponent: "tables:search", Games: 500, Score: 0.9},
		}}
	for g := range 15 {
		st.PerGen = append(st.PerGen, GenerationStatus{Generation: g, Shards: 2, Games: 64, Decision: "ungated"})
	}
	st.PerGen[13].Reanalysed = 1
	return st
}

func TestStatusGolden_TheLastTenGenerationsAndTheNewestStrength(t *testing.T) {
	var b strings.Builder
	testStatus().Write(&b, false)
	golden(t, "status.txt", b.String())
}

func TestStatusGolden_EveryGenerationWithAll_AndTheRunsBudget(t *testing.T) {
	st := testStatus()
	st.RunHours = 8
	var b strings.Builder
	st.Write(&b, true)
	golden(t, "status-all-budget.txt", b.String())
}
