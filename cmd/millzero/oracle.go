package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine/solve"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/run"
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
	gen := fs.Int("generation", -1, "model generation to test (default: the run's best)")
	sims := fs.Int("sims", 0, "search visits per move (fresh each move, no tree reuse); 0: 16, or with --tablebase the run's self-play visits")
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
	dir, err := store.Fetch(context.Background(), *runPath, "")
	if err != nil {
		return err
	}
	cfg, _, err := run.LoadRunConfig(dir.Config())
	if err != nil {
		return fmt.Errorf("run %s: %w", *runPath, err)
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		return err
	}
	var net *model.Network
	label := ""
	if *untrained {
		net, err = model.New(v.Name, model.NewArch(v, cfg.Model), rand.New(rand.NewPCG(7, 7)))
		label = "untrained"
	} else {
		g := *gen
		if g < 0 {
			if g, err = dir.Best(); err != nil {
				return fmt.Errorf("run %s: %w (give --generation)", *runPath, err)
			}
		}
		var ck *model.Checkpoint
		ck, err = model.LoadCheckpointFor(dir.Model(g), v)
		if ck != nil {
			net = ck.Net
		}
		label = store.ModelName(g)
	}
	if err != nil {
		return err
	}
	if *sims == 0 && *tables != "" {
		*sims = cfg.SelfPlay.Search.Simulations
	} else if *sims == 0 {
		*sims = 16
	}
	if *tables != "" {
		set, err := openTablesFlag(v, *tables)
		if err != nil {
			return err
		}
		return arena.TableOracle(context.Background(), out, set, label, net, *sims, *per)
	}
	table, err := solve.Solve(v)
	if err != nil {
		return err
	}
	games, err := arena.AgainstPerfect(context.Background(), table, networkPlayer(label, net, *sims))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s with %d simulations a move against the perfect player (%s, %d positions solved):\n", label, *sims, v.Name, table.Positions())
	arena.WriteOracleGames(out, label, games)
	return nil
}

// networkPlayer searches with net: exactly sims fresh visits a move, no
// noise, the most visited action.
func networkPlayer(label string, net *model.Network, sims int) arena.Player {
	set := arena.ArenaSettings(sims)
	set.ReuseTree = false
	set.BatchSize = 1
	return arena.NewSearchPlayer(label, set, arena.Evaluation{Net: net})
}
