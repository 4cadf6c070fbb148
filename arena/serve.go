package arena

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// Serve plays p as an engine over the UCI-style protocol that External
// speaks (Sanmill's), reading commands from in and answering on out until
// `quit` or the end of in: a Server whose engine is fixed (setoption is
// ignored). See Server.Serve.
func Serve(ctx context.Context, v *engine.Variant, p Player, name string, seed uint64, in io.Reader, out io.Writer) error {
	s := &Server{Name: name, Seed: seed, Load: func() (Engine, error) { return Engine{Variant: v, Player: p}, nil }}
	return s.Serve(ctx, in, out)
}

// Engine is what a Server plays: a variant and a player of it.
type Engine struct {
	Variant *engine.Variant
	Player  Player
	Desc    string // said in an `info string` line when the engine is loaded; "" says nothing
}

// Server is the one engine-protocol server (`millzero engine`, and the
// other side of External in tests). Its options and its engine come from
// the caller: Load builds the engine of the current options, when first
// needed and again after each setoption.
type Server struct {
	Name    string   // the `id name`
	Seed    uint64   // seeds each game's player, with the game's number
	Options []string // the `option name ...` lines uci lists, without "option "

	// SetOption sets one option; nil ignores setoption (the engine is fixed).
	SetOption func(name, value string) error
	// Load builds the engine of the current options.
	Load func() (Engine, error)
}

// session is the state of one Serve: the engine, its game player and the
// position, and the search running in the background.
type session struct {
	s   *Server
	ctx context.Context
	out *bufio.Writer
	mu  sync.Mutex // serialises writes: a search answers from its own goroutine

	eng      *Engine       // nil until needed, and after an option changes
	gp       GamePlayer    // the player of the current game; nil until a go
	games    int           // game players made, for their seeds
	game     *engine.Game  // the position of the last `position`; nil for the start
	stop     func()        // cancels the running search; nil when none runs
	search   chan struct{} // closed when the running search has answered
	infinite bool          // the running search goes on until stop
}

// Serve reads commands from in and answers on out until `quit` or the end
// of in: uci, isready, setoption, ucinewgame, position startpos|fen FEN
// [moves ...], go [movetime MS | nodes N | wtime/btime/winc/binc MS |
// infinite], stop, d (the board) and quit. A search (go) runs while the
// next commands are read: isready is answered at once, stop ends the
// search early, quit ends it and the engine; any other command waits for
// the search's bestmove first (quit too, unless the search is infinite). At the end of in the running search
// finishes and answers. A command it cannot follow is answered with `info
// string error: ...` and changes nothing, and `go` in a finished game
// answers `bestmove (none)`. Each ucinewgame (and the first go) starts a
// fresh GamePlayer, seeded from Seed and the game's number.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	x := &session{s: s, ctx: ctx, out: bufio.NewWriter(out)}
	defer x.closeGame()
	defer x.wait()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if x.stop != nil {
			switch f[0] {
			case "isready":
				x.say("readyok")
				continue
			case "ponderhit":
				continue
			case "stop":
				x.stop()
			case "quit":
				if x.infinite {
					x.stop()
				}
			}
			x.wait()
		}
		if f[0] == "quit" {
			return x.flushErr()
		}
		if err := x.command(f); err != nil {
			x.say("info string error: %s", strings.ReplaceAll(err.Error(), "\n", " "))
		}
		if err := x.flushErr(); err != nil {
			return err
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

func (x *session) say(format string, args ...any) {
	x.mu.Lock()
	defer x.mu.Unlock()
	fmt.Fprintf(x.out, format+"\n", args...)
	x.out.Flush()
}

// flushErr reports a failed write to out.
func (x *session) flushErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.out.Flush(); err != nil {
		return fmt.Errorf("serve: write: %w", err)
	}
	return nil
}

// wait waits for the running search, if any, to answer.
func (x *session) wait() {
	if x.stop == nil {
		return
	}
	<-x.search
	x.stop()
	x.stop, x.search = nil, nil
}

func (x *session) closeGame() {
	if x.gp != nil {
		x.gp.Close()
		x.gp = nil
	}
}

// command runs one command line, split into words.
func (x *session) command(f []string) error {
	switch f[0] {
	case "uci":
		x.say("id name %s", x.s.Name)
		x.say("id author millzero")
		for _, o := range x.s.Options {
			x.say("option %s", o)
		}
		x.say("uciok")
	case "isready":
		// Load the engine now, so the handshake reports a bad one.
		_, err := x.engine()
		x.say("readyok")
		return err
	case "setoption":
		return x.setOption(f[1:])
	case "ucinewgame":
		x.closeGame()
		x.game = nil
	case "position":
		eng, err := x.engine()
		if err != nil {
			return err
		}
		g, err := ParsePositionCommand(eng.Variant, f[1:])
		if err != nil {
			return err
		}
		x.game = g
	case "go":
		return x.goSearch(f[1:])
	case "stop", "ponderhit":
		// No search runs (Serve stops a running one).
	case "d":
		g, err := x.current()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimRight(g.V.Diagram(&g.Pos), "\n"), "\n") {
			x.say("info string %s", line)
		}
	default:
		return fmt.Errorf("unknown command %q (the commands: uci, isready, setoption, ucinewgame, position, go, stop, d, quit)", f[0])
	}
	return nil
}

