package run

import (
	"strings"
	"testing"
)

func TestStatus_Write_ListsTheLastTenGenerationsAndTheNewestStrength(t *testing.T) {
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
	var b strings.Builder
	st.Write(&b, false)
	out := b.String()
	for _, want := range []string{"15 generations finished in 0.50 run hours (lately 7.2 s each)", "strength of gen-000012 at 0.40 run hours",
		"alphabeta:6       75% of 20 games, Elo +120 [+80, +160]", "tables:search     90% right of 500 positions",
		"(5 earlier generations: --all lists them)", "\n14 ", "ungated (reanalysed positions: 1 shard)"} {
		if !strings.Contains(out, want) {
			t.Errorf("status text lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	budget := st
	budget.RunHours = 8
	if budget.Write(&b, false); !strings.Contains(b.String(), "15 generations finished in 0.50 of its 8 run hours (lately") {
		t.Errorf("status of a run with loop.run_hours 8: want its budget beside its hours:\n%s", b.String())
	}
	if strings.Contains(out, "\n4 ") || !strings.Contains(out, "\n5 ") {
		t.Errorf("want generations 5-14 listed, not 4:\n%s", out)
	}
	b.Reset()
	st.Write(&b, true)
	if out := b.String(); !strings.Contains(out, "\n0 ") || strings.Contains(out, "earlier generations") {
		t.Errorf("--all: want every generation listed:\n%s", out)
	}
}
