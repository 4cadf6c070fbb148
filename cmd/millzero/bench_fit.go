package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/store"
)

// runBenchFit is `millzero bench fit`: fresh networks of several sizes
// trained on the same fixed games of a run, and their losses on the games
// held out (bench.FitBench): whether the network's size limits the fit.
func runBenchFit(args []string, out io.Writer) error {
	fs := newFlags("bench fit", "--run DIR [flags]", []string{
		"millzero bench fit --run runs/nine                                  # 32x2, 64x2 and 32x4 on the newest 20 generations' games",
		"millzero bench fit --run runs/nine --window 300-340 --nets 32x2,64x2,32x4 --steps 8000 --every 1000",
		"millzero bench fit --run runs/nine --nets 32x2,128x2 --steps 2000 --threads 1 --json > fit.json",
		"millzero bench fit --run runs/nine --val-fraction 0.2               # more of the newest generation's games held out",
	}, out)
	runDir := fs.String("run", "", "run directory (a local one: its games are read, nothing is written)")
	gens := fs.String("window", "", fmt.Sprintf("the generations whose games are read, FROM-TO or one (default: the newest %d with games)", bench.DefaultFitGenerations))
	nets := fs.String("nets", "32x2,64x2,32x4", "the networks trained, WIDTHxBLOCKS comma separated: the run's model (kind, features, orientation) at that width and blocks")
	steps := fs.Int("steps", 8000, "training steps of each network")
	every := fs.Int("every", 1000, "evaluate on the held-out games every this many steps (and after the last)")
	batch := fs.Int("batch", 256, "samples a training step (the rest of the run's train config is kept)")
	threads := fs.Int("threads", 0, "goroutines a step runs on (0: one per core)")
	valFraction := fs.Float64("val-fraction", 0.05, "the share of the newest generation's games held out, chosen by game id as the loop chooses them")
	seed := fs.Uint64("seed", 1, "seed of the networks' weights and of the training games' order and symmetries")
	asJSON := fs.Bool("json", false, "print the measurements as JSON")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	if *runDir == "" {
		fs.Usage()
		return fmt.Errorf("give --run")
	}
	if store.IsURL(*runDir) {
		return fmt.Errorf("--run %s: bench fit reads a run's games from a local directory (a store URL's games are not fetched)", *runDir)
	}
	if *steps < 1 || *every < 1 || *batch < 1 || *threads < 0 {
		return fmt.Errorf("--steps %d, --every %d, --batch %d, --threads %d: want 1 or more steps, an interval of 1 or more, a batch of 1 or more, 0 or more threads",
			*steps, *every, *batch, *threads)
	}
	if !(*valFraction > 0 && *valFraction < 1) {
		return fmt.Errorf("--val-fraction %v: want more than 0 and less than 1", *valFraction)
	}
	specs, err := bench.ParseFitNets(*nets)
	if err != nil {
		return fmt.Errorf("--nets %q: %w", *nets, err)
	}
	from, to, err := generationRange(*gens)
	if err != nil {
		return err
	}
	b, err := bench.NewFitBench(*runDir, from, to, *valFraction)
	if err != nil {
		if *gens != "" {
			return fmt.Errorf("--run %s --window %s: %w", *runDir, *gens, err)
		}
		return fmt.Errorf("--run %s: %w", *runDir, err)
	}
	defer b.Close()
	if len(b.HeldOut) < *batch {
		return fmt.Errorf("--val-fraction %v, --batch %d: the held-out games of generation %d (%d) give %d positions, fewer than one batch: hold out more (--val-fraction) or train on smaller batches (--batch)",
			*valFraction, *batch, b.To, b.HeldGames, len(b.HeldOut))
	}
	b.Train.BatchSize, b.Train.Threads, b.Seed = *batch, *threads, *seed
	fmt.Fprintf(os.Stderr, "fit: run %s, generations %d-%d (%d with games, %d games), %d held-out games of generation %d (%d positions); nets %s, %d steps each at batch %d\n",
		*runDir, b.From, b.To, b.Generations, b.Games, b.HeldGames, b.To, len(b.HeldOut), *nets, *steps, *batch)
	ctx, stop := stopContext()
	defer stop()
	prog, start := progress.New(os.Stderr), time.Now()
	res, err := b.Run(ctx, specs, *steps, *every, func(p bench.FitProgress) {
		prog.Budget(progress.Budget{Start: start, Done: p.K - 1, Total: p.Of, Unit: "nets"})
		prog.Phase(int64(p.Step), int64(p.Steps))
		if p.Row == nil {
			prog.Update("fit: net %s (%d of %d), step %d of %d, %.0fs", p.Net, p.K, p.Of, p.Step, p.Steps, time.Since(start).Seconds())
		} else if p.Step == p.Steps {
			prog.Done("fit: net %s (%d of %d): %d steps, held-out policy %.4f, outcome %.4f, %.0fs", p.Net, p.K, p.Of, p.Step,
				p.Row.ValPolicy, p.Row.ValOutcome, time.Since(start).Seconds())
		} else {
			prog.Update("fit: net %s (%d of %d), step %d of %d: held-out policy %.4f, outcome %.4f, %.0fs", p.Net, p.K, p.Of, p.Step, p.Steps,
				p.Row.ValPolicy, p.Row.ValOutcome, time.Since(start).Seconds())
		}
	})
	prog.Close()
	if err != nil && (res == nil || len(res.Nets) == 0) {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted before the first evaluation: %w", err)
		}
		return fmt.Errorf("--nets %s: %w", *nets, err)
	}
	if *asJSON {
		if jerr := writeJSON(out, res); jerr != nil {
			return jerr
		}
	} else {
		res.Write(out)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("interrupted (%w): what was measured until then is above", err)
	case err != nil:
		return fmt.Errorf("--nets %s: %w (what was measured until then is above)", *nets, err)
	}
	return nil
}

// generationRange reads --window: FROM-TO, or one generation; ""
// is -1, -1 (bench.NewFitBench's default).
func generationRange(s string) (from, to int, err error) {
	if s == "" {
		return -1, -1, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	if !isRange {
		b = a
	}
	from, ferr := strconv.Atoi(strings.TrimSpace(a))
	to, terr := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case errors.Join(ferr, terr) != nil || from < 0:
		return 0, 0, fmt.Errorf("--window %q: want FROM-TO (as 300-340) or one generation, of 0 or more", s)
	case to < from:
		return 0, 0, fmt.Errorf("--window %q: an empty range: want FROM no later than TO", s)
	}
	return from, to, nil
}