// setOption reads `name N... value V...`.
func (x *session) setOption(f []string) error {
	if x.s.SetOption == nil {
		return nil
	}
	if len(f) < 2 || f[0] != "name" {
		return fmt.Errorf("setoption: want setoption name NAME value VALUE")
	}
	var name, value []string
	i := 1
	for ; i < len(f) && f[i] != "value"; i++ {
		name = append(name, f[i])
	}
	if i < len(f) {
		value = f[i+1:]
	}
	val := strings.Join(value, " ")
	if val == "<empty>" {
		val = ""
	}
	if err := x.s.SetOption(strings.ToLower(strings.Join(name, " ")), val); err != nil {
		return err
	}
	x.closeGame()
	x.eng, x.game = nil, nil
	return nil
}

// engine is the engine of the current options, loaded when first needed.
func (x *session) engine() (*Engine, error) {
	if x.eng != nil {
		return x.eng, nil
	}
	eng, err := x.s.Load()
	if err != nil {
		return nil, err
	}
	x.eng = &eng
	if eng.Desc != "" {
		x.say("info string variant %s, %s", eng.Variant.Name, eng.Desc)
	}
	return x.eng, nil
}

// current is the game of the last position command, or the start.
func (x *session) current() (*engine.Game, error) {
	if x.game != nil {
		return x.game, nil
	}
	eng, err := x.engine()
	if err != nil {
		return nil, err
	}
	x.game = engine.NewGame(eng.Variant)
	return x.game, nil
}

// goLimits are the limits of a go command.
type goLimits struct {
	moveTime time.Duration
	nodes    int  // 0: the player's own visits
	infinite bool // until stop
}

// parseGo reads go's limits for the side to move; a clock spends a
// twentieth of what is left, plus the increment.
func parseGo(f []string, side int) (goLimits, error) {
	var l goLimits
	var clock, inc [2]time.Duration
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "infinite":
			l.infinite = true
		case "ponder":
		case "movetime", "nodes", "wtime", "btime", "winc", "binc", "movestogo", "depth", "mate":
			if i+1 >= len(f) {
				return l, fmt.Errorf("go %s: want a number after it", f[i])
			}
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || n < 0 {
				return l, fmt.Errorf("go %s %q: want a whole number 0 or more", f[i], f[i+1])
			}
			ms := time.Duration(n) * time.Millisecond
			switch f[i] {
			case "movetime":
				l.moveTime = ms
			case "nodes":
				l.nodes = max(int(n), 1)
			case "wtime", "btime":
				clock[map[string]int{"wtime": 0, "btime": 1}[f[i]]] = ms
			case "winc", "binc":
				inc[map[string]int{"winc": 0, "binc": 1}[f[i]]] = ms
			}
			i++
		default:
			return l, fmt.Errorf("go: unknown limit %q (the limits: movetime MS, nodes N, wtime/btime/winc/binc MS, infinite)", f[i])
		}
	}
	if l.moveTime == 0 && side < 2 && clock[side] > 0 {
		l.moveTime = clock[side]/20 + inc[side]
	}
	if l.infinite {
		// Until stop: a day, or until the tree is full.
		l.moveTime, l.nodes = 24*time.Hour, 0
	}
	return l, nil
}

// goSearch reads the limits of `go`, and searches the current position in
// the background, answering `bestmove`.
func (x *session) goSearch(f []string) error {
	g, err := x.current()
	if err != nil {
		return err
	}
	lim, err := parseGo(f, int(g.Pos.Side))
	if err != nil {
		return err
	}
	if r, why := g.Outcome(); r != engine.Ongoing {
		x.say("info string the game is over: %s", ResultText(g.V, &g.Pos, r, why))
		x.say("bestmove (none)")
		return nil
	}
	if x.gp == nil {
		x.games++
		gp, err := x.eng.Player.NewGame(g.V, gameSeed(x.s.Seed, x.games, 0, 0))
		if err != nil {
			x.say("info string error: %s", err)
			x.say("bestmove (none)")
			return nil
		}
		x.gp = gp
	}
	ctx, cancel := context.WithCancel(x.ctx)
	x.stop, x.search, x.infinite = cancel, make(chan struct{}), lim.infinite
	gp := x.gp
	go func() {
		defer close(x.search)
		start := time.Now()
		var a engine.Action
		var err error
		if sg, ok := gp.(*SearchGame); ok {
			var res *mcts.Result
			if res, err = sg.Think(ctx, g, lim.nodes, lim.moveTime); err == nil {
				a = res.Best
				seat := int(g.Pos.Side)
				x.say("info nodes %d time %d pv %s string visits %d, expected score %.3f for seat %d", sg.Nodes(),
					time.Since(start).Milliseconds(), g.V.FormatAction(a), res.Visited, res.Value[seat], seat+1)
			}
		} else {
			a, err = gp.Act(ctx, g)
		}
		if err != nil {
			x.say("info string error: go: %s", err)
			x.say("bestmove (none)")
			return
		}
		x.say("bestmove %s", g.V.FormatAction(a))
	}()
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
		p, err := v.ParseFENOrPosition(text)
		if err != nil {
			return nil, fmt.Errorf("position: %w", err)
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
