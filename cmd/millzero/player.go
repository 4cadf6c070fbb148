package main

import (
	"flag"
	"fmt"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/play"
	"github.com/millzero/millzero/runconfig"
)

// addPlayerFlags defines the flags of a play.PlayerConfig on fs; the
// play, play --web and engine commands share them.
func addPlayerFlags(fs *flag.FlagSet, c *play.PlayerConfig) {
	fs.StringVar(&c.Model, "model", "", "checkpoint file of the model (default: the built-in nine model; random-rollout search on other variants)")
	fs.StringVar(&c.Run, "run", "", "run directory: play its best generation")
	fs.StringVar(&c.Variant, "variant", "", "variant name or variant file (default: the model's, or nine)")
	fs.IntVar(&c.Sims, "sims", arena.DefaultVisits, "search visits per model move")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the search's randomness")
	fs.IntVar(&c.Views, "orientations", 1, "the network answers each position with the mean of this many distinct turns of the board (up to the variant's symmetries, 16 on nine): stronger at the same visits, this many times the network's work")
	fs.StringVar(&c.Tables, "tablebase", "", "endgame tables of the variant (millzero tablebase build, or auto: those a run built in the user cache): table positions are played perfectly")
}

// checkVisits refuses a count of visits that a search's settings would
// refuse (1..mcts.MaxVisits), naming the flag that gave it.
func checkVisits(flag string, n int) error {
	set := mcts.DefaultSettings()
	set.Simulations = n
	if err := set.Validate(); err != nil {
		return fmt.Errorf("--%s %d: want 1..%d (the most visits a move may take)", flag, n, mcts.MaxVisits)
	}
	return nil
}

// openTables opens the endgame tables that a --tablebase flag names for v
// (runconfig.OpenTables: a directory, or auto's in the user cache, never
// built here), naming the flag in its error; "" is none (nil).
func openTables(v *engine.Variant, dir string) (*tablebase.Set, error) {
	set, err := runconfig.OpenTables(v, dir, false, nil)
	if err != nil {
		return nil, fmt.Errorf("--tablebase %s: %w", dir, err)
	}
	return set, nil
}
