package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Game is a game in progress with the history the repetition rule needs.
type Game struct {
	V       *Variant
	Pos     Position
	Actions []Action   // every action played, in order
	Hashes  []uint64   // the hash of every position before Pos, oldest first
	past    []Position // the positions before Pos, for Undo
}

// NewGame starts a game of v.
func NewGame(v *Variant) *Game {
	return &Game{V: v, Pos: v.Start()}
}

// NewGameFrom starts a game of v from position p, with no history.
func NewGameFrom(v *Variant, p Position) *Game {
	return &Game{V: v, Pos: p}
}

// NewGameAt starts a game of v from a Sanmill FEN (24-point boards), else
// from a position string, else (both "") from the start.
func NewGameAt(v *Variant, fen, pos string) (*Game, error) {
	switch {
	case fen != "":
		p, err := v.ParseFEN(fen)
		if err != nil {
			return nil, err
		}
		return NewGameFrom(v, p), nil
	case pos != "":
		p, err := v.ParsePosition(pos)
		if err != nil {
			return nil, err
		}
		return NewGameFrom(v, p), nil
	}
	return NewGame(v), nil
}

// PlayRandom plays n uniformly random legal actions of rng on g, and
// reports whether all n were played with the game still going (false: an
// action ended it, or a position had none).
func (g *Game) PlayRandom(n int, rng *rand.Rand) (bool, error) {
	var buf [MaxActions]Action
	for range n {
		legal := g.V.Legal(&g.Pos, buf[:0])
		if len(legal) == 0 {
			return false, nil
		}
		if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
			return false, err
		}
		if r, _ := g.Outcome(); r != Ongoing {
			return false, nil
		}
	}
	return true, nil
}

// PlayAll plays the actions of moves, space separated, in the variant's
// notation; an error names the first it cannot play ("action 2: ...").
func (g *Game) PlayAll(moves string) error {
	for i, m := range strings.Fields(moves) {
		if err := g.PlayString(m); err != nil {
			return fmt.Errorf("action %d: %w", i+1, err)
		}
	}
	return nil
}

// Outcome is the game's result by every rule, repetition included.
func (g *Game) Outcome() (Result, Reason) {
	if r, why := g.V.Outcome(&g.Pos); r != Ongoing {
		return r, why
	}
	if g.V.repeated(&g.Pos, g.Hashes) {
		return Draw, RepetitionDraw
	}
	return Ongoing, NotOver
}

// Play makes action a, or says why it is not legal.
func (g *Game) Play(a Action) error {
	if r, why := g.Outcome(); r != Ongoing {
		return fmt.Errorf("action %s: the game is over (%s, %s)", g.V.FormatAction(a), r, why)
	}
	if !g.V.IsLegal(&g.Pos, a) {
		return fmt.Errorf("action %s: %w", g.V.FormatAction(a), ErrIllegal)
	}
	g.play(a)
	return nil
}

// PlayString parses an action in the variant's notation and plays it.
func (g *Game) PlayString(s string) error {
	if r, why := g.Outcome(); r != Ongoing {
		return fmt.Errorf("action %q: the game is over (%s, %s)", s, r, why)
	}
	a, err := g.V.ParseAction(&g.Pos, s)
	if err != nil {
		return err
	}
	g.play(a)
	return nil
}

func (g *Game) play(a Action) {
	g.past = append(g.past, g.Pos)
	g.Hashes = append(g.Hashes, g.Pos.Hash)
	g.Actions = append(g.Actions, a)
	g.Pos = g.V.Apply(&g.Pos, a)
}

// Undo takes back the last action; it reports false when there is none.
func (g *Game) Undo() bool {
	n := len(g.past)
	if n == 0 {
		return false
	}
	g.Pos = g.past[n-1]
	g.past = g.past[:n-1]
	g.Hashes = g.Hashes[:n-1]
	g.Actions = g.Actions[:n-1]
	return true
}
