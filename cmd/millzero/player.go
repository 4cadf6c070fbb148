package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/run"
)

// playerConfig says which model plays and how hard it searches; the play,
// play --web and engine commands share it.
type playerConfig struct {
	Model   string // checkpoint file; "" with Run "" plays with random rollouts
	Run     string // run directory: its best generation's checkpoint
	Variant string // variant name; "" means the model's variant, or nine without a model
	Sims    int    // search visits per move, in playouts
	Seed    uint64 // seed of the search and the evaluator
}

// addPlayerFlags defines the flags of playerConfig on fs.
func addPlayerFlags(fs *flag.FlagSet, c *playerConfig) {
	fs.StringVar(&c.Model, "model", "", "checkpoint file of the model (default: random-rollout search)")
	fs.StringVar(&c.Run, "run", "", "run directory: play its best generation")
	fs.StringVar(&c.Variant, "variant", "", "variant name (default: the model's, or nine)")
	fs.IntVar(&c.Sims, "sims", arena.DefaultSpecSettings().Simulations, "search visits per model move")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the search's randomness")
}

// modelSource is where the evaluator comes from: a checkpoint, or none.
type modelSource struct {
	ck      *model.Checkpoint // nil: random rollouts
	desc    string            // for people: "checkpoint runs/a/models/gen-000003.safetensors (generation 3)"
	variant string            // the run's variant, from its run.yaml, when the run has no model yet
}

// loadSource resolves --model or --run to a checkpoint. A run without a
// model yet plays with rollouts, and says so.
func loadSource(c playerConfig) (modelSource, error) {
	path := c.Model
	switch {
	case c.Model != "" && c.Run != "":
		return modelSource{}, fmt.Errorf("give --model or --run, not both")
	case c.Run != "":
		r := run.Dir(c.Run)
		if _, err := os.Stat(string(r)); err != nil {
			return modelSource{}, fmt.Errorf("--run %s: %w", c.Run, err)
		}
		gen, err := r.Best()
		if errors.Is(err, run.ErrNoModel) {
			src := modelSource{desc: fmt.Sprintf("random-rollout search (run %s has no model yet)", c.Run)}
			if _, err := os.Stat(r.Config()); err == nil {
				rc, _, err := run.LoadConfig(r.Config())
				if err != nil {
					return modelSource{}, fmt.Errorf("--run %s: %w", c.Run, err)
				}
				src.variant = rc.Variant
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
	case c.Model == "":
		return modelSource{desc: "random-rollout search (no --model or --run given)"}, nil
	}
	ck, err := model.LoadCheckpoint(path)
	if err != nil {
		return modelSource{}, err
	}
	return modelSource{ck: ck, desc: fmt.Sprintf("checkpoint %s (generation %d)", filepath.Clean(path), ck.Generation)}, nil
}

// variantFor is the variant to play: the one named, else the model's (or
// its run's), else nine. A model of another variant is an error.
func (m modelSource) variantFor(name string) (*engine.Variant, error) {
	if name == "" && m.ck != nil {
		name = m.ck.Net.Variant
	}
	if name == "" {
		name = m.variant
	}
	if name == "" {
		name = "nine"
	}
	v, err := engine.Load(name)
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

// searchPlayer is the arena player of src: its network (or random
// rollouts) searching sims visits a move; the engine command serves it.
func searchPlayer(src modelSource, sims int) *arena.SearchPlayer {
	e := arena.Evaluation{RandomSymmetry: true}
	if src.ck != nil {
		e.Net = src.ck.Net
	}
	return arena.NewSearchPlayer(fmt.Sprintf("%s, %d visits per move", src.desc, sims), arena.ArenaSettings(sims), e)
}

// modelPlayer is the model at the board: a search that follows one game
// and picks the most visited action. It is used by one goroutine at a time.
type modelPlayer struct {
	v    *engine.Variant
	src  modelSource
	sims int
	game *arena.SearchGame
}

// newModelPlayer makes the player of variant v from source src.
func newModelPlayer(v *engine.Variant, src modelSource, sims int, seed uint64) (*modelPlayer, error) {
	if sims < 1 {
		return nil, fmt.Errorf("sims %d: want 1 or more", sims)
	}
	game, err := searchPlayer(src, sims).NewSearchGame(v, seed)
	if err != nil {
		return nil, err
	}
	return &modelPlayer{v: v, src: src, sims: sims, game: game}, nil
}

// describe says who the model is, for people.
func (m *modelPlayer) describe() string {
	return fmt.Sprintf("%s, %d visits per move", m.src.desc, m.sims)
}

// think searches the game's position (see arena.SearchGame.Think); sims 0
// is the player's visits.
func (m *modelPlayer) think(ctx context.Context, g *engine.Game, sims int, moveTime time.Duration) (*mcts.Result, error) {
	return m.game.Think(ctx, g, sims, moveTime)
}

// act searches and returns the most visited action with the result.
func (m *modelPlayer) act(ctx context.Context, g *engine.Game, sims int, moveTime time.Duration) (engine.Action, *mcts.Result, error) {
	res, err := m.think(ctx, g, sims, moveTime)
	if err != nil {
		return 0, nil, err
	}
	return res.Best, res, nil
}

// choice is one root action of a search, for display.
type choice struct {
	Action string  `json:"action"` // in the variant's notation
	Visits int     `json:"visits"` // root visits
	Share  float64 `json:"share"`  // visits over all root visits
	Prior  float64 `json:"prior"`  // the evaluator's prior
}

// topChoices is up to n root actions of res, most visited first, the
// search's choice (res.Best) first of those with as many visits.
func topChoices(v *engine.Variant, res *mcts.Result, n int) []choice {
	idx := make([]int, len(res.Actions))
	total := 0
	for i := range idx {
		idx[i] = i
		total += int(res.Visits[i])
	}
	sort.SliceStable(idx, func(a, b int) bool {
		va, vb := res.Visits[idx[a]], res.Visits[idx[b]]
		if va != vb {
			return va > vb
		}
		return res.Actions[idx[a]] == res.Best // the search's choice first among equals
	})
	out := make([]choice, 0, min(n, len(idx)))
	for _, i := range idx[:min(n, len(idx))] {
		c := choice{Action: v.FormatAction(res.Actions[i]), Visits: int(res.Visits[i]), Prior: float64(res.Priors[i])}
		if total > 0 {
			c.Share = float64(res.Visits[i]) / float64(total)
		}
		out = append(out, c)
	}
	return out
}
