package arena

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

// With the tables the classical player keeps the value of every table
// position of the oracle's sample.
func TestClassic_PlaysEveryTablePositionPerfectly(t *testing.T) {
	v, set := buildTables6(t, "nine")
	sample, err := TableSample(set, 40, 11)
	if err != nil {
		t.Fatal(err)
	}
	p := Classic{Depth: 2, HashMB: 1, Tables: set}
	if p.Name() != "classic:2+tb" {
		t.Errorf("name %q, want classic:2+tb", p.Name())
	}
	for _, tp := range sample {
		gp, err := p.NewGame(v, 0)
		if err != nil {
			t.Fatal(err)
		}
		a, err := gp.Act(context.Background(), engine.NewGameFrom(v, tp.Pos))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(tp.Right, a) {
			t.Errorf("%s %s: played %s, not one of the moves that keep the value", tp.Material, v.FormatPosition(&tp.Pos), v.FormatAction(a))
		}
	}
}

func TestClassic_RefusesMoreThanTwoPlayers(t *testing.T) {
	_, err := Classic{Depth: 2}.NewGame(loadVariant(t, "moulin-rouge-3"), 0)
	if !errors.Is(err, classic.ErrPlayers) {
		t.Errorf("error %v: want classic.ErrPlayers", err)
	}
}

func TestClassic_BeatsRandom(t *testing.T) {
	v := loadVariant(t, "nine")
	m := Match{Variant: v, A: Classic{Depth: 3, HashMB: 1}, B: Random{}, Pairs: 2, OpeningPlies: 2, Seed: 5, Workers: 1}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d games, want 4", len(recs))
	}
	for _, r := range recs {
		if s := StrengthOf("classic:3", "random", []Record{r}); s.Wins != 1 {
			t.Errorf("game %d of pair %d: %s, %s: want a win for classic:3", r.Game, r.Pair, r.ResultString(), r.Reason)
		}
	}
}
