package play

import (
	"slices"
	"strings"

	"github.com/millzero/millzero/engine"
)

// Game is a game that remembers the seat that played each action (the
// side to move does not alternate: a mill's removal is the same seat's).
type Game struct {
	*engine.Game
	Movers []int // the seat that played each action
}

// NewGame is a game of v from the start.
func NewGame(v *engine.Variant) *Game { return &Game{Game: engine.NewGame(v)} }

// PlayAction makes action a, or says why it is not legal.
func (g *Game) PlayAction(a engine.Action) error {
	seat := int(g.Pos.Side)
	if err := g.Play(a); err != nil {
		return err
	}
	g.Movers = append(g.Movers, seat)
	return nil
}

// UndoSeat takes back seat's last action and every action after it, and
// returns them in the order they were played; none when seat has not
// played.
func (g *Game) UndoSeat(seat int) []engine.Action {
	last := -1
	for i, s := range g.Movers {
		if s == seat {
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	taken := slices.Clone(g.Actions[last:])
	for len(g.Actions) > last {
		g.Undo()
		g.Movers = g.Movers[:len(g.Movers)-1]
	}
	return taken
}

// Format writes actions in the variant's notation, space separated.
func (g *Game) Format(actions []engine.Action) string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = g.V.FormatAction(a)
	}
	return strings.Join(names, " ")
}
