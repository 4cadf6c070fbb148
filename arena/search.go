package arena

import (
	"context"
	"fmt"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// SearchPlayer plays by the PUCT search of package mcts with an evaluator:
// a checkpoint's network (model.Evaluator), or rollouts for a player that
// needs no network. Each game gets its own search tree and evaluator.
type SearchPlayer struct {
	Label    string        // the name in tables and records, e.g. "model:gen-000007"
	Settings mcts.Settings // the search's settings; Simulations is the visits per move (or the cap, with MoveTime). See ArenaSettings
	MoveTime time.Duration // when above 0, search each move for this long instead of a fixed number of visits

	// NewEvaluator makes the evaluator of one game (model.Evaluator is for
	// one search worker, so each game needs its own); it may return a
	// shared one if that is safe to use from many goroutines.
	NewEvaluator func(v *engine.Variant, seed uint64) (mcts.Evaluator, error)
}

// ArenaSettings are the search settings of a match: mcts.DefaultSettings
// with simulations visits per move, no root noise and the most visited
// action always (temperature 0), since the openings already vary the games.
func ArenaSettings(simulations int) mcts.Settings {
	s := mcts.DefaultSettings()
	s.Simulations = simulations
	s.DirichletFraction = 0
	s.Temperature = 0
	s.TemperaturePlies = 0
	s.ReuseTree = true
	return s
}

// Name is the Label.
func (p *SearchPlayer) Name() string { return p.Label }

// NewGame makes the search and evaluator of one game.
func (p *SearchPlayer) NewGame(v *engine.Variant, seed uint64) (GamePlayer, error) {
	if p.NewEvaluator == nil {
		return nil, fmt.Errorf("%s: no evaluator", p.Label)
	}
	if p.MoveTime < 0 {
		return nil, fmt.Errorf("%s: move time %s: want 0 (fixed visits) or more", p.Label, p.MoveTime)
	}
	s, err := mcts.NewSearch(v, p.Settings, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Label, err)
	}
	eval, err := p.NewEvaluator(v, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: evaluator: %w", p.Label, err)
	}
	return &searchGame{p: p, s: s, eval: eval}, nil
}

// searchGame is one game's search; the tree follows the game, reusing the
// subtree of each action played when the settings say so.
type searchGame struct {
	p    *SearchPlayer
	s    *mcts.Search
	eval mcts.Evaluator
}

// Act searches the game's position and plays the most visited action (or
// by the settings' temperature).
func (x *searchGame) Act(ctx context.Context, g *engine.Game) (engine.Action, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	x.s.Follow(g)
	set := x.p.Settings
	if x.p.MoveTime <= 0 {
		if err := x.s.Run(x.eval); err != nil {
			return 0, fmt.Errorf("%s: %w", x.p.Label, err)
		}
	} else if err := x.s.RunFor(ctx, x.eval, set.Simulations, time.Now().Add(x.p.MoveTime), 0); err != nil {
		// Searched in steps until the time is up or the visits reach the
		// cap, so a slow evaluator still answers in time.
		return 0, fmt.Errorf("%s: %w", x.p.Label, err)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	a, err := x.s.Choose(len(g.Actions))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", x.p.Label, err)
	}
	return a, nil
}

func (x *searchGame) Close() error { return nil }
