package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/runconfig"
)

// runBenchProgress is `millzero bench progress`: a run's models, chosen
// over its hours, against each other, rated on one Elo scale.
func runBenchProgress(args []string, out io.Writer) error {
	fs := newFlags("bench progress", "--run DIR [flags]", []string{
		"millzero bench progress --run runs/nine                       # four models, at each quarter of the run",
		"millzero bench progress --run runs/nine-long --every-hours 1  # a model every run hour",
		"millzero bench progress --run runs/nine-long --at-hours 0.25,0.5,1,2,4,8 --reference default   # every doubling of the night",
		"millzero bench progress --run runs/nine --at-generations 119,242,376,505 --pairs 200",
		"millzero bench progress --run runs/nine --tablebase auto      # both sides play table positions perfectly",
		"millzero bench progress --run runs/nine --reference default   # every model against the built-in model too, the Elo anchor",
		"millzero bench progress --run runs/nine-s2 --reference default --with runs/nine/bench/progress   # both seeds in one figure",
		"millzero bench progress --run ~/runs/night --every-generations 100 --reference default --axis generations   # a run that shared its machine, read by generation",
		"millzero bench progress --run runs/nine --book book.txt --out runs/nine/bench/progress-book   # pairs from an opening book",
	}, out)
	runLoc := fs.String("run", "", "run directory or store URL")
	cache := cacheFlag(fs)
	models := fs.Int("models", 4, "models met, spread evenly over the run's hours, the newest last")
	every := fs.Float64("every-hours", 0, "instead: the model nearest every multiple of this many run hours, and the newest")
	gens := fs.String("at-generations", "", "instead: the models of these generations, comma separated")
	everyGens := fs.Int("every-generations", 0, "instead: the model every this many generations, and the newest")
	atHours := fs.String("at-hours", "", "instead: the models nearest these run hours, comma separated (past the run's end: its newest)")
	axis := fs.String("axis", bench.AxisHours, "x axis of progress.png: "+strings.Join(bench.Axes, ", ")+" (positions self-play searched, samples the trainer fitted)")
	sims := fs.Int("sims", arena.DefaultVisits, "search visits a move")
	pairs := fs.Int("pairs", 100, "pairs of games a match (one random opening a pair, seats swapped)")
	openings := fs.Int("opening-plies", arena.DefaultOpeningPlies, "random legal actions that open each pair")
	bookPath := fs.String("book", "", "an opening book (millzero openings build): each pair opens from one of its positions, chosen by --seed, instead of random actions")
	seed := fs.Uint64("seed", 1, "seed of the openings")
	workers := fs.Int("workers", 0, "games played at once (0: one per core)")
	tables := fs.String("tablebase", "", "endgame tables of the variant (or auto): both models play table positions perfectly, so the games measure the rest")
	outDir := fs.String("out", "", "directory of the games (a later measurement reuses every game it finds there of the same players and search), progress.csv and progress.png (default RUN/bench/progress)")
	asJSON := fs.Bool("json", false, "print the rows as JSON instead of a table")
	with := fs.String("with", "", "earlier measurements' directories (their progress.csv), comma separated, drawn in progress.png beside this run")
	reference := fs.String("reference", "", "a frozen model every model also meets, the Elo anchor: a checkpoint file, or default (the built-in model); none when empty, the first model the anchor")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	if *runLoc == "" {
		fs.Usage()
		return fmt.Errorf("give --run")
	}
	if err := checkVisits("sims", *sims); err != nil {
		return err
	}
	if *pairs < 1 || *openings < 0 || *workers < 0 || *every < 0 {
		return fmt.Errorf("--pairs %d, --opening-plies %d, --workers %d, --every-hours %v: want positive counts", *pairs, *openings, *workers, *every)
	}
	if *everyGens < 0 {
		return fmt.Errorf("--every-generations %d: want a positive count", *everyGens)
	}
	if !slices.Contains(bench.Axes, *axis) {
		return fmt.Errorf("--axis %q: want one of %s", *axis, strings.Join(bench.Axes, ", "))
	}
	choice := bench.ProgressChoice{Models: *models, EveryHours: *every, EveryGenerations: *everyGens}
	if *gens != "" {
		if choice.Generations, err = listFlag("at-generations", *gens, "a generation", func(int) bool { return true }); err != nil {
			return err
		}
	}
	if *atHours != "" {
		positive := func(h float64) bool { return h > 0 && !math.IsInf(h, 0) }
		if choice.Hours, err = listFlag("at-hours", *atHours, "a positive number of hours", positive); err != nil {
			return err
		}
	}
	ctx, stop := stopContext()
	defer stop()
	b, err := bench.NewProgressBench(ctx, *runLoc, *cache, choice)
	if err != nil {
		return fmt.Errorf("--run %s: %w", *runLoc, err)
	}
	b.Simulations, b.Pairs, b.OpeningPlies, b.Seed, b.Workers, b.Axis = *sims, *pairs, *openings, *seed, *workers, *axis
	if *outDir != "" {
		b.Out = *outDir
	}
	if *with != "" {
		b.With = strings.Split(*with, ",")
	}
	set, err := openTables(b.Variant, *tables)
	if err != nil {
		return err
	}
	b.Tables = runconfig.Prover(set)
	if b.Book, err = loadBook(*bookPath, b.Variant); err != nil {
		return err
	}
	if *reference != "" {
		if b.Reference, b.ReferenceName, err = bench.LoadReference(*reference); err != nil {
			return fmt.Errorf("--reference: %w", err)
		}
	}
	n, m := b.Players(), b.Matches()
	matches := fmt.Sprintf("%d matches", m)
	if m == 1 {
		matches = "one match"
	}
	fmt.Fprintf(os.Stderr, "progress: run %s, %d models (generations %s), %s of %d pairs %s at %d visits\n",
		*runLoc, n, strings.Trim(fmt.Sprint(b.Generations), "[]"), matches, *pairs, openingsOf(*openings, *bookPath), *sims)
	prog, start := progress.New(os.Stderr), time.Now()
	defer prog.Close()
	var match arena.RoundRobinMatch
	played, reused := 0, 0
	rows, err := b.Run(ctx, func(rm arena.RoundRobinMatch) {
		match, played = rm, rm.Found
		prog.Budget(progress.Budget{Start: start, Done: rm.K - 1, Total: rm.Of, Unit: "matches"})
		if rm.Reused {
			reused++
			prog.Update("progress: match %d of %d, %s against %s: found in %s", rm.K, rm.Of, rm.A, rm.B, b.Out)
		}
	}, func(*arena.Record) {
		played++
		prog.Phase(int64(played), int64(2**pairs))
		prog.Update("progress: match %d of %d, %s against %s: game %d of %d, %.0fs", match.K, match.Of, match.A, match.B,
			played, 2**pairs, time.Since(start).Seconds())
	})
	prog.Done("progress: %s in %.0fs", matches, time.Since(start).Seconds())
	prog.Close()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(out, rows)
	}
	bench.WriteProgress(out, rows, b.ReferenceName)
	fmt.Fprintf(out, "\nkept in %s: progress.csv, progress.png and the games (matches played now %d, found there %d)\n",
		b.Out, m-reused, reused)
	return nil
}
