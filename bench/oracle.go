package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/solve"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/store"
)

// Oracle is a run's model measured against exact play: the solver's on
// the 3x3 variants (Solved), the endgame tables' on any (arena.TableOracle).
type Oracle struct {
	Variant      *engine.Variant
	Net          *model.Network // nil until Load
	Label        string         // the model's name: its generation's, or "untrained"
	SelfplaySims int            // the run's self-play visits a move

	dir   store.Dir
	shape model.Config
}

// OpenOracle is the Oracle of the run in dir, its variant and settings
// read from the run's config; Load chooses the model.
func OpenOracle(dir store.Dir) (*Oracle, error) {
	cfg, _, err := runconfig.LoadRunConfig(dir.Config())
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		return nil, err
	}
	return &Oracle{Variant: v, SelfplaySims: cfg.SelfPlay.Search.Simulations, dir: dir, shape: cfg.Model}, nil
}

// Load loads the model of generation gen, or with untrained makes a
// randomly initialised network of the run's shape.
func (o *Oracle) Load(gen int, untrained bool) error {
	if untrained {
		net, err := model.New(o.Variant.Name, model.NewArch(o.Variant, o.shape), rand.New(rand.NewPCG(7, 7)))
		o.Net, o.Label = net, "untrained"
		return err
	}
	ck, err := model.LoadCheckpointFor(o.dir.Model(gen), o.Variant)
	if err != nil {
		return err
	}
	o.Net, o.Label = ck.Net, store.ModelName(gen)
	return nil
}

// Solved plays the model, sims fresh visits a move, against the perfect
// player from every opening (a 3x3 variant, solved exactly) and prints
// the games.
func (o *Oracle) Solved(ctx context.Context, out io.Writer, sims int) error {
	table, err := solve.Solve(o.Variant)
	if err != nil {
		return err
	}
	games, err := arena.AgainstPerfect(ctx, table, NetworkPlayer(o.Label, o.Net, sims))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s with %d simulations a move against the perfect player (%s, %d positions solved):\n", o.Label, sims, o.Variant.Name, table.Positions())
	arena.WriteOracleGames(out, o.Label, games)
	return nil
}

// NetworkPlayer searches with net: exactly sims fresh visits a move, no
// noise, the most visited action.
func NetworkPlayer(label string, net *model.Network, sims int) arena.Player {
	set := arena.ArenaSettings(sims)
	set.ReuseTree = false
	set.BatchSize = 1
	return arena.NewSearchPlayer(label, set, arena.Evaluation{Net: net})
}
