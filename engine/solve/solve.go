// Package solve finds the exact value of small Mill variants (the 3x3
// boards of Three Men's Morris) by retrograde analysis over every position
// reachable from the start. Its Table is the project's strength oracle: the
// value of any such position with perfect play, and the actions that keep
// it.
package solve

import (
	"errors"
	"fmt"

	"github.com/millzero/millzero/engine"
)

// MaxPositions bounds the positions Solve will enumerate (about 40 bytes
// each, plus their edges).
const MaxPositions = 1 << 22

// ErrTooBig is returned (wrapped) for a variant with more positions than
// MaxPositions.
var ErrTooBig = errors.New("too many positions to solve")

// ErrUnsupported is returned (wrapped) for a variant whose rules the
// solver does not model.
var ErrUnsupported = errors.New("variant not supported by the solver")

// ErrUnknownPosition is returned (wrapped) for a position that is not
// reachable from the variant's start.
var ErrUnknownPosition = errors.New("position not reachable from the start")

// Value is a position's result with perfect play and how far away it is.
type Value struct {
	Result engine.Result // the result with perfect play: a win for a seat, or Draw
	Plies  int           // plies to the end: the winner's fastest win against the loser's longest defence; 0 for a draw
}

// Table is the solved variant: the value of every position reachable from
// the start. It is immutable; share it freely.
//
// The values are those of the rules when the game may go on for ever, and
// endless play is a draw (the repetition rule): the positions neither
// side can force to a win are draws. The max_plies cap is not modelled: a
// win is a win however many plies it takes (on the 3x3 boards every win
// takes a few dozen at most).
type Table struct {
	v      *engine.Variant
	index  map[engine.Position]int32 // position (counters cleared) -> number
	result []engine.Result
	plies  []uint16
}

// key is p with what does not decide the legal actions, the result or the
// value cleared: the counters of plies.
func key(p *engine.Position) engine.Position {
	k := *p
	k.Ply, k.Quiet, k.NoCapture, k.Endgame = 0, 0, 0, 0
	return k
}

// Solve enumerates the positions reachable from v's start and solves them
// by retrograde analysis. The variant must have two players and no rule
// that counts plies (no_capture_draw and endgame_draw off): then a
// position's value depends on the position alone.
func Solve(v *engine.Variant) (*Table, error) {
	switch {
	case v.Players != 2:
		return nil, fmt.Errorf("solve %s: %d players: %w (want 2)", v.Name, v.Players, ErrUnsupported)
	case v.NoCaptureDraw != 0:
		return nil, fmt.Errorf("solve %s: no_capture_draw %d: %w (a ply counter would be part of the position)", v.Name, v.NoCaptureDraw, ErrUnsupported)
	case v.EndgameDraw != 0:
		return nil, fmt.Errorf("solve %s: endgame_draw %d: %w (a ply counter would be part of the position)", v.Name, v.EndgameDraw, ErrUnsupported)
	}
	t := &Table{v: v, index: map[engine.Position]int32{}}
	g, err := t.enumerate()
	if err != nil {
		return nil, err
	}
	t.retrograde(g)
	return t, nil
}

// graph is the positions' moves: the children of position i are
// child[off[i]:off[i+1]], with the positions themselves.
type graph struct {
	pos   []engine.Position
	off   []int32
	child []int32
}

// enumerate numbers every position reachable from the start, breadth
// first, and records each one's children.
func (t *Table) enumerate() (*graph, error) {
	v := t.v
	g := &graph{off: []int32{0}}
	add := func(p engine.Position) (int32, error) {
		k := key(&p)
		if i, ok := t.index[k]; ok {
			return i, nil
		}
		if len(g.pos) >= MaxPositions {
			return 0, fmt.Errorf("solve %s: more than %d positions: %w", v.Name, MaxPositions, ErrTooBig)
		}
		i := int32(len(g.pos))
		t.index[k] = i
		g.pos = append(g.pos, k)
		return i, nil
	}
	if _, err := add(v.Start()); err != nil {
		return nil, err
	}
	var buf [engine.MaxActions]engine.Action
	for i := 0; i < len(g.pos); i++ {
		p := g.pos[i]
		for _, a := range v.Legal(&p, buf[:0]) {
			c, err := add(v.Apply(&p, a))
			if err != nil {
				return nil, err
			}
			g.child = append(g.child, c)
		}
		g.off = append(g.off, int32(len(g.child)))
	}
	return g, nil
}

