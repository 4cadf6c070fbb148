package selfplay

import (
	"context"
	"math/bits"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// With endgame_starts 1 every game begins from a random endgame of the
// materials asked for: nothing in hand, at least 3 a side, at most
// endgame_pieces in all; the materials drawn cover all of them.
func TestEndgameStarts_EveryGameFromARandomEndgame(t *testing.T) {
	set := smallSettings()
	set.FullFraction = 1 // every position recorded, the first included
	set.EndgameStarts, set.EndgamePieces = 1, 8
	job, dir := seatZeroWinsJob(t, "nine", set, 60, 1)
	stats, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games != 60 || stats.EndgameStarts < 60 {
		t.Fatalf("%d games, %d endgame starts: want 60 games, every one an endgame start", stats.Games, stats.EndgameStarts)
	}
	firsts, seen := 0, map[[2]int]int{}
	for _, s := range readSamples(t, dir) {
		if s.Ply != 0 {
			continue
		}
		firsts++
		p := &s.Position
		a, b := bits.OnesCount32(p.Pieces[0]), bits.OnesCount32(p.Pieces[1])
		if p.Hand[0]+p.Hand[1] != 0 || p.Removing() || a < 3 || b < 3 || a+b > 8 {
			t.Fatalf("game %s starts with %d v %d on the board, %v in hand, pending %v", s.GameID, a, b, p.Hand, p.Pending)
		}
		seen[[2]int{a, b}]++
	}
	if firsts != 60 {
		t.Fatalf("%d games recorded their first position, want 60", firsts)
	}
	if len(seen) != 6 { // 3v3 3v4 3v5 4v3 4v4 5v3
		t.Fatalf("materials drawn %v: want all six of at most 8 pieces", seen)
	}
}

// The starts draw from a random stream of their own: a share never hit
// changes no game, so runs without endgame starts play what they did.
func TestEndgameStarts_OffChangesNoGame(t *testing.T) {
	checkNeverHitChangesNoGame(t, "endgame starts", func(s *Settings) { s.EndgameStarts = 1e-12 })
}

// checkNeverHitChangesNoGame checks that the settings, changed by
// neverHit to a share of games that is never drawn (of what), play
// every game as the settings left alone do.
func checkNeverHitChangesNoGame(t *testing.T, what string, neverHit func(*Settings)) {
	t.Helper()
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.Workers = 1
	run := func(set Settings) map[string]string {
		dir := t.TempDir()
		if _, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 4, ShardDir: dir, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		return gameRecord(t, dir)
	}
	off := run(set)
	neverHit(&set)
	on := run(set)
	if len(off) == 0 || len(on) != len(off) {
		t.Fatalf("%d positions with %s off, %d with a share never hit", len(off), what, len(on))
	}
	for k, want := range off {
		if on[k] != want {
			t.Fatalf("game/ply %s: %s with a share of %s never hit, %s off", k, on[k], what, want)
		}
	}
}

func TestEndgameStarts_SettingsAndVariants(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(*Settings)
	}{
		{"endgame_starts", func(s *Settings) { s.EndgameStarts = -0.1 }},
		{"endgame_starts", func(s *Settings) { s.EndgameStarts = 1.5 }},
		{"endgame_pieces", func(s *Settings) { s.EndgameStarts, s.EndgamePieces = 0.1, 5 }},
	} {
		s := smallSettings()
		c.set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming the field", c.field, err)
		}
	}
	for variant, want := range map[string]string{"moulin-rouge-3": "3 players", "three": "first line", "nine": "points"} {
		set := smallSettings()
		set.EndgameStarts, set.EndgamePieces = 0.5, 8
		if variant == "nine" {
			set.EndgamePieces = 24
		}
		job, _ := seatZeroWinsJob(t, variant, set, 1, 1)
		if _, err := Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with endgame starts: error %v, want one saying %q", variant, err, want)
		}
	}
}
