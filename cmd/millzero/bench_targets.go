package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// runBenchTargets is `millzero bench targets`: how much self-play's
// policy targets of one position vary between searches, and how far a
// run's network is from them (selfplay.TargetSpread).
func runBenchTargets(args []string, out io.Writer) error {
	fs := newFlags("bench targets", "--run DIR [flags]", []string{
		"millzero bench targets --run runs/nine                        # the best model, on positions of the games it played",
		"millzero bench targets --run runs/nine --generation 300 --searches 32",
		"millzero bench targets --run runs/nine --symmetry=false       # the network sees every board one way",
		"millzero bench targets --run runs/nine --search c_scale=0.3   # another target from the same searches",
		"millzero bench targets --run runs/nine --orientations 4       # the network averaged over four turns of the board",
		"millzero bench targets --run runs/nine --judge 12             # each target's choice judged by the classical engine at depth 12",
	}, out)
	runDir := fs.String("run", "", "run directory (a local one: its games are read)")
	gen := fs.Int("generation", -1, "the model of this generation, on positions of this generation's games (-1: the best, or the newest before it with games)")
	positions := fs.Int("positions", 200, "positions searched, spread evenly over the generation's recorded (full-search) positions")
	searches := fs.Int("searches", 16, "searches of each position")
	sims := fs.Int("sims", 0, "visits a search (0: the run's full search, selfplay.search.simulations)")
	search := fs.String("search", "", "search settings laid over the run's self-play search, comma separated, named as in a run config")
	symmetry := fs.Bool("symmetry", true, "turn the board a random way for every evaluation, as self-play does")
	orientations := fs.Int("orientations", 1, "average the network over this many distinct turns of the board a position (with --symmetry)")
	seed := fs.Uint64("seed", 1, "seed of the searches' noise and of the board's turns")
	judge := fs.Int("judge", 0, "judge each position's target and network choices with the classical engine at this depth (0: no judging; 12 takes about a third of a second a position)")
	asJSON := fs.Bool("json", false, "print the measurement as JSON")
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
		return fmt.Errorf("--run %s: bench targets reads a run's games from a local directory (a store URL's games are not fetched)", *runDir)
	}
	if *positions < 1 || *searches < 2 || *sims < 0 {
		return fmt.Errorf("--positions %d, --searches %d, --sims %d: want 1 or more positions, 2 or more searches, 0 or more visits", *positions, *searches, *sims)
	}
	if *sims > 0 {
		if err := checkVisits("sims", *sims); err != nil {
			return err
		}
	}
	if *judge < 0 || *judge > classic.MaxDepth {
		return fmt.Errorf("--judge %d: want 0 (no judging) or a depth of 1..%d", *judge, classic.MaxDepth)
	}
	b, err := bench.NewTargetsBench(*runDir, *gen, *positions)
	if err != nil {
		if *gen >= 0 {
			return fmt.Errorf("--run %s --generation %d: %w", *runDir, *gen, err)
		}
		return fmt.Errorf("--run %s: %w", *runDir, err)
	}
	if *sims > 0 {
		b.Search.Simulations = *sims
	}
	if *search != "" {
		if b.Search, err = arena.SearchOptions(b.Search, strings.Split(*search, ",")); err != nil {
			return fmt.Errorf("--search: %w", err)
		}
	}
	fmt.Fprintf(os.Stderr, "targets: generation %d of %s (%v), %d positions of its games, %d searches each at %d visits, root %s\n",
		b.Generation, *runDir, b.Net.Arch, len(b.Samples), *searches, b.Search.Simulations, b.Search.Root)
	start := time.Now()
	if *judge == 0 {
		sp, err := b.Run(*searches, *symmetry, *orientations, *seed)
		if err != nil {
			return fmt.Errorf("--orientations %d, --symmetry=%v: %w", *orientations, *symmetry, err)
		}
		if *asJSON {
			return writeJSON(out, sp)
		}
		b.Write(out, sp, *symmetry, *orientations, time.Since(start))
		return nil
	}
	ctx, stop := stopContext()
	defer stop()
	prog := progress.New(os.Stderr)
	sp, j, err := b.RunJudged(ctx, *searches, *symmetry, *orientations, *seed, *judge, func(done, total int) {
		prog.Update("targets: position %d of %d judged, %.0fs", done, total, time.Since(start).Seconds())
	})
	prog.Close()
	if err != nil {
		return fmt.Errorf("--judge %d: %w", *judge, err)
	}
	if *asJSON {
		return writeJSON(out, struct {
			selfplay.Spread
			Judged *bench.TargetJudgement `json:"judged"`
		}{sp, j})
	}
	b.Write(out, sp, *symmetry, *orientations, time.Since(start))
	bench.WriteJudgement(out, j)
	return nil
}
