package play

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/builtin"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/store"
)

// PlayerConfig says which model plays and how hard it searches; the play,
// play --web and engine commands fill it from the same flags.
type PlayerConfig struct {
	Model   string // checkpoint file; "" with Run "" plays the built-in model on nine, random rollouts elsewhere
	Run     string // run directory: its best generation's checkpoint
	Variant string // variant name; "" means the model's variant, or nine without a model
	Sims    int    // search visits per move, in playouts
	Seed    uint64 // seed of the search and the evaluator
	Tables  string // endgame tables directory; "" plays without
	Views   int    // the network's answer a position: the mean over this many turns of the board (arena.Evaluation.Orientations)
}

// Source is where a player's evaluator comes from: a checkpoint, or none.
type Source struct {
	Checkpoint *model.Checkpoint // nil: random rollouts
	Desc       string            // for people: "checkpoint runs/a/models/gen-000003.safetensors (generation 3)"
	Variant    *engine.Variant   // the run's variant, from its run.yaml, when the run has no model yet
	Builtin    bool              // the built-in model, chosen because no model was given
}

// WithoutBuiltin is m, except that the built-in model, chosen because no
// model was given, gives way to rollouts on a variant it does not fit
// (the engine's rules set by setoption).
func (m Source) WithoutBuiltin(v *engine.Variant) Source {
	if !m.Builtin || m.Checkpoint.CheckVariant(v) == nil {
		return m
	}
	return Source{Desc: fmt.Sprintf("random-rollout search (no model given, and the built-in model plays %s only)", builtin.Variant)}
}

// LoadSource resolves c's Model or Run to a checkpoint. A run without a
// model yet plays with rollouts, and says so.
func LoadSource(c PlayerConfig) (Source, error) {
	path := c.Model
	switch {
	case c.Model != "" && c.Run != "":
		return Source{}, fmt.Errorf("a model and a run: give one, not both")
	case c.Run != "":
		r, err := store.Fetch(context.Background(), c.Run, "")
		if err != nil {
			return Source{}, err
		}
		if _, err := os.Stat(string(r)); err != nil {
			return Source{}, fmt.Errorf("run %s: %w", c.Run, err)
		}
		gen, err := r.Best()
		if errors.Is(err, store.ErrNoModel) {
			src := Source{Desc: fmt.Sprintf("random-rollout search (run %s has no model yet)", c.Run)}
			if _, err := os.Stat(r.Config()); err == nil {
				if src.Variant, err = runconfig.VariantOf(r); err != nil {
					return Source{}, fmt.Errorf("run %s: %w", c.Run, err)
				}
			}
			return src, nil
		}
		if err != nil {
			return Source{}, fmt.Errorf("run %s: %w", c.Run, err)
		}
		path = r.Model(gen)
		if _, err := os.Stat(path); gen == 0 && os.IsNotExist(err) {
			return Source{Desc: fmt.Sprintf("random-rollout search (run %s is at generation 0, which has no model)", c.Run)}, nil
		}
	case c.Model == arena.BuiltinModel, c.Model == "" && (c.Variant == "" || c.Variant == builtin.Variant):
		ck, err := builtin.Nine()
		if err != nil {
			return Source{}, err
		}
		return Source{Checkpoint: ck, Desc: builtin.Describe(), Builtin: true}, nil
	case c.Model == "":
		return Source{Desc: fmt.Sprintf("random-rollout search (no --model or --run given, and the built-in model plays %s only)", builtin.Variant)}, nil
	}
	ck, err := model.LoadCheckpoint(path)
	if err != nil {
		return Source{}, err
	}
	return Source{Checkpoint: ck, Desc: fmt.Sprintf("checkpoint %s (generation %d)", filepath.Clean(path), ck.Generation)}, nil
}

// VariantFor is the variant to play: the one named (a name or a variant
// file), else the model's (rebuilt from the spec its checkpoint carries)
// or its run's, else nine. A model of another spec is an error naming the
// difference.
func (m Source) VariantFor(name string) (v *engine.Variant, err error) {
	switch v = m.Variant; {
	case name != "":
		v, err = engine.LoadNameOrFile(name)
	case m.Checkpoint != nil:
		v, err = m.Checkpoint.Variant()
	case v == nil:
		v, err = engine.Load("nine")
	}
	if err != nil {
		return nil, err
	}
	if m.Checkpoint != nil {
		if err := m.Checkpoint.CheckVariant(v); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Desc, err)
		}
	}
	return v, nil
}

