package main

import (
	"fmt"
	"io"

	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/store"
)

// runBenchOpenings is `millzero bench openings`: how varied a run's own
// games are in the opening (bench.OpeningSpread).
func runBenchOpenings(args []string, out io.Writer) error {
	fs := newFlags("bench openings", "--run DIR [flags]", []string{
		"millzero bench openings --run runs/nine                     # the newest generation's games",
		"millzero bench openings --run runs/nine --generation 250 --plies 1,2,3,4",
	}, out)
	runDir := fs.String("run", "", "run directory (a local one: its games are read)")
	gen := fs.Int("generation", -1, "the games of this generation (-1: the newest with games)")
	pliesFlag := fs.String("plies", "2,4,6,8,10,12,16,20,24", "plies to count at, comma separated")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
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
		return fmt.Errorf("--run %s: bench openings reads a run's games from a local directory (a store URL's games are not fetched)", *runDir)
	}
	plies, err := listFlag("plies", *pliesFlag, "a ply (0 or more)", func(p int) bool { return p >= 0 })
	if err != nil {
		return err
	}
	g, rows, err := bench.RunOpenings(*runDir, *gen, plies)
	if err != nil {
		return fmt.Errorf("--run %s: %w", *runDir, err)
	}
	if *asJSON {
		return writeJSON(out, rows)
	}
	bench.WriteOpenings(out, g, rows)
	return nil
}
