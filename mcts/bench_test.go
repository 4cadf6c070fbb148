package mcts

import (
	"testing"
)

// BenchmarkSearch measures the search's own cost with the zero-cost
// evaluator: 16 games in flight, 800 simulations a move, batches of 8. One
// op is one move of every game; sims/s is the figure to watch, and
// allocs/op must stay 0 in steady state (engine.Game's history grows, the
// search does not). VARIANT is the default PUCT root, VARIANT-gumbel the
// gumbel root (sequential halving) with PUCT below it, and
// VARIANT-gumbel-improved with the improved-policy selection below it,
// VARIANT-forced the PUCT root with forced playouts (k 2) and policy target
// pruning.
func BenchmarkSearch(b *testing.B) {
	for _, name := range []string{"nine", "three", "moulin-rouge-4"} {
		for _, c := range []struct {
			suffix, root, interior string
			forced                 float64
		}{
			{"", RootPUCT, InteriorPUCT, 0}, {"-gumbel", RootGumbel, InteriorPUCT, 0}, {"-gumbel-improved", RootGumbel, InteriorImproved, 0},
			{"-forced", RootPUCT, InteriorPUCT, 2},
		} {
			benchSearch(b, name, c.suffix, c.root, c.interior, c.forced)
		}
	}
}

// benchSearch is one case of BenchmarkSearch.
func benchSearch(b *testing.B, name, suffix, root, interior string, forced float64) {
	b.Run(name+suffix, func(b *testing.B) {
		v := load(b, name)
		set := DefaultSettings()
		set.Root, set.GumbelInterior = root, interior
		set.ForcedPlayoutsK, set.PrunePolicyTarget = forced, forced > 0
		set.Simulations = 800
		searches := make([]*Search, 16)
		for i := range searches {
			searches[i] = newSearch(b, v, set, uint64(i))
		}
		pool := NewPool(v, UniformEvaluator{})
		run := func() int64 {
			n := int64(0)
			for _, s := range searches {
				s.SetRoot(v.Start(), nil)
			}
			if err := pool.Run(searches); err != nil {
				b.Fatal(err)
			}
			for _, s := range searches {
				n += int64(s.nodes[0].visits)
				s.Result() // the policy target, pruned in -forced
			}
			return n
		}
		run()
		b.ReportAllocs()
		b.ResetTimer()
		sims := int64(0)
		for b.Loop() {
			sims += run()
		}
		b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		b.ReportMetric(float64(NodeBytes), "bytes/node")
	})
}

// TestBench_ReportsWhatItMeasured runs the CLI's measurement briefly.
func TestBench_ReportsWhatItMeasured(t *testing.T) {
	set := DefaultSettings()
	set.Simulations = 64
	rep, err := Bench(BenchConfig{Variant: load(t, "nine"), Settings: set, Trees: 4, Moves: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Simulations < 3*4*32 || !(rep.PerSecond > 0) || rep.NodeBytes != NodeBytes || rep.PeakNodes == 0 {
		t.Errorf("report %+v", rep)
	}
	if _, err := Bench(BenchConfig{Variant: load(t, "nine"), Settings: set, Trees: 0, Moves: 3}); err == nil {
		t.Error("0 trees accepted")
	}
}
