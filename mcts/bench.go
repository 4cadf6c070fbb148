package mcts

import (
	"fmt"
	"runtime"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/seed"
)

// BenchConfig is a measurement of the search's own cost: games played by
// many searches in one pool with the zero-cost UniformEvaluator, so that
// everything timed is the search.
type BenchConfig struct {
	Variant  *engine.Variant // the variant played
	Settings Settings        // the search settings (Simulations per move, BatchSize, ...)
	Trees    int             // searches (games) in flight in the pool
	Moves    int             // moves each search plays, after one warm-up move; a finished game starts again
	Seed     uint64          // seeds the searches
}

// BenchReport is what Bench measured.
type BenchReport struct {
	Simulations  int64   // playouts backed up in the timed moves (reused visits not counted)
	Seconds      float64 // wall time of the timed moves
	PerSecond    float64 // Simulations / Seconds, on one goroutine
	NodeBytes    int     // size of one tree node
	Nodes        int64   // nodes in the trees, summed over the timed moves
	ArenaBytes   int64   // memory held by every search's arenas at the end
	PeakNodes    int     // the most nodes any tree held
	AllocsPerSim float64 // heap allocations per simulation in the timed moves
	BytesPerSim  float64 // heap bytes allocated per simulation in the timed moves
}

// String is the report as a line a person reads.
func (r BenchReport) String() string {
	return fmt.Sprintf("%.0f simulations/s (%d in %.2fs), %d bytes/node, %.1f arena bytes/node at peak, %.3f allocs/simulation",
		r.PerSecond, r.Simulations, r.Seconds, r.NodeBytes, float64(r.ArenaBytes)/float64(max(1, r.PeakNodes)), r.AllocsPerSim)
}

// Bench plays cfg.Moves moves with each of cfg.Trees searches in one pool
// and measures the simulations per second and the memory per node.
func Bench(cfg BenchConfig) (BenchReport, error) {
	var rep BenchReport
	if cfg.Variant == nil {
		return rep, fmt.Errorf("mcts bench: no variant")
	}
	if cfg.Trees < 1 || cfg.Moves < 1 {
		return rep, fmt.Errorf("mcts bench: trees %d, moves %d: want 1 or more of each", cfg.Trees, cfg.Moves)
	}
	v := cfg.Variant
	searches := make([]*Search, cfg.Trees)
	games := make([]*engine.Game, cfg.Trees)
	for i := range searches {
		s, err := NewSearch(v, cfg.Settings, seed.Derive(cfg.Seed, "bench tree", uint64(i)))
		if err != nil {
			return rep, fmt.Errorf("mcts bench: %w", err)
		}
		searches[i], games[i] = s, engine.NewGame(v)
	}
	pool := NewPool(v, UniformEvaluator{})
	move := func() (int64, error) {
		before := int64(0)
		for _, s := range searches {
			before += int64(s.nodes[0].visits)
		}
		if err := pool.Run(searches); err != nil {
			return 0, err
		}
		sims := int64(0)
		for i, s := range searches {
			sims += int64(s.nodes[0].visits)
			rep.Nodes += int64(s.Nodes())
			rep.PeakNodes = max(rep.PeakNodes, s.Nodes())
			g := games[i]
			a, err := s.Choose(len(g.Actions))
			if err != nil {
				return 0, err
			}
			g.Play(a) // legal: chosen among the root's legal actions
			if r, _ := g.Outcome(); r != engine.Ongoing || len(g.Actions) > 300 {
				games[i] = engine.NewGame(v)
				s.SetGame(games[i])
			} else if err := s.Advance(a); err != nil {
				return 0, err
			}
		}
		return sims - before, nil
	}
	if _, err := move(); err != nil { // warm-up: arenas and batches reach their size
		return rep, fmt.Errorf("mcts bench: %w", err)
	}
	rep.Nodes, rep.PeakNodes = 0, 0
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	for range cfg.Moves {
		n, err := move()
		if err != nil {
			return rep, fmt.Errorf("mcts bench: %w", err)
		}
		rep.Simulations += n
	}
	rep.Seconds = time.Since(start).Seconds()
	runtime.ReadMemStats(&m1)
	rep.PerSecond = float64(rep.Simulations) / rep.Seconds
	rep.NodeBytes = NodeBytes
	for _, s := range searches {
		rep.ArenaBytes += int64(s.ArenaBytes())
	}
	rep.ArenaBytes /= int64(cfg.Trees)
	if rep.Simulations > 0 {
		rep.AllocsPerSim = float64(m1.Mallocs-m0.Mallocs) / float64(rep.Simulations)
		rep.BytesPerSim = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(rep.Simulations)
	}
	return rep, nil
}
