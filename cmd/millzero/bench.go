package main

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

const benchWhat = "engine, mcts, model, selfplay, strength, progress or targets"

func runBench(args []string, out io.Writer) (err error) {
	if len(args) > 0 && args[0] == "strength" {
		return runBenchStrength(args[1:], out)
	}
	if len(args) > 0 && args[0] == "progress" {
		return runBenchProgress(args[1:], out)
	}
	if len(args) > 0 && args[0] == "targets" {
		return runBenchTargets(args[1:], out)
	}
	fs := newFlags("bench", "WHAT [flags]   (WHAT: "+benchWhat+")", []string{
		"millzero bench engine",
		"millzero bench mcts --variant moulin-rouge",
		"millzero bench model --batches 1,16,64,256",
		"millzero bench selfplay --sims 40 --seconds 60",
		"millzero bench selfplay --cpuprofile sp.pprof && go tool pprof -top bin/millzero sp.pprof",
		"millzero bench strength --run runs/nine   (against the classical engine at 0.1, 0.3 and 1 s a move; --help for its flags)",
		"millzero bench progress --run runs/nine   (the run's models against each other; --help for its flags)",
		"millzero bench targets --run runs/nine    (how self-play's policy targets vary between searches; --help for its flags)",
	}, out)
	variant := fs.String("variant", "nine", "variant to measure (engine always measures nine: its start, as the reference engine did, and a moving-phase position)")
	repeat := fs.Int("repeat", 3, "engine: measure this many times and report the best and the median")
	seconds := fs.Float64("seconds", 30, "model, selfplay: measure for this long (model: per batch size)")
	sims := fs.Int("sims", 0, "mcts, selfplay: simulations per move (0: the default settings')")
	batches := fs.String("batches", "1,16,64,256", "model: batch sizes to measure")
	width := fs.Int("width", model.DefaultConfig().Width, "model, selfplay: network width")
	blocks := fs.Int("blocks", model.DefaultConfig().Blocks, "model, selfplay: residual blocks")
	features := fs.Int("features", model.EncoderBoard, "model, selfplay: the feature encoder, as model.features (1 the board; 2 and the mills; 3 and the tactics a move ahead)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the measurement to FILE (go tool pprof)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one of: %s", benchWhat)
	}
	if *repeat < 1 || *seconds <= 0 || *sims < 0 {
		return fmt.Errorf("--repeat %d, --seconds %v, --sims %d: want positive values", *repeat, *seconds, *sims)
	}
	v, err := engine.Load(*variant)
	if err != nil {
		return err
	}
	mc := model.Config{Width: *width, Blocks: *blocks, Features: *features}
	if err := mc.Validate(); err != nil {
		return err
	}
	dur := time.Duration(*seconds * float64(time.Second))
	endProfile, err := cpuProfile(*profile)
	if err != nil {
		return err
	}
	defer endProfile(&err)
	switch rest[0] {
	case "engine":
		err = benchEngine(out, *repeat)
	case "mcts":
		err = benchMCTS(out, v, *sims)
	case "model":
		err = benchModel(out, v, mc, *batches, dur)
	case "selfplay":
		err = benchSelfplay(out, v, mc, *sims, dur)
	default:
		return fmt.Errorf("bench %q: want one of: %s", rest[0], benchWhat)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "peak resident size: %s\n", peakRSS())
	return nil
}

// peakRSS is the process's peak resident set size, from /proc.
func peakRSS() string {
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

// benchEngine measures full-make perft of nine on one core: the start
// position at depth 6 and the moving-phase position at depth 9.
func benchEngine(out io.Writer, repeat int) error { return engine.BenchPerft(out, repeat, 6, 9) }

// benchMCTS measures the search's own cost with a zero-cost evaluator.
func benchMCTS(out io.Writer, v *engine.Variant, sims int) error {
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

func benchModel(out io.Writer, v *engine.Variant, mc model.Config, batchList string, dur time.Duration) error {
	var bs []int
	for _, f := range strings.Split(batchList, ",") {
		var b int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &b); err != nil || b < 1 {
			return fmt.Errorf("--batches %q: %q is not a batch size", batchList, f)
		}
		bs = append(bs, b)
	}
	a, rs, err := model.Bench(v, mc, bs, dur)
	if err != nil {
		return err
	}
	model.WriteBench(out, v.Name, a, rs)
	return nil
}

// benchSelfplay plays self-play with a randomly initialised network of the
// given size for dur, and compares the evaluator's throughput inside
// self-play with the bare forward pass at the same batch size (every policy
// logit, where the evaluator computes only the legal actions').
func benchSelfplay(out io.Writer, v *engine.Variant, mc model.Config, sims int, dur time.Duration) error {
	set := selfplay.DefaultSettings()
	if sims > 0 {
		set.Search.Simulations = sims
		set.FastSimulations = min(set.FastSimulations, sims)
	}
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
	return nil
}
