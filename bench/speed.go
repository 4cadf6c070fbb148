package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
)

// PeakRSS is the process's peak resident set size, from /proc.
func PeakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// Engine measures full-make perft of nine on one core, the best and the
// median of repeat runs: the start position at depth 6 and the
// moving-phase position at depth 9.
func Engine(out io.Writer, repeat int) error { return engine.BenchPerft(out, repeat, 6, 9) }

// MCTS measures the search's own cost with a zero-cost evaluator, sims
// simulations a move (0: the default settings').
func MCTS(out io.Writer, v *engine.Variant, sims int) error {
	set := mcts.DefaultSettings()
	if sims > 0 {
		set.Simulations = sims
	}
	rep, err := mcts.Bench(mcts.BenchConfig{Variant: v, Settings: set, Trees: 32, Moves: 20, Seed: 1})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "mcts: %s, %d simulations/move, 32 trees in one pool, one goroutine, zero-cost evaluator\n", v.Name, set.Simulations)
	fmt.Fprintf(out, "mcts: %s\n", rep)
	return nil
}

// Model measures the forward pass of a randomly initialised network of
// shape mc at each of the batch sizes, for dur each.
func Model(out io.Writer, v *engine.Variant, mc model.Config, batches []int, dur time.Duration) error {
	a, rs, err := model.Bench(v, mc, batches, dur)
	if err != nil {
		return err
	}
	model.WriteBench(out, v.Name, a, rs)
	return nil
}

// Selfplay plays self-play with a randomly initialised network of shape
// mc for dur with the settings set (selfplay.DefaultSettings, say), and
// compares the evaluator's throughput inside self-play
// with the bare forward pass at the same batch size (every policy logit,
// where the evaluator computes only the legal actions').
func Selfplay(out io.Writer, v *engine.Variant, mc model.Config, set selfplay.Settings, dur time.Duration) error {
	a := model.NewArch(v, mc)
	net, err := model.New(v.Name, a, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "millzero-bench-selfplay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	workers := runtime.NumCPU()
	fmt.Fprintf(out, "selfplay: %s, network %v, %d+%d simulations (full+fast, %.0f%% full), %d workers x %d games in flight, for %v\n",
		v.Name, a, set.Search.Simulations, set.FastSimulations, 100*set.FullFraction, workers, set.GamesInFlight, dur)
	st, err := selfplay.Run(ctx, selfplay.Job{Variant: v, Settings: set, ShardDir: dir, Seed: 1,
		NewEvaluator: model.WorkerEvaluators(v, net, set.MaxBatch(), set.Orientations, 1)})
	if err != nil && err != context.DeadlineExceeded {
		return err
	}
	fmt.Fprintf(out, "selfplay: %.1f moves/s, %.1f recorded positions/s, %d games finished (mean length %.0f)\n",
		st.MovesPerSecond(), st.PositionsPerSecond(), st.Games, st.MeanLength())
	fmt.Fprintf(out, "selfplay: %.0f network evaluations/s, mean batch %.1f, %.0f%% of the workers' time outside the network\n",
		st.EvaluationsPerSecond(), st.MeanBatch(), 100*st.OutsideNetwork(workers))
	batch := max(1, int(st.MeanBatch()+0.5))
	_, rs, err := model.Bench(v, mc, []int{batch}, 3*time.Second)
	if err != nil {
		return err
	}
	ref := rs[0].PositionsSec * float64(workers)
	fmt.Fprintf(out, "selfplay: the bare forward pass with all %d policy logits at batch %d: %.0f positions/s on one core, %.0f on %d; self-play's evaluations (features, the trunk, the legal actions' logits) reach %.0f%% of it\n",
		a.Actions, batch, rs[0].PositionsSec, ref, workers, 100*st.EvaluationsPerSecond()/ref)
	peak, kernel := model.PeakGFLOPSPerCore()
	gflops := st.EvaluationsPerSecond() * 2 * float64(a.MACs()) / 1e9
	fmt.Fprintf(out, "selfplay: the evaluations at %d multiply-adds a position (the forward pass's, as bench model counts them) are %.1f GFLOP/s, %.0f%% of the %d cores' peak (%.0f GFLOP/s each, fp32, %s); the bare forward pass %.0f%%\n",
		a.MACs(), gflops, 100*gflops/(peak*float64(workers)), workers, peak, kernel, 100*rs[0].GFLOPS/peak)
	return nil
}
