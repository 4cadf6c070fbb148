package play

import (
	"fmt"
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

// UndoSeats takes back the last action of any seat in seats and every
// action after it (UndoSeat of that seat): with people on several seats,
// the last person's action and the model's replies. It returns none when
// no seat of seats has played.
func (g *Game) UndoSeats(seats Seats) []engine.Action {
	for i := len(g.Movers) - 1; i >= 0; i-- {
		if seats.Has(g.Movers[i]) {
			return g.UndoSeat(g.Movers[i])
		}
	}
	return nil
}

// Format writes actions in the variant's notation, space separated.
func (g *Game) Format(actions []engine.Action) string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = g.V.FormatAction(a)
	}
	return strings.Join(names, " ")
}

// PointKey draws every point's name where it stands on the board, followed
// by the symbol of the piece on it (+ for none).
func PointKey(v *engine.Variant, p *engine.Position) string {
	b := v.Board
	rows := make([][]byte, b.Size)
	for i := range rows {
		rows[i] = []byte(strings.Repeat(" ", 5*b.Size))
	}
	for pt := 0; pt < b.Points; pt++ {
		c := byte('+')
		if o := p.Owner(pt); o >= 0 {
			c = engine.SeatChars[o]
		}
		cell := fmt.Sprintf("%s%c", b.Name(pt), c)
		copy(rows[b.Size-1-b.Y[pt]][5*b.X[pt]:], cell)
	}
	var sb strings.Builder
	sb.WriteString("Points (name and piece):\n")
	for _, r := range rows {
		sb.WriteString("   " + strings.TrimRight(string(r), " ") + "\n")
	}
	return sb.String()
}
