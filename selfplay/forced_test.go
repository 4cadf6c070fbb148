package selfplay

import (
	"context"
	"testing"

	"github.com/millzero/millzero/engine"
)

// TestRun_ForcedPlayoutsAndPruningInFullSearches is the smoke test of
// self-play with search.forced_playouts_k and prune_policy_target (the full
// searches use them, the fast ones run without): games finish and every
// recorded target is a distribution.
func TestRun_ForcedPlayoutsAndPruningInFullSearches(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.Search.Simulations = 64
	set.Search.ForcedPlayoutsK, set.Search.PrunePolicyTarget = 2, true
	dir := t.TempDir()
	stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 2, ShardDir: dir, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	samples := readSamples(t, dir)
	if stats.Games != 2 || len(samples) == 0 || int64(len(samples)) != stats.Positions {
		t.Fatalf("%d games, %d samples, stats say %d positions", stats.Games, len(samples), stats.Positions)
	}
	for _, s := range samples {
		sum := float32(0)
		for _, e := range s.Policy {
			if !(e.Prob > 0) {
				t.Fatalf("ply %d: a recorded target entry of %v", s.Ply, e.Prob)
			}
			sum += e.Prob
		}
		if sum < 0.999 || sum > 1.001 {
			t.Fatalf("ply %d: pruned target sums to %v", s.Ply, sum)
		}
	}
}
