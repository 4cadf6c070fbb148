package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

func runEngine(args []string, out io.Writer) error {
	return engineMain(args, os.Stdin, out)
}

// engineMain is the engine command reading the protocol from in.
func engineMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("engine", "[--model FILE | --run DIR] [--variant V] [--sims N]",
		[]string{
			"millzero engine --variant three --sims 200",
			"millzero engine --run runs/nine",
			"millzero arena \"engine:bin/millzero engine --run runs/nine\" alphabeta:4 --movetime 500ms --games 10",
			"printf 'uci\\nisready\\nposition startpos moves d6 f4\\ngo movetime 500\\nquit\\n' | millzero engine",
		}, out)
	var pc playerConfig
	addPlayerFlags(fs, &pc)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", rest[0])
	}
	e := &uciEngine{cfg: pc, out: out}
	return e.serve(in)
}

// uciEngine answers the UCI-style protocol of arena.External (Sanmill's):
// one command per line, the actions in the variant's notation, a removal
// its own bestmove. A malformed command is answered with an `info string
// error:` line and the engine carries on.
type uciEngine struct {
	cfg playerConfig
	out io.Writer

	bot  *modelPlayer // nil until needed, and after an option changes who plays
	game *engine.Game // the position of the last `position`; nil for the start

	mu     sync.Mutex    // serialises writes to out: a search answers from its own goroutine
	stop   func()        // cancels the running search; nil when none runs
	search chan struct{} // closed when the running search has answered
}

// serve reads commands until `quit` or the end of in. A search (go) runs
// while the next commands are read: isready is answered at once, stop
// ends the search early, quit ends it and the engine; any other command
// waits for the search's bestmove first. At the end of in the running
// search finishes and answers.
func (e *uciEngine) serve(in io.Reader) error {
	defer e.wait()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if e.stop != nil {
			switch f[0] {
			case "isready":
				e.say("readyok")
				continue
			case "ponderhit":
				continue
			case "stop", "quit":
				e.stop()
			}
			e.wait()
		}
		if f[0] == "quit" {
			return nil
		}
		if err := e.command(f); err != nil {
			e.say("info string error: %s", strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading commands: %w", err)
	}
	return nil
}

// wait waits for the running search, if any, to answer.
func (e *uciEngine) wait() {
	if e.stop == nil {
		return
	}
	<-e.search
	e.stop()
	e.stop, e.search = nil, nil
}

func (e *uciEngine) say(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.out, format+"\n", args...)
}

// command runs one command line, split into words.
func (e *uciEngine) command(f []string) error {
	switch f[0] {
	case "uci":
		e.say("id name millzero")
		e.say("id author the millzero authors")
		// The defaults are the settings from the command line.
		empty := func(s string) string {
			if s == "" {
				return "<empty>"
			}
			return s
		}
		e.say("option name variant type string default %s", empty(e.cfg.Variant))
		e.say("option name model type string default %s", empty(e.cfg.Model))
		e.say("option name run type string default %s", empty(e.cfg.Run))
		e.say("option name sims type spin default %d min 1 max 100000000", e.cfg.Sims) // the visits of a go without movetime
		e.say("option name seed type spin default %d min 0 max 9223372036854775807", e.cfg.Seed)
		e.say("uciok")
	case "isready":
		// Load the model now, so the handshake reports a bad one.
		_, err := e.player()
		e.say("readyok")
		return err
	case "setoption":
		return e.setOption(f[1:])
	case "ucinewgame":
		e.game = nil // the search follows whatever game comes next
	case "position":
		return e.position(f[1:])
	case "go":
		return e.goSearch(f[1:])
	case "stop", "ponderhit":
		// No search runs (serve stops a running one).
	case "d":
		g, err := e.current()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimRight(g.V.Diagram(&g.Pos), "\n"), "\n") {
			e.say("info string %s", line)
		}
	default:
		return fmt.Errorf("unknown command %q (the commands: uci, isready, setoption, ucinewgame, position, go, stop, d, quit)", f[0])
	}
	return nil
}

// setOption reads `name N... value V...`.
func (e *uciEngine) setOption(f []string) error {
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
	key, val := strings.ToLower(strings.Join(name, " ")), strings.Join(value, " ")
	if val == "<empty>" {
		val = ""
	}
	switch key {
	case "variant":
		if _, err := engine.Load(val); err != nil {
			return fmt.Errorf("setoption variant: %w", err)
		}
		e.cfg.Variant = val
	case "model":
		e.cfg.Model = val
	case "run":
		e.cfg.Run = val
	case "sims", "simulations", "visits":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Errorf("setoption sims %q: want a whole number 1 or more", val)
		}
		e.cfg.Sims = n
		if e.bot != nil {
			e.bot.sims = n
		}
		return nil
	case "seed":
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return fmt.Errorf("setoption seed %q: want a whole number 0 or more", val)
		}
		e.cfg.Seed = n
	default:
		return fmt.Errorf("setoption: unknown option %q (the options: variant, model, run, sims, seed)", key)
	}
	e.bot, e.game = nil, nil
	return nil
}

