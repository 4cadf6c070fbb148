package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/internal/progress"
)

// runBenchDiagnose is `millzero bench diagnose`: where a player's games lose value to a deep search.
func runBenchDiagnose(args []string, out io.Writer) error {
	fs := newFlags("bench diagnose", "--games FILE|DIR [flags]", []string{
		"millzero bench diagnose --games runs/nine/bench-games             # the model's games of bench strength --games",
		"millzero bench diagnose --games runs/nine/arena --player gen-000300 --depth 10 --json > diagnosis.json",
		"millzero bench diagnose --games games.parquet --model default      # also the built-in network's first choice, no search",
		"millzero bench diagnose --games games.parquet --judge-weights hand # judged by the first, hand-written evaluation",
	}, out)
	games := fs.String("games", "", "arena records: a Parquet file, or a directory of them (bench strength --games, RUN/arena)")
	player := fs.String("player", "", "the player diagnosed (default: the one player not classic*, alphabeta* or random)")
	var d bench.Diagnose
	fs.IntVar(&d.Depth, "depth", bench.DefaultDiagnoseDepth, "plies the engine searches a position (the position after the action played: one less)")
	fs.Float64Var(&d.Threshold, "threshold", 1, "pieces: an action losing this much or more counts as losing")
	fs.IntVar(&d.Workers, "workers", 0, "games judged at once, each its own engine (0: one per core)")
	fs.StringVar(&d.Model, "model", "", "checkpoint file (or default: the built-in model) whose network's first choice is compared with the engine's best, by phase")
	judgeWeights := fs.String("judge-weights", "", "the engine's evaluation weights: a named set ("+strings.Join(classic.NamedWeights(), ", ")+"; hand: the judge of earlier diagnoses) or a file of millzero classic tune (default: the variant's default)")
	asJSON := fs.Bool("json", false, "print the diagnosis as JSON")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *games == "" {
		fs.Usage()
		return fmt.Errorf("give --games, and no other arguments (got %q)", rest)
	}
	if *judgeWeights != "" {
		if d.Weights, err = classic.LoadWeights(*judgeWeights); err != nil {
			return fmt.Errorf("--judge-weights: %w", err)
		}
	}
	ctx, stop := stopContext()
	defer stop()
	prog, start := progress.New(os.Stderr), time.Now()
	res, err := d.Run(ctx, *games, *player, func(done, total int) {
		prog.Update("diagnose: game %d of %d, %.0fs", done, total, time.Since(start).Seconds())
	})
	prog.Close()
	if errors.Is(err, bench.ErrNoPlayer) {
		err = fmt.Errorf("%w (--player)", err)
	}
	if err == nil && *asJSON {
		return writeJSON(out, res)
	} else if err == nil {
		res.Write(out)
	}
	return err
}
