package arena

import (
	"context"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestTournament_GauntletMeetsTheFirstWithEachOtherOnItsOwnSeeds(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	players, err := ParsePlayers([]string{"random", "alphabeta:1", "alphabeta:2"}, v, DefaultSpecSettings(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := Tournament{Variant: v, Players: players, Gauntlet: true, Pairs: 1, OpeningPlies: 1, Seed: 3, Workers: 1}
	if got := tr.Games(); got != 4 {
		t.Fatalf("games %d, want 4: two matches of one pair", got)
	}
	var met []string
	recs, err := tr.Run(context.Background(), func(k int, p Pairing) {
		met = append(met, p.A.Name()+" v "+p.B.Name())
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(met, ", ") != "random v alphabeta:1, random v alphabeta:2" || len(recs) != 4 {
		t.Fatalf("matches %v, %d records: want the first against each other once, 4 games", met, len(recs))
	}
	seeds := map[uint64]bool{}
	for _, r := range recs {
		seeds[r.Seed] = true
	}
	if len(seeds) != 4 {
		t.Errorf("game seeds %v: want each game of each match its own", seeds)
	}
	var b strings.Builder
	if err := WriteRatings(&b, recs); err != nil || !strings.Contains(b.String(), "alphabeta:2") {
		t.Errorf("ratings %q, %v: want a row per player", b.String(), err)
	}
	if _, err := ParsePlayers([]string{"random", "random"}, v, DefaultSpecSettings(), false, nil); err == nil || !strings.Contains(err.Error(), "appear once") {
		t.Errorf("a player twice: %v, want an error", err)
	}
}