// player is the model player of the options, made when first needed.
func (e *uciEngine) player() (*modelPlayer, error) {
	if e.bot != nil {
		return e.bot, nil
	}
	src, err := loadSource(e.cfg)
	if err != nil {
		return nil, err
	}
	v, err := src.variantFor(e.cfg.Variant)
	if err != nil {
		return nil, err
	}
	bot, err := newModelPlayer(v, src, e.cfg.Sims, e.cfg.Seed)
	if err != nil {
		return nil, err
	}
	e.bot = bot
	e.say("info string variant %s, model: %s", v.Name, bot.describe())
	return bot, nil
}

// current is the game of the last position command, or the start.
func (e *uciEngine) current() (*engine.Game, error) {
	if e.game != nil {
		return e.game, nil
	}
	bot, err := e.player()
	if err != nil {
		return nil, err
	}
	e.game = engine.NewGame(bot.v)
	return e.game, nil
}

// position reads `startpos [moves ...]` or `fen FEN [moves ...]`; the FEN
// may also be a position string of the project's own format (any board).
// On an error the previous position stays.
func (e *uciEngine) position(f []string) error {
	bot, err := e.player()
	if err != nil {
		return err
	}
	g, err := arena.ParsePositionCommand(bot.v, f)
	if err != nil {
		return err
	}
	e.game = g
	return nil
}

// goSearch reads the limits of `go`, searches the current position and
// answers `bestmove`.
func (e *uciEngine) goSearch(f []string) error {
	g, err := e.current()
	if err != nil {
		return err
	}
	bot := e.bot
	var moveTime time.Duration
	sims := 0                  // the player's visits; with a time limit, no cap
	infinite := false          // search until stop
	var clock [2]time.Duration // wtime, btime
	var inc [2]time.Duration
	num := func(i int) (int64, error) {
		if i+1 >= len(f) {
			return 0, fmt.Errorf("go %s: want a number after it", f[i])
		}
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("go %s %q: want a whole number 0 or more", f[i], f[i+1])
		}
		return n, nil
	}
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "infinite":
			infinite = true
		case "ponder":
		case "movetime", "nodes", "wtime", "btime", "winc", "binc", "movestogo", "depth", "mate":
			n, err := num(i)
			if err != nil {
				return err
			}
			switch f[i] {
			case "movetime":
				moveTime = time.Duration(n) * time.Millisecond
			case "nodes":
				sims = max(int(n), 1)
			case "wtime":
				clock[0] = time.Duration(n) * time.Millisecond
			case "btime":
				clock[1] = time.Duration(n) * time.Millisecond
			case "winc":
				inc[0] = time.Duration(n) * time.Millisecond
			case "binc":
				inc[1] = time.Duration(n) * time.Millisecond
			}
			i++
		default:
			return fmt.Errorf("go: unknown limit %q (the limits: movetime MS, nodes N, wtime/btime/winc/binc MS)", f[i])
		}
	}
	if side := int(g.Pos.Side); moveTime == 0 && side < 2 && clock[side] > 0 {
		// A clock: spend a twentieth of what is left, plus the increment.
		moveTime = clock[side]/20 + inc[side]
	}
	if r, why := g.Outcome(); r != engine.Ongoing {
		e.say("info string the game is over: %s", resultText(g.V, &g.Pos, r, why))
		e.say("bestmove (none)")
		return nil
	}
	if infinite {
		// Until stop: a day, or until the tree is full.
		moveTime, sims = 24*time.Hour, 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stop, e.search = cancel, make(chan struct{})
	go func() {
		defer close(e.search)
		start := time.Now()
		a, res, err := bot.act(ctx, g, sims, moveTime)
		if err != nil {
			e.say("info string error: go: %s", err)
			e.say("bestmove (none)")
			return
		}
		seat := int(g.Pos.Side)
		e.say("info nodes %d time %d pv %s string visits %d, expected score %.3f for seat %d", bot.search.Nodes(),
			time.Since(start).Milliseconds(), g.V.FormatAction(a), res.Visited, res.Value[seat], seat+1)
		e.say("bestmove %s", g.V.FormatAction(a))
	}()
	return nil
}
