package selfplay

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// With opening_starts 1 every game opens with opening_plies random legal
// actions, not recorded: each game's first recorded position is at that
// ply, with that many pieces placed, and the openings differ.
func TestOpeningStarts_EveryGameOpensWithRandomPlies(t *testing.T) {
	set := smallSettings()
	set.FullFraction = 1 // every position recorded, the first included
	set.OpeningStarts, set.OpeningPlies = 1, 4
	job, dir := seatZeroWinsJob(t, "nine", set, 40, 1)
	stats, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games != 40 || stats.OpeningStarts < 40 {
		t.Fatalf("%d games, %d opening starts: want 40 games, every one an opening start", stats.Games, stats.OpeningStarts)
	}
	first := map[string]int{}
	openings := map[engine.Position]bool{}
	for _, s := range readSamples(t, dir) {
		if p, ok := first[s.GameID]; !ok || s.Ply < p {
			first[s.GameID] = s.Ply
		}
		if s.Ply == 4 {
			p := s.Position
			if n := bits.OnesCount32(p.Pieces[0]) + bits.OnesCount32(p.Pieces[1]); n != 4 || p.Hand[0]+p.Hand[1] != 14 {
				t.Fatalf("game %s at ply 4: %d pieces on the board, %v in hand; want 4 placed", s.GameID, n, p.Hand)
			}
			p.Ply = 0
			openings[p] = true
		}
	}
	if len(first) != 40 {
		t.Fatalf("%d games recorded, want 40", len(first))
	}
	for id, ply := range first {
		if ply != 4 {
			t.Errorf("game %s: first recorded ply %d, want 4 (the random plies are not recorded)", id, ply)
		}
	}
	if len(openings) < 30 {
		t.Errorf("%d distinct positions after 40 random openings, want most of them distinct", len(openings))
	}
}

// The openings draw from a random stream of their own: a share never hit
// changes no game, so runs without opening starts play what they did.
func TestOpeningStarts_OffChangesNoGame(t *testing.T) {
	checkNeverHitChangesNoGame(t, "opening starts", func(s *Settings) { s.OpeningStarts = 1e-12 })
}

func TestOpeningStarts_Settings(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(*Settings)
	}{
		{"opening_starts", func(s *Settings) { s.OpeningStarts = -0.1 }},
		{"opening_starts", func(s *Settings) { s.OpeningStarts = 1.5 }},
		{"opening_plies", func(s *Settings) { s.OpeningStarts, s.OpeningPlies = 0.5, 0 }},
	} {
		s := smallSettings()
		c.set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming the field", c.field, err)
		}
	}
	// Openings so long that random play always ends the game first.
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := randomOpening(v, 5000, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "fewer opening_plies") {
		t.Errorf("5,000 random plies of three: error %v, want one asking for fewer", err)
	}
}