// SearchPlayer is the arena player of m in variant v: its network
// (arena.ModelSettings) or random rollouts (arena.ArenaSettings)
// searching sims visits a move, the network's answer the mean of views
// turns of the board (0: one).
func (m Source) SearchPlayer(v *engine.Variant, sims, views int) (*arena.SearchPlayer, error) {
	if views == 0 {
		views = 1 // a PlayerConfig that does not say
	}
	if views < 1 || views > v.NumSymmetries() {
		return nil, fmt.Errorf("orientations %d: want 1..%d (the symmetries of %s)", views, v.NumSymmetries(), v.Name)
	}
	e, set := arena.Evaluation{RandomSymmetry: true}, arena.ArenaSettings(sims)
	desc := fmt.Sprintf("%s, %d visits per move", m.Desc, sims)
	if m.Checkpoint != nil {
		e.Net, e.Orientations, set = m.Checkpoint.Net, views, arena.ModelSettings(v, sims)
		if views > 1 {
			desc += fmt.Sprintf(", %d turns of the board a position", views)
		}
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	return arena.NewSearchPlayer(desc, set, e), nil
}

// NewSourceBot is the model at the board for a person's game: src's
// player searching sims visits a move, with the tables of prover (nil:
// none).
func NewSourceBot(v *engine.Variant, src Source, sims, views int, seed uint64, prover mcts.Prover) (*Bot, error) {
	p, err := src.SearchPlayer(v, sims, views)
	if err != nil {
		return nil, err
	}
	p.Prover = prover
	return NewBot(v, p, p.Name(), seed)
}

// ParseOpponent is the classical engine the opponent spec names
// (classic@TIME or classic:N) for variant v; "" is none (nil).
func ParseOpponent(spec string, v *engine.Variant) (*arena.Classic, error) {
	if spec == "" {
		return nil, nil
	}
	p, err := arena.ParsePlayer(spec, v, arena.DefaultSpecSettings())
	if err != nil {
		return nil, err
	}
	c, ok := p.(arena.Classic)
	if !ok {
		return nil, fmt.Errorf("%q is not the classical engine: want classic@TIME or classic:N", spec)
	}
	return &c, nil
}

// NewOpponentBot is the bot of v: the classical engine opp when not nil
// (with the tables of prover, if any), else NewSourceBot's model or
// rollouts as pc says.
func NewOpponentBot(v *engine.Variant, src Source, pc PlayerConfig, opp *arena.Classic, prover mcts.Prover) (*Bot, error) {
	if opp == nil {
		return NewSourceBot(v, src, pc.Sims, pc.Views, pc.Seed, prover)
	}
	c := *opp
	if t, ok := prover.(classic.Tables); ok && prover != nil {
		c.Tables = t
	}
	return NewClassicBot(v, c)
}

// WebOptions are the web page's own settings.
type WebOptions struct {
	Opponent   *arena.Classic // the classical engine plays instead of a model; nil: the model
	Addr       string         // listen address
	AllowHosts []string       // host names, besides localhost and the listen address's, that requests may give
	MaxGames   int            // games held at once (browser tabs); 0 is DefaultMaxGames
}

// NewWebConfig is what the web page serves: src's model, or rollouts in
// any variant. A request names a variant, never a file: the variants
// served are the named ones (the model's alone when there is a model) and
// v, the command line's, under its name even when it came from a file.
func NewWebConfig(pc PlayerConfig, src Source, v *engine.Variant, seats Seats, web WebOptions, prover mcts.Prover) WebConfig {
	c := WebConfig{Addr: web.Addr, AllowHosts: web.AllowHosts, MaxGames: web.MaxGames,
		Variant: v, Seat: seats.First(), Humans: seats, Variants: engine.Names(),
		VariantFor: func(name string) (*engine.Variant, error) {
			if name == v.Name {
				return v, nil
			}
			return engine.Load(name) // a name: engine.Load reads no file
		},
		NewBot: func(w *engine.Variant) (*Bot, error) {
			if w != v {
				return NewOpponentBot(w, src, pc, web.Opponent, nil) // the tables are v's
			}
			return NewOpponentBot(w, src, pc, web.Opponent, prover)
		}}
	if src.Checkpoint != nil {
		c.Variants = []string{v.Name}
	} else if !slices.Contains(c.Variants, v.Name) {
		c.Variants = append(c.Variants, v.Name)
	}
	return c
}
