package arena

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/millzero/millzero/engine"
)

// Serve plays p as an engine over the UCI-style protocol that External
// speaks (Sanmill's), reading commands from in and answering on out until
// `quit` or the end of in: the other side of External, for `millzero
// engine`. It understands uci, isready, ucinewgame, setoption (ignored),
// position startpos|fen FEN [moves ...], go and quit. The player's own
// settings decide how long it thinks: go's movetime is not enforced. A
// command it cannot follow is answered with `info string error: ...` and
// changes nothing, and `go` in a finished game answers `bestmove (none)`.
// Each ucinewgame (and the first position) starts a fresh GamePlayer,
// seeded from seed and the game's number.
func Serve(ctx context.Context, v *engine.Variant, p Player, name string, seed uint64, in io.Reader, out io.Writer) error {
	w := bufio.NewWriter(out)
	say := func(format string, args ...any) error {
		fmt.Fprintf(w, format+"\n", args...)
		return w.Flush()
	}
	g := engine.NewGame(v)
	var gp GamePlayer
	games := 0
	defer func() {
		if gp != nil {
			gp.Close()
		}
	}()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var err error
		switch f[0] {
		case "uci":
			if err = say("id name %s\nid author millzero", name); err == nil {
				err = say("uciok")
			}
		case "isready":
			err = say("readyok")
		case "ucinewgame":
			if gp != nil {
				gp.Close()
				gp = nil
			}
			g = engine.NewGame(v)
		case "setoption":
		case "position":
			ng, perr := ParsePositionCommand(v, f[1:])
			if perr != nil {
				err = say("info string error: %v", perr)
				break
			}
			g = ng
		case "go":
			if r, _ := g.Outcome(); r != engine.Ongoing {
				err = say("bestmove (none)")
				break
			}
			if gp == nil {
				games++
				if gp, err = p.NewGame(v, gameSeed(seed, games, 0, 0)); err != nil {
					gp = nil
					err = say("info string error: %v\nbestmove (none)", err)
					break
				}
			}
			a, aerr := gp.Act(ctx, g)
			if aerr != nil {
				err = say("info string error: %v\nbestmove (none)", aerr)
				break
			}
			err = say("bestmove %s", v.FormatAction(a))
		case "quit":
			return nil
		default:
			err = say("info string error: unknown command %q", f[0])
		}
		if err != nil {
			return fmt.Errorf("serve: write: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("serve: read: %w", err)
	}
	return nil
}

// ParsePositionCommand reads the arguments of the protocol's `position`
// command: `startpos` or `fen FEN`, then optionally `moves M1 M2 ...`. The
// FEN may also be the project's own position string, which every board has
// (FEN only the 24-point square boards).
func ParsePositionCommand(v *engine.Variant, f []string) (*engine.Game, error) {
	if len(f) == 0 {
		return nil, fmt.Errorf("position: want startpos or fen FEN, then optionally moves M1 M2 ...")
	}
	var g *engine.Game
	rest := f[1:]
	switch f[0] {
	case "startpos":
		g = engine.NewGame(v)
	case "fen":
		end := len(rest)
		for i, s := range rest {
			if s == "moves" {
				end = i
				break
			}
		}
		text := strings.Join(rest[:end], " ")
		p, err := v.ParseFEN(text)
		if err != nil {
			var err2 error
			if p, err2 = v.ParsePosition(text); err2 != nil {
				return nil, fmt.Errorf("position: not a FEN (%w) nor a position string (%w)", err, err2)
			}
		}
		g = engine.NewGameFrom(v, p)
		rest = rest[end:]
	default:
		return nil, fmt.Errorf("position %q: want startpos or fen", f[0])
	}
	if len(rest) == 0 {
		return g, nil
	}
	if rest[0] != "moves" {
		return nil, fmt.Errorf("position: %q after the position: want moves", rest[0])
	}
	for i, s := range rest[1:] {
		if err := g.PlayString(s); err != nil {
			return nil, fmt.Errorf("position: move %d: %w", i+1, err)
		}
	}
	return g, nil
}
