package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/builtin"
	"github.com/millzero/millzero/play"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/store"
)

// playerConfig says which model plays and how hard it searches; the play,
// play --web and engine commands share it.
type playerConfig struct {
	Model   string // checkpoint file; "" with Run "" plays the built-in model on nine, random rollouts elsewhere
	Run     string // run directory: its best generation's checkpoint
	Variant string // variant name; "" means the model's variant, or nine without a model
	Sims    int    // search visits per move, in playouts
	Seed    uint64 // seed of the search and the evaluator
	Tables  string // endgame tables directory; "" plays without
	Views   int    // the network's answer a position: the mean over this many turns of the board (arena.Evaluation.Orientations)
}

// addPlayerFlags defines the flags of playerConfig on fs.
func addPlayerFlags(fs *flag.FlagSet, c *playerConfig) {
	fs.StringVar(&c.Model, "model", "", "checkpoint file of the model (default: the built-in nine model; random-rollout search on other variants)")
	fs.StringVar(&c.Run, "run", "", "run directory: play its best generation")
	fs.StringVar(&c.Variant, "variant", "", "variant name or variant file (default: the model's, or nine)")
	fs.IntVar(&c.Sims, "sims", arena.DefaultSpecSettings().Simulations, "search visits per model move")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the search's randomness")
	fs.IntVar(&c.Views, "orientations", 1, "the network answers each position with the mean of this many distinct turns of the board (up to the variant's symmetries, 16 on nine): stronger at the same visits, this many times the network's work")
	fs.StringVar(&c.Tables, "tablebase", "", "endgame tables of the variant (millzero tablebase build, or auto: those a run built in the user cache): table positions are played perfectly")
}

// tablesFor opens the endgame tables of v in dir as a search's prover;
// dir "" is none (a nil Prover, not a nil *tablebase.Set in one).
func tablesFor(v *engine.Variant, dir string) (mcts.Prover, error) {
	if dir == "" {
		return nil, nil
	}
	set, err := openTablesFlag(v, dir)
	if err != nil {
		return nil, err
	}
	return set, nil
}

// openTablesFlag opens the endgame tables of v named by a --tablebase
// flag: a directory, or "auto" for those a run with `tablebase: auto`
// built in the user's cache.
func openTablesFlag(v *engine.Variant, dir string) (*tablebase.Set, error) {
	if dir == run.AutoTables {
		var err error
		if dir, err = run.AutoTablesDir(v); err != nil {
			return nil, fmt.Errorf("--tablebase auto: %w", err)
		}
	}
	set, err := tablebase.Open(v, dir, 0)
	if err != nil {
		return nil, fmt.Errorf("--tablebase: %w", err)
	}
	return set, nil
}

// modelSource is where the evaluator comes from: a checkpoint, or none.
type modelSource struct {
	ck      *model.Checkpoint // nil: random rollouts
	desc    string            // for people: "checkpoint runs/a/models/gen-000003.safetensors (generation 3)"
	variant *engine.Variant   // the run's variant, from its run.yaml, when the run has no model yet
	builtin bool              // the built-in model, chosen because no model was given
}

// withoutBuiltin is m, except that the built-in model, chosen because no
// model was given, gives way to rollouts on a variant it does not fit
// (the engine's rules set by setoption).
func (m modelSource) withoutBuiltin(v *engine.Variant) modelSource {
	if !m.builtin || m.ck.CheckVariant(v) == nil {
		return m
	}
	return modelSource{desc: fmt.Sprintf("random-rollout search (no model given, and the built-in model plays %s only)", builtin.Variant)}
}

// loadSource resolves --model or --run to a checkpoint. A run without a
// model yet plays with rollouts, and says so.
func loadSource(c playerConfig) (modelSource, error) {
	path := c.Model
	switch {
	case c.Model != "" && c.Run != "":
		return modelSource{}, fmt.Errorf("give --model or --run, not both")
	case c.Run != "":
		r, err := store.Fetch(context.Background(), c.Run, "")
		if err != nil {
			return modelSource{}, err
		}
		if _, err := os.Stat(string(r)); err != nil {
			return modelSource{}, fmt.Errorf("--run %s: %w", c.Run, err)
		}
		gen, err := r.Best()
		if errors.Is(err, store.ErrNoModel) {
			src := modelSource{desc: fmt.Sprintf("random-rollout search (run %s has no model yet)", c.Run)}
			if _, err := os.Stat(r.Config()); err == nil {
				if src.variant, err = run.VariantOf(r); err != nil {
					return modelSource{}, fmt.Errorf("--run %s: %w", c.Run, err)
				}
			}
			return src, nil
		}
		if err != nil {
			return modelSource{}, fmt.Errorf("--run %s: %w", c.Run, err)
		}
		path = r.Model(gen)
		if _, err := os.Stat(path); gen == 0 && os.IsNotExist(err) {
			return modelSource{desc: fmt.Sprintf("random-rollout search (run %s is at generation 0, which has no model)", c.Run)}, nil
		}
	case c.Model == "" && (c.Variant == "" || c.Variant == builtin.Variant):
		ck, err := builtin.Nine()
		if err != nil {
			return modelSource{}, err
		}
		return modelSource{ck: ck, desc: builtin.Describe(), builtin: true}, nil
	case c.Model == "":
		return modelSource{desc: fmt.Sprintf("random-rollout search (no --model or --run given, and the built-in model plays %s only)", builtin.Variant)}, nil
	}
	ck, err := model.LoadCheckpoint(path)
	if err != nil {
		return modelSource{}, err
	}
	return modelSource{ck: ck, desc: fmt.Sprintf("checkpoint %s (generation %d)", filepath.Clean(path), ck.Generation)}, nil
}

