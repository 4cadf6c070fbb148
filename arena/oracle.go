package arena

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/solve"
)

// OracleGame is one game of a player against the perfect player.
type OracleGame struct {
	Opening   string        // the first action, played before the players take over ("start": none)
	Seat      int           // the tested player's seat
	Want, Got engine.Result // the game-theoretic result after the opening, and the game's
	Moves     string        // every action, space separated
}

// OracleVisits is the visits a move of the search the oracle measures
// when none are given: a test-size run's gate's.
const OracleVisits = 16

// AgainstPerfect plays p against perfect play (the solved table t of a
// small variant) from the start and from every one-ply opening, on both
// seats.
func AgainstPerfect(ctx context.Context, t *solve.Table, p Player) ([]OracleGame, error) {
	v := t.Variant()
	start := v.Start()
	openings := append([]engine.Action{0}, v.Legal(&start, nil)...)
	var out []OracleGame
	var buf [engine.MaxActions]engine.Action
	for i, first := range openings {
		for seat := 0; seat < 2; seat++ {
			g := engine.NewGame(v)
			name := "start"
			if i > 0 {
				name = v.FormatAction(first)
				if err := g.Play(first); err != nil {
					return nil, err
				}
			}
			want, err := t.Value(&g.Pos)
			if err != nil {
				return nil, err
			}
			gp, err := p.NewGame(v, uint64(i*2+seat))
			if err != nil {
				return nil, err
			}
			for {
				r, _ := g.Outcome()
				if r != engine.Ongoing {
					break
				}
				var a engine.Action
				if int(g.Pos.Side) == seat {
					a, err = gp.Act(ctx, g)
				} else {
					var best []engine.Action
					best, err = t.Best(&g.Pos, buf[:0])
					if err == nil && len(best) == 0 {
						err = errors.New("perfect player has no action")
					}
					if err == nil {
						a = best[0]
					}
				}
				if err == nil {
					err = g.Play(a)
				}
				if err != nil {
					gp.Close()
					return nil, err
				}
			}
			gp.Close()
			got, _ := g.Outcome()
			moves := make([]string, len(g.Actions))
			for k, a := range g.Actions {
				moves[k] = v.FormatAction(a)
			}
			out = append(out, OracleGame{Opening: name, Seat: seat, Want: want.Result, Got: got, Moves: strings.Join(moves, " ")})
		}
	}
	return out, nil
}

// WriteOracleGames prints games of player label against the perfect
// player, a row each, and how many reach the game-theoretic result.
func WriteOracleGames(w io.Writer, label string, games []OracleGame) {
	fmt.Fprintf(w, "%-8s %-6s %-14s %-14s %s\n", "opening", "seat", "perfect play", "result", "moves")
	right := 0
	for _, g := range games {
		mark := ""
		if g.Got == g.Want {
			right++
		} else {
			mark = "  <- worse"
		}
		fmt.Fprintf(w, "%-8s %-6d %-14s %-14s %s%s\n", g.Opening, g.Seat, g.Want, g.Got, g.Moves, mark)
	}
	fmt.Fprintf(w, "%s reaches the game-theoretic result in %d of %d games\n", label, right, len(games))
}
