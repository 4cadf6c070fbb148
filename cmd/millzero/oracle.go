package main

import (
	"context"
	"fmt"
	"io"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/store"
)

func runOracle(args []string, out io.Writer) error {
	fs := newFlags("oracle", "--run DIR [--generation N] [--sims N] [--untrained] [--tablebase DIR]", []string{
		"millzero oracle --run runs/three",
		"millzero oracle --run runs/three --generation 4 --sims 16",
		"millzero oracle --run runs/three --untrained    # the same network shape, random weights",
		"millzero oracle --run runs/nine --tablebase tables/nine    # move accuracy in endgame positions",
	}, out)
	runPath := fs.String("run", "", "run directory of a 3x3 variant (three, three-nodiagonal, three-cross), or of any with --tablebase")
	gen := fs.Int("generation", -1, "model generation to test (-1: the run's best)")
	sims := fs.Int("sims", 0, fmt.Sprintf("search visits per move (fresh each move, no tree reuse); 0: %d, or with --tablebase the run's self-play visits", arena.OracleVisits))
	tables := fs.String("tablebase", "", "endgame tables of the run's variant (millzero tablebase build, or auto: those a run built in the user cache): measure the move accuracy in their positions by material")
	per := fs.Int("positions", 200, "with --tablebase: positions drawn of each material")
	untrained := fs.Bool("untrained", false, "test a randomly initialised network of the run's shape instead")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR")
	}
	if *sims < 0 || *per < 1 {
		return fmt.Errorf("--sims %d, --positions %d: want positive counts", *sims, *per)
	}
	if *sims > 0 {
		if err := checkVisits("sims", *sims); err != nil {
			return err
		}
	}
	dir, err := store.Fetch(context.Background(), *runPath, "")
	if err != nil {
		return err
	}
	o, err := bench.OpenOracle(dir)
	if err != nil {
		return err
	}
	g := *gen
	if g < 0 && !*untrained {
		if g, err = dir.Best(); err != nil {
			return fmt.Errorf("run %s: %w (give --generation)", *runPath, err)
		}
	}
	if err := o.Load(g, *untrained); err != nil {
		return err
	}
	if *sims == 0 && *tables != "" {
		*sims = o.SelfplaySims
	} else if *sims == 0 {
		*sims = arena.OracleVisits
	}
	if *tables == "" {
		return o.Solved(context.Background(), out, *sims)
	}
	set, err := openTables(o.Variant, *tables)
	if err != nil {
		return err
	}
	return arena.TableOracle(context.Background(), out, set, o.Label, o.Net, *sims, *per)
}