// variantFor is the variant to play: the one named (a name or a variant
// file), else the model's (rebuilt from the spec its checkpoint carries)
// or its run's, else nine. A model of another spec is an error naming the
// difference.
func (m modelSource) variantFor(name string) (v *engine.Variant, err error) {
	switch v = m.variant; {
	case name != "":
		v, err = run.LoadVariant(name)
	case m.ck != nil:
		v, err = m.ck.Variant()
	case v == nil:
		v, err = engine.Load("nine")
	}
	if err != nil {
		return nil, err
	}
	if m.ck != nil {
		if err := m.ck.CheckVariant(v); err != nil {
			return nil, fmt.Errorf("%s: %w", m.desc, err)
		}
	}
	return v, nil
}

// searchPlayer is the arena player of src in variant v: its network
// (arena.ModelSettings) or random rollouts (arena.ArenaSettings) searching
// sims visits a move; the engine command serves it.
func searchPlayer(v *engine.Variant, src modelSource, sims, views int) (*arena.SearchPlayer, error) {
	if views == 0 {
		views = 1 // a playerConfig that does not say
	}
	if views < 1 || views > v.NumSymmetries() {
		return nil, fmt.Errorf("--orientations %d: want 1..%d (the symmetries of %s)", views, v.NumSymmetries(), v.Name)
	}
	e, set := arena.Evaluation{RandomSymmetry: true}, arena.ArenaSettings(sims)
	desc := fmt.Sprintf("%s, %d visits per move", src.desc, sims)
	if src.ck != nil {
		e.Net, e.Orientations, set = src.ck.Net, views, arena.ModelSettings(v, sims)
		if views > 1 {
			desc += fmt.Sprintf(", %d turns of the board a position", views)
		}
	}
	return arena.NewSearchPlayer(desc, set, e), nil
}

// newBot is the model at the board for a person's game: src's player
// searching sims visits a move.
func newBot(v *engine.Variant, src modelSource, sims, views int, seed uint64, prover mcts.Prover) (*play.Bot, error) {
	if sims < 1 || sims > arena.MaxVisits {
		return nil, fmt.Errorf("--sims %d: want 1..%d", sims, arena.MaxVisits)
	}
	p, err := searchPlayer(v, src, sims, views)
	if err != nil {
		return nil, err
	}
	p.Prover = prover
	return play.NewBot(v, p, p.Name(), seed)
}

// newBotOf is the bot of v: the classical engine opp when not nil (with
// the tables of prover, if any), else newBot's model or rollouts.
func newBotOf(v *engine.Variant, src modelSource, pc playerConfig, opp *arena.Classic, prover mcts.Prover) (*play.Bot, error) {
	if opp == nil {
		return newBot(v, src, pc.Sims, pc.Views, pc.Seed, prover)
	}
	c := *opp
	if t, ok := prover.(classic.Tables); ok && prover != nil {
		c.Tables = t
	}
	return play.NewClassicBot(v, c)
}

// webOptions are play --web's own flags.
type webOptions struct {
	Opponent   *arena.Classic // the classical engine plays instead of a model; nil: the model
	Addr       string         // listen address
	AllowHosts []string       // host names, besides localhost and the listen address's, that requests may give
	MaxGames   int            // games held at once (browser tabs); 0 is play.DefaultMaxGames
}

// webConfig is what play --web serves: src's model, or rollouts in any
// variant. A request names a variant, never a file: the variants served
// are the named ones (the model's alone when there is a model) and v, the
// command line's, under its name even when it came from a file.
func webConfig(pc playerConfig, src modelSource, v *engine.Variant, seats play.Seats, web webOptions, prover mcts.Prover) play.WebConfig {
	c := play.WebConfig{Addr: web.Addr, AllowHosts: web.AllowHosts, MaxGames: web.MaxGames,
		Variant: v, Seat: seats.First(), Humans: seats, Variants: engine.Names(),
		VariantFor: func(name string) (*engine.Variant, error) {
			if name == v.Name {
				return v, nil
			}
			return engine.Load(name) // a name: engine.Load reads no file
		},
		NewBot: func(w *engine.Variant) (*play.Bot, error) {
			if w != v {
				return newBotOf(w, src, pc, web.Opponent, nil) // the tables are v's
			}
			return newBotOf(w, src, pc, web.Opponent, prover)
		}}
	if src.ck != nil {
		c.Variants = []string{v.Name}
	} else if !slices.Contains(c.Variants, v.Name) {
		c.Variants = append(c.Variants, v.Name)
	}
	return c
}
