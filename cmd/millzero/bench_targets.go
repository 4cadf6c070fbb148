package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/selfplay"
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
	if strings.Contains(*runDir, "://") {
		return fmt.Errorf("--run %s: bench targets reads a run's games from a local directory (a store URL's games are not fetched)", *runDir)
	}
	if *positions < 1 || *searches < 2 || *sims < 0 {
		return fmt.Errorf("--positions %d, --searches %d, --sims %d: want 1 or more positions, 2 or more searches, 0 or more visits", *positions, *searches, *sims)
	}
	r := run.Dir(*runDir)
	cfg, _, err := run.LoadRunConfig(r.Config())
	if err != nil {
		return fmt.Errorf("--run %s: %w", *runDir, err)
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		return fmt.Errorf("--run %s: %w", *runDir, err)
	}
	g := *gen
	if g < 0 {
		// The best, or the newest generation before it whose games were
		// played (a run stopped after training has no games of its best).
		best, err := r.Best()
		if errors.Is(err, run.ErrNoModel) {
			return fmt.Errorf("--run %s: no model yet: the targets of a network need one", *runDir)
		}
		if err != nil {
			return fmt.Errorf("--run %s: %w", *runDir, err)
		}
		for g = best; g >= 1; g-- {
			shards, _ := filepath.Glob(filepath.Join(dataset.GenerationDir(r.Games(), g), "*"+dataset.ShardExt))
			if _, err := os.Stat(r.Model(g)); err == nil && len(shards) > 0 {
				break
			}
		}
		if g < 1 {
			return fmt.Errorf("--run %s: no generation up to the best (%d) has both a model and games", *runDir, best)
		}
	}
	ck, err := model.LoadCheckpointFor(r.Model(g), v)
	if err != nil {
		return fmt.Errorf("--generation %d: %w", g, err)
	}
	samples, err := spreadPositions(dataset.GenerationDir(r.Games(), g), v, *positions)
	if err != nil {
		return fmt.Errorf("--generation %d: %w", g, err)
	}
	set := cfg.SelfPlay.Search
	if *sims > 0 {
		set.Simulations = *sims
	}
	if *search != "" {
		if set, err = arena.SearchOptions(set, strings.Split(*search, ",")); err != nil {
			return fmt.Errorf("--search: %w", err)
		}
	}
	eval, err := model.NewEvaluator(v, ck.Net, 2**searches*set.BatchSize, *symmetry, *seed)
	if err != nil {
		return err
	}
	if err := eval.SetOrientations(*orientations); err != nil {
		return fmt.Errorf("--orientations: %w", err)
	}
	fmt.Fprintf(os.Stderr, "targets: generation %d of %s (%v), %d positions of its games, %d searches each at %d visits, root %s\n",
		g, *runDir, ck.Net.Arch, len(samples), *searches, set.Simulations, set.Root)
	start := time.Now()
	sp, err := selfplay.TargetSpread(v, eval, set, samples, *searches, *seed)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(sp)
	}
	rec := 0.0
	for _, s := range samples {
		for _, e := range s.Policy {
			if e.Prob > 0 {
				rec -= float64(e.Prob) * math.Log(float64(e.Prob))
			}
		}
	}
	turned := fmt.Sprintf("board turned: %v, views a position: %d", *symmetry, *orientations)
	if ck.Net.Arch.Canonical {
		turned = "every board in its canonical turn (model.orientation)"
	}
	fmt.Fprintf(out, "generation %d, %d positions, %d searches each (%d visits, root %s, c_scale %v, %s), %.0fs\n",
		g, sp.Positions, sp.Searches, set.Simulations, set.Root, set.CScale, turned, time.Since(start).Seconds())
	fmt.Fprintf(out, "  entropy of one search's target      %s nats (self-play recorded %.3f there)\n", sp.Entropy, rec/float64(len(samples)))
	fmt.Fprintf(out, "  entropy of the searches' mean       %s nats: the least policy loss on such targets\n", sp.MeanEntropy)
	fmt.Fprintf(out, "  cross-entropy under the network     %s nats: its policy loss on them\n", sp.CrossEntropy)
	fmt.Fprintf(out, "    beyond the searches' disagreement %s nats: KL(mean target || network)\n", sp.Excess)
	fmt.Fprintf(out, "  two searches' top actions the same  %s\n", sp.Agreement)
	fmt.Fprintln(out, "\n± is the 95% half-width over the positions; the mean target's entropy, from a finite number of searches, is low.")
	return nil
}

// spreadPositions reads the full-search samples of one generation's games
// and keeps n of them spread evenly (all, if there are fewer).
func spreadPositions(dir string, v *engine.Variant, n int) ([]dataset.Sample, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*"+dataset.ShardExt))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no games in %s", dir)
	}
	var full []dataset.Sample
	for _, f := range files {
		ss, err := dataset.ReadShardFor(f, v)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			if s.Full {
				full = append(full, s)
			}
		}
	}
	if len(full) == 0 {
		return nil, fmt.Errorf("no full-search positions in %s", dir)
	}
	if len(full) <= n {
		return full, nil
	}
	out := make([]dataset.Sample, n)
	for i := range out {
		out[i] = full[i*len(full)/n]
	}
	return out, nil
}
