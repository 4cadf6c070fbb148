package selfplay

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// seatZeroWins believes seat 0 wins every position (uniform priors): seat
// 1's root value is 0 from its first search on, seat 0's is 1.
type seatZeroWins struct{}

func (seatZeroWins) Evaluate(b *mcts.Batch) error {
	for i := 0; i < b.Len(); i++ {
		for j := range b.Priors(i) {
			b.Priors(i)[j] = 1
		}
		o := b.Outcome(i)
		clear(o)
		o[0] = 1
	}
	return nil
}

func seatZeroWinsJob(t *testing.T, variant string, set Settings, games int, seed uint64) (Job, string) {
	t.Helper()
	v, err := engine.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return Job{Variant: v, Settings: set, Games: games, ShardDir: dir, Seed: seed,
		NewEvaluator: func(int) (mcts.Evaluator, error) { return seatZeroWins{}, nil }}, dir
}

// readSamples reads every sample of generation 0's shards.
func readSamples(t *testing.T, dir string) []dataset.Sample {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+dataset.ShardExt))
	var out []dataset.Sample
	for _, f := range files {
		s, err := dataset.ReadShard(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s...)
	}
	return out
}

func TestResign_ALostSeatResignsAndLoses(t *testing.T) {
	set := smallSettings()
	set.FullFraction = 1
	set.ResignThreshold, set.ResignPlies, set.ResignPlayout = 0.1, 2, 0
	job, dir := seatZeroWinsJob(t, "nine", set, 4, 1)
	stats, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	// Seat 1 is below the threshold at its first move (ply 1) and its
	// second (ply 3), where it resigns: 3 actions a game.
	if stats.Games != 4 || stats.ResignedGames != 4 || stats.Wins[0] != 4 || stats.Plies != 12 || stats.WouldResign != 0 {
		t.Fatalf("stats %+v: want 4 games resigned by seat 1 at ply 3, won by seat 0", stats)
	}
	samples := readSamples(t, dir)
	if len(samples) != 16 {
		t.Fatalf("%d samples, want the 4 searched positions of each game", len(samples))
	}
	for _, s := range samples {
		if s.Outcome != 0 {
			t.Errorf("game %s ply %d: outcome class %d, want 0 (seat 1 resigned)", s.GameID, s.Ply, s.Outcome)
		}
	}
	if got := stats.ResignSummary(); !strings.Contains(got, "4 resigned") {
		t.Errorf("summary %q, want the resigned count", got)
	}
}

func TestResign_ThePlayoutShareCountsFalseResignations(t *testing.T) {
	set := smallSettings()
	set.Workers = 1
	set.ResignThreshold, set.ResignPlies, set.ResignPlayout = 0.1, 1, 1
	job, _ := seatZeroWinsJob(t, "three", set, 8, 2)
	stats, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	// Every game is played out; in each, seat 1 would have resigned at its
	// first move; it resigned falsely where it did not lose.
	if stats.ResignedGames != 0 || stats.WouldResign != 8 {
		t.Fatalf("%d resigned, %d would have: want 0 and all 8", stats.ResignedGames, stats.WouldResign)
	}
	if stats.FalseResigns != stats.Wins[1]+stats.Draws {
		t.Fatalf("%d false resignations, seat 1 won %d and drew %d", stats.FalseResigns, stats.Wins[1], stats.Draws)
	}
	t.Logf("seat 0 won %d, seat 1 %d, draws %d, false resignations %d", stats.Wins[0], stats.Wins[1], stats.Draws, stats.FalseResigns)

	// Half the games played out: the others resign.
	set.ResignPlayout = 0.5
	job, _ = seatZeroWinsJob(t, "three", set, 16, 3)
	stats, err = Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if stats.ResignedGames+stats.WouldResign != 16 || stats.ResignedGames == 0 || stats.WouldResign == 0 {
		t.Fatalf("%d resigned, %d played out that would have: want both, 16 in all", stats.ResignedGames, stats.WouldResign)
	}
}

// gameRecord is the recorded positions of a worker's games, keyed by the
// game's number and ply.
func gameRecord(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range readSamples(t, dir) {
		n := s.GameID[strings.LastIndex(s.GameID, "-")+1:]
		out[fmt.Sprintf("%s/%d", n, s.Ply)] = fmt.Sprintf("%x %d %v", s.Position.Hash, s.Outcome, s.Policy)
	}
	return out
}

func TestResign_OffOrNeverReachedChangesNoGame(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.Workers = 1
	run := func(set Settings) (Stats, map[string]string) {
		dir := t.TempDir()
		stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 6, ShardDir: dir, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return stats, gameRecord(t, dir)
	}
	offStats, off := run(set)
	// On, with half the games in the playout share, but never reached.
	set.ResignThreshold, set.ResignPlies, set.ResignPlayout = 0.01, 1000, 0.5
	onStats, on := run(set)
	if len(off) == 0 || len(on) != len(off) {
		t.Fatalf("%d positions with resignation off, %d on", len(off), len(on))
	}
	for k, want := range off {
		if on[k] != want {
			t.Fatalf("game/ply %s: %s with resignation on, %s off", k, on[k], want)
		}
	}
	if onStats.Plies != offStats.Plies || onStats.ResignedGames != 0 || onStats.WouldResign != 0 {
		t.Fatalf("plies %d on, %d off; %d resigned, %d would have", onStats.Plies, offStats.Plies, onStats.ResignedGames, onStats.WouldResign)
	}
}

func TestResign_SettingsAndSeats(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(*Settings)
	}{
		{"resign_threshold", func(s *Settings) { s.ResignThreshold = -0.1 }},
		{"resign_threshold", func(s *Settings) { s.ResignThreshold = 0.5 }},
		{"resign_plies", func(s *Settings) { s.ResignThreshold, s.ResignPlies = 0.05, 0 }},
		{"resign_plies", func(s *Settings) { s.ResignPlies = -1 }},
		{"resign_playout", func(s *Settings) { s.ResignPlayout = 1.5 }},
	} {
		s := smallSettings()
		c.set(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming the field", c.field, err)
		}
	}
	set := smallSettings()
	set.ResignThreshold = 0.05
	job, _ := seatZeroWinsJob(t, "moulin-rouge-3", set, 1, 1)
	if _, err := Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "2-player") {
		t.Errorf("3 seats with resignation: error %v, want one saying it is for 2 players", err)
	}
}
