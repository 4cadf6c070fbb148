package main

import (
	"fmt"
	"io"

	"github.com/millzero/millzero/run"
)

// runFork is `millzero fork`: a new run branched from a run's generation.
func runFork(args []string, out io.Writer) error {
	fs := newFlags("fork", "--run DIR --generation N --to NEW", []string{
		"millzero fork --run runs/nine --generation 180 --to runs/nine-b      # runs/nine as its first 180 generations left it",
		"millzero train --run runs/nine-b --config my-change.yaml              # ... trained on from there with a change",
		"millzero fork --run runs/nine --to runs/nine-c                       # the whole run as it stands",
		"millzero bench progress --run runs/nine-b --at-generations 180,240 --reference default",
	}, out)
	src := fs.String("run", "", "the run directory to branch from (a local directory: copy a stored run down first)")
	gen := fs.Int("generation", 0, "the generations the fork keeps, 0..N-1: its newest model is generation N's, and it trains on at generation N (0: every generation the run has ended)")
	dst := fs.String("to", "", "the new run directory (must not exist)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	if *src == "" || *dst == "" {
		fs.Usage()
		return fmt.Errorf("give --run and --to")
	}
	if *gen < 0 {
		return fmt.Errorf("--generation %d: want a generation the run has ended, or 0 for all", *gen)
	}
	n, err := run.Fork(*src, *dst, *gen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "run %s: %s as its first %d generations left it; millzero train --run %s goes on at generation %d\n", *dst, *src, n, *dst, n)
	return nil
}
