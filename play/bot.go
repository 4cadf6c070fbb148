// Package play is a person's game against a model: where the model comes
// from (Source), the model at the board (Bot), a game that remembers who
// played each action (Game), the game as text (Text), the web page's
// server (Web) and the engine protocol's players for GUIs (EngineServer).
// The play and engine commands wire it to flags.
package play

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// Bot is the model at the board: a search that follows one game and picks
// the most visited action, or the classical engine (NewClassicBot). It is
// used by one goroutine at a time.
type Bot struct {
	V       *engine.Variant
	Desc    string // who the model is, for people
	game    *arena.SearchGame
	classic *arena.ClassicGame // the classical engine instead of game
	nodes   int                // nodes of the classical engine's last search
}

// NewClassicBot makes the bot of variant v that plays the classical
// engine p (two-player variants only).
func NewClassicBot(v *engine.Variant, p arena.Classic) (*Bot, error) {
	gp, err := p.NewGame(v, 0)
	if err != nil {
		return nil, err
	}
	return &Bot{V: v, Desc: "the classical engine " + p.Name(), classic: gp.(*arena.ClassicGame)}, nil
}

// NewBot makes the bot of variant v that plays p, described as desc.
func NewBot(v *engine.Variant, p *arena.SearchPlayer, desc string, seed uint64) (*Bot, error) {
	game, err := p.NewSearchGame(v, seed)
	if err != nil {
		return nil, err
	}
	return &Bot{V: v, Desc: desc, game: game}, nil
}

// Think searches the game's position (see arena.SearchGame.Think); sims 0
// is the player's visits.
func (b *Bot) Think(ctx context.Context, g *engine.Game, sims int, moveTime time.Duration) (*mcts.Result, error) {
	if b.classic != nil {
		return b.thinkClassic(ctx, g, moveTime)
	}
	return b.game.Think(ctx, g, sims, moveTime)
}

// thinkClassic searches with the classical engine for its own time or
// depth (moveTime, when set, instead) and reads the answer as a search
// result: its one choice, the nodes as visits, and the score as an
// expected score by the usual logistic reading, 1/(1+10^(-cp/400)), cp in
// hundredths of a piece.
func (b *Bot) thinkClassic(ctx context.Context, g *engine.Game, moveTime time.Duration) (*mcts.Result, error) {
	res, err := b.classic.Analyse(ctx, g, classic.Limits{MoveTime: moveTime}, nil)
	if err != nil {
		return nil, err
	}
	b.nodes = int(res.Nodes)
	seat := int(g.Pos.Side)
	score := float32(1 / (1 + math.Pow(10, -float64(res.Score)/400)))
	r := &mcts.Result{Actions: []engine.Action{res.Best}, Visits: []int32{1}, Policy: []float32{1}, Priors: []float32{1},
		Visited: int(min(res.Nodes, math.MaxInt32)), Best: res.Best}
	r.Value[seat], r.Value[1-seat] = score, 1-score
	return r, nil
}

// Act searches and returns the most visited action with the result.
func (b *Bot) Act(ctx context.Context, g *engine.Game, sims int, moveTime time.Duration) (engine.Action, *mcts.Result, error) {
	res, err := b.Think(ctx, g, sims, moveTime)
	if err != nil {
		return 0, nil, err
	}
	return res.Best, res, nil
}

// Nodes is the number of nodes in the bot's search tree.
func (b *Bot) Nodes() int {
	if b.classic != nil {
		return b.nodes
	}
	return b.game.Nodes()
}

// Choice is one root action of a search, for display.
type Choice struct {
	Action string  `json:"action"` // in the variant's notation
	Visits int     `json:"visits"` // root visits
	Share  float64 `json:"share"`  // visits over all root visits
	Prior  float64 `json:"prior"`  // the evaluator's prior
}

// TopChoices is up to n root actions of res, most visited first, the
// search's choice (res.Best) first of those with as many visits.
func TopChoices(v *engine.Variant, res *mcts.Result, n int) []Choice {
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
	out := make([]Choice, 0, min(n, len(idx)))
	for _, i := range idx[:min(n, len(idx))] {
		c := Choice{Action: v.FormatAction(res.Actions[i]), Visits: int(res.Visits[i]), Prior: float64(res.Priors[i])}
		if total > 0 {
			c.Share = float64(res.Visits[i]) / float64(total)
		}
		out = append(out, c)
	}
	return out
}

// ParseSeat reads a seat: white or black with two players, or its number
// 1..Players.
func ParseSeat(v *engine.Variant, s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if v.Players == 2 {
		switch t {
		case "white", "w":
			return 0, nil
		case "black", "b":
			return 1, nil
		}
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(t, "seat")); err == nil && n >= 1 && n <= v.Players {
		return n - 1, nil
	}
	if v.Players == 2 {
		return 0, fmt.Errorf("seat %q: want white, black, 1 or 2", s)
	}
	return 0, fmt.Errorf("seat %q: want a seat number 1..%d", s, v.Players)
}