// retrograde solves the graph from its ends: a position is won for its
// mover as soon as one child is, and lost when every child is won for
// another seat. Processing in order of distance to the end gives the
// fastest wins and the longest losses. What is left is drawn.
func (t *Table) retrograde(g *graph) {
	v := t.v
	n := len(g.pos)
	t.result = make([]engine.Result, n)
	t.plies = make([]uint16, n)
	left := make([]int32, n)
	parentOff := make([]int32, n+1)
	for _, c := range g.child {
		parentOff[c+1]++
	}
	for i := 0; i < n; i++ {
		parentOff[i+1] += parentOff[i]
	}
	parent := make([]int32, len(g.child))
	fill := append([]int32(nil), parentOff[:n]...)
	for i := 0; i < n; i++ {
		for _, c := range g.child[g.off[i]:g.off[i+1]] {
			parent[fill[c]] = int32(i)
			fill[c]++
		}
	}
	var queue []int32
	for i := 0; i < n; i++ {
		left[i] = g.off[i+1] - g.off[i]
		r, _ := v.Outcome(&g.pos[i])
		switch {
		case r == engine.Draw:
			t.result[i] = engine.Draw
		case r != engine.Ongoing:
			t.result[i] = r
			queue = append(queue, int32(i))
		}
	}
	for q := 0; q < len(queue); q++ {
		c := queue[q]
		winner, _ := t.result[c].Winner()
		depth := t.plies[c] + 1
		for _, i := range parent[parentOff[c]:parentOff[c+1]] {
			if t.result[i] != engine.Ongoing {
				continue
			}
			mover := int(g.pos[i].Side)
			if winner == mover {
				t.result[i], t.plies[i] = t.result[c], depth
				queue = append(queue, i)
				continue
			}
			left[i]--
			if left[i] == 0 {
				t.result[i], t.plies[i] = t.result[c], depth
				queue = append(queue, i)
			}
		}
	}
	for i := range t.result {
		if t.result[i] == engine.Ongoing {
			t.result[i] = engine.Draw
		}
	}
}

// Variant is the solved variant.
func (t *Table) Variant() *engine.Variant { return t.v }

// Positions is the number of positions solved.
func (t *Table) Positions() int { return len(t.result) }

// Value is p's value with perfect play from here on. A position whose game
// is over has its result as value, whatever rule ended it.
func (t *Table) Value(p *engine.Position) (Value, error) {
	if p.Result != engine.Ongoing {
		return Value{Result: p.Result}, nil
	}
	i, ok := t.index[key(p)]
	if !ok {
		return Value{}, fmt.Errorf("solve %s: value of %s: %w", t.v.Name, t.v.FormatPosition(p), ErrUnknownPosition)
	}
	return Value{Result: t.result[i], Plies: int(t.plies[i])}, nil
}

// rank orders values for seat: its wins, fastest first, then draws, then
// its losses, slowest first. Higher is better.
func rank(val Value, seat int) int {
	w, won := val.Result.Winner()
	switch {
	case !won:
		return 0
	case w == seat:
		return 1<<20 - val.Plies
	}
	return -(1 << 20) + val.Plies
}

// Best appends to buf[:0] the legal actions of p that perfect play
// chooses: for the seat that wins, those that win fastest; for the seat
// that loses, those that lose slowest; in a draw, those that keep the
// draw. They keep p's value. It is empty only when the game is over.
func (t *Table) Best(p *engine.Position, buf []engine.Action) ([]engine.Action, error) {
	buf = buf[:0]
	if _, err := t.Value(p); err != nil {
		return buf, err
	}
	seat := int(p.Side)
	best := 0
	var legal [engine.MaxActions]engine.Action
	for _, a := range t.v.Legal(p, legal[:0]) {
		q := t.v.Apply(p, a)
		cv, err := t.Value(&q)
		if err != nil {
			return buf[:0], fmt.Errorf("solve %s: child by %s: %w", t.v.Name, t.v.FormatAction(a), err)
		}
		r := rank(cv, seat)
		switch {
		case len(buf) == 0 || r > best:
			buf, best = append(buf[:0], a), r
		case r == best:
			buf = append(buf, a)
		}
	}
	return buf, nil
}
