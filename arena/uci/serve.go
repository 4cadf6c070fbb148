package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/internal/textline"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// Serve plays p as an engine over the UCI-style protocol that arena.External
// speaks (Sanmill's), reading commands from in and answering on out until
// `quit` or the end of in: a Server of variant v and player p, whose
// Variant option may name another variant and whose rule options change
// the variant's rules (a fixed player takes no Model or Run). See
// Server.Serve.
func Serve(ctx context.Context, v *engine.Variant, p arena.Player, name string, seed uint64, in io.Reader, out io.Writer) error {
	s := &Server{Name: name, Options: EngineOptions{Visits: arena.DefaultSpecSettings().Simulations, Threads: 1, Seed: seed},
		Load: func(o EngineOptions) (Engine, error) { return FixedEngine(v, p, o) }}
	return s.Serve(ctx, in, out)
}

// FixedEngine is the engine of player p for the options o: variant v, or
// the variant o names, with o's rules. It refuses a Model or Run: p is
// fixed.
func FixedEngine(v *engine.Variant, p arena.Player, o EngineOptions) (Engine, error) {
	if o.Model != "" || o.Run != "" {
		return Engine{}, fmt.Errorf("%s is a fixed player: it takes no Model or Run", p.Name())
	}
	if o.Variant != "" && o.Variant != v.Name {
		var err error
		if v, err = engine.Load(o.Variant); err != nil {
			return Engine{}, err
		}
	}
	v, err := o.ApplyRules(v)
	if err != nil {
		return Engine{}, err
	}
	return Engine{Variant: v, Player: p}, nil
}

// Engine is what a Server plays: a variant and a player of it.
type Engine struct {
	Variant *engine.Variant
	Player  arena.Player
	Desc    string // said in an `info string` line when the engine is loaded; "" says nothing
}

// MaxLineBytes is the longest command line a Server reads: a longer one is
// read to its end, refused with an error and not run. A position command
// of the longest game (60000 plies, max_plies' bound) fits.
const MaxLineBytes = 1 << 20

// Server is the one engine-protocol server (`millzero engine`, and the
// other side of arena.External in tests). Its options and its engine come from
// the caller: Load builds the engine of the options.
type Server struct {
	Name    string        // the `id name`
	Options EngineOptions // the options before any setoption (the command line's)

	// Load builds the engine of options o: the variant, with o's rules
	// applied (EngineOptions.ApplyRules), and its player. The server calls
	// it when the engine is first needed and at each setoption, which it
	// refuses when Load fails.
	Load func(o EngineOptions) (Engine, error)

	MaxNodes  int           // the tree's bound in a search not bounded by visits (time, infinite); 0 arena.MaxTreeNodes
	InfoEvery time.Duration // how often a search says `info ...`; 0 a second
}

// dialog is the state of one Serve: the options and engine, the game
// player and position, and the search running in the background.
type dialog struct {
	s   *Server
	ctx context.Context
	out *bufio.Writer
	mu  sync.Mutex // serialises writes: a search answers from its own goroutine

	opts   EngineOptions
	eng    *Engine            // nil until needed
	gps    []arena.GamePlayer // the players of the current game, one per thread; nil until a go
	games  int                // game players made, for their seeds
	game   *engine.Game       // the position of the last `position`; nil for the start
	posErr error              // why the last `position` failed: there is no position until the next
	search *running           // the search running in the background; nil when none
	debug  atomic.Bool        // debug on: extra `info string` lines (the search's goroutine reads it)
}

// running is a search in the background.
type running struct {
	cancel   context.CancelFunc
	done     chan struct{} // closed when the search has answered
	infinite bool          // it answers only after stop (a ponder search until ponderhit)
	bounded  bool          // after ponderhit: whether the search has limits of its own (the go's infinite not given)
	ponder   chan struct{} // a ponder search: closed by ponderhit; nil for another search
}

// ponderHit switches a ponder search to its limits: the opponent played
// the move it pondered on.
func (r *running) ponderHit() {
	if r.ponder == nil {
		return
	}
	select {
	case <-r.ponder:
	default:
		close(r.ponder)
		r.infinite = !r.bounded
	}
}

// errLineTooLong says a line was over MaxLineBytes.
var errLineTooLong = fmt.Errorf("line longer than %d bytes: refused, not run", MaxLineBytes)

// Serve reads commands from in and answers on out until `quit` or the end
// of in: uci, debug on|off, isready, setoption, ucinewgame, position
// startpos|fen FEN [moves ...], go [movetime MS] [nodes N] [depth N]
// [wtime/btime/winc/binc MS [movestogo N]] [searchmoves M...] [ponder]
// [infinite], stop, ponderhit, d (the board) and quit.
//
// A search (go) runs while the next commands are read: isready is answered
// at once, debug takes effect at once, stop ends the search with its best
// so far, ponderhit turns a ponder search into one under the go's other
// limits (a time limit counted from then); any other command (quit and
// the end of in too) waits for a bounded search's bestmove, and stops an
// infinite or pondering one first. Every go is answered by exactly one
// bestmove: `bestmove (none)` after an `info string error: ...` line when
// it cannot search (no position, a bad limit, an engine that does not
// load) and in a finished game, which position already says is over. An
// infinite search answers only after stop, a ponder search only after
// ponderhit (and its limits) or stop, even when the tree is full. A
// command it cannot follow is answered with `info string error: ...`
// (what it echoes of the line is cut, see maxEchoBytes) and changes
// nothing, except a position command, which leaves no position until the
// next. Each ucinewgame, each setoption of the engine (not UCI_ShowWDL nor
// Ponder) and the first go start a fresh arena.GamePlayer, seeded from the Seed
// option and the game's number.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	x := &dialog{s: s, ctx: ctx, out: bufio.NewWriter(out), opts: s.Options}
	defer x.closeGame()
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for {
		line, err := textline.Read(r, buf[:0], MaxLineBytes)
		if errors.Is(err, textline.ErrTooLong) {
			err = errLineTooLong
		}
		buf = line
		switch {
		case err == nil || err == io.EOF || errors.Is(err, errLineTooLong):
			if x.handle(string(line), err) {
				x.finish(false)
				return x.flushErr()
			}
		default:
			x.finish(false)
			return fmt.Errorf("serve: read: %w", err)
		}
		if err == io.EOF {
			x.finish(false)
			return x.flushErr()
		}
		if err := x.flushErr(); err != nil {
			x.finish(true)
			return err
		}
		if err := ctx.Err(); err != nil {
			x.finish(true)
			return err
		}
	}
}

// handle runs one line, which failed to read with lineErr if not nil (and
// not io.EOF), and reports whether it was quit.
func (x *dialog) handle(line string, lineErr error) (quit bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	if x.search != nil {
		switch f[0] {
		case "isready":
			x.say("readyok")
			return false
		case "ponderhit":
			x.search.ponderHit()
			return false
		case "debug":
			if err := x.setDebug(f[1:]); err != nil {
				x.say("info string error: %s", err)
			}
			return false
		}
		x.finish(f[0] == "stop")
	}
	if lineErr == io.EOF {
		lineErr = nil
	}
	if f[0] == "quit" && lineErr == nil {
		return true
	}
	err := lineErr
	if err == nil {
		err = x.command(f)
	}
	if err != nil {
		x.say("info string error: %s", textline.Clip(strings.ReplaceAll(err.Error(), "\n", " "), maxErrorBytes))
		switch f[0] {
		case "position":
			x.game, x.posErr = nil, err
		case "go":
			x.answer(nil, 0, nil)
		}
	}
	return false
}

// finish waits for the running search, if any, to answer, stopping it
// first if stop or it is infinite.
func (x *dialog) finish(stop bool) {
	if x.search == nil {
		return
	}
	if stop || x.search.infinite {
		x.search.cancel()
	}
	<-x.search.done
	x.search.cancel()
	x.search = nil
}

func (x *dialog) say(format string, args ...any) {
	x.mu.Lock()
	defer x.mu.Unlock()
	fmt.Fprintf(x.out, format+"\n", args...)
	x.out.Flush()
}

// flushErr reports a failed write to out.
func (x *dialog) flushErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.out.Flush(); err != nil {
		return fmt.Errorf("serve: write: %w", err)
	}
	return nil
}

func (x *dialog) closeGame() {
	for _, gp := range x.gps {
		gp.Close()
	}
	x.gps = nil
}

// command runs one command line, split into words. An error of go is
// returned before its search starts: handle answers it.
func (x *dialog) command(f []string) error {
	switch f[0] {
	case "uci":
		x.say("id name %s", x.s.Name)
		x.say("id author millzero contributors")
		var v *engine.Variant
		if eng, err := x.engine(); err == nil {
			v = eng.Variant
		} else {
			x.say("info string error: %s (the rule options are listed once an engine loads)", err)
		}
		for _, o := range x.opts.uciOptions(v) {
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
		x.game, x.posErr = nil, nil
	case "position":
		eng, err := x.engine()
		if err != nil {
			return err
		}
		g, err := ParsePositionCommand(eng.Variant, f[1:])
		if err != nil {
			return err
		}
		x.game, x.posErr = g, nil
		if r, why := JudgeGame(g); r != engine.Ongoing {
			x.say("info string game over: %s; go answers bestmove (none)", arena.ResultText(g.V, &g.Pos, r, why))
		}
		x.debugf("position: ply %d, %s to move, %d actions played", g.Pos.Ply, arena.SeatName(g.V, int(g.Pos.Side)), len(g.Actions))
	case "go":
		return x.goSearch(f[1:])
	case "stop", "ponderhit":
		// No search runs (handle stops a running one).
	case "debug":
		return x.setDebug(f[1:])
	case "d":
		g, err := x.current()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimRight(g.V.Diagram(&g.Pos), "\n"), "\n") {
			x.say("info string %s", line)
		}
	default:
		return fmt.Errorf("unknown command %q (the commands: uci, debug, isready, setoption, ucinewgame, position, go, stop, ponderhit, d, quit)", textline.Clip(f[0], maxEchoBytes))
	}
	return nil
}

// setOption reads `name N... value V...` and builds the engine of the
// options with the change; if either fails, nothing changes.
func (x *dialog) setOption(f []string) error {
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
	o := x.opts
	if err := o.Set(strings.Join(name, " "), val); err != nil {
		return err
	}
	if ProtocolOption(strings.Join(name, " ")) {
		x.opts = o // how the server answers, not what it plays: the engine stays
		return nil
	}
	eng, err := x.s.Load(o)
	if err != nil {
		return fmt.Errorf("setoption %s: %w", strings.Join(name, " "), err)
	}
	x.opts = o
	x.install(eng)
	return nil
}

// engine is the engine of the current options, loaded when first needed.
func (x *dialog) engine() (*Engine, error) {
	if x.eng != nil {
		return x.eng, nil
	}
	eng, err := x.s.Load(x.opts)
	if err != nil {
		return nil, err
	}
	x.install(eng)
	return x.eng, nil
}

// install makes eng the engine: a new game player, and the start position
// when the rules changed.
func (x *dialog) install(eng Engine) {
	x.closeGame()
	if x.eng == nil || x.eng.Variant.Spec != eng.Variant.Spec {
		x.game, x.posErr = nil, nil
	}
	x.eng = &eng
	if eng.Desc != "" {
		x.say("info string variant %s (%s), %s", eng.Variant.Name, eng.Variant.Description, eng.Desc)
	}
}

// current is the game of the last position command, or the start.
func (x *dialog) current() (*engine.Game, error) {
	if x.posErr != nil {
		return nil, fmt.Errorf("no position: the last position command failed (%w)", x.posErr)
	}
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
	moveTime    time.Duration // 0: none
	nodes       int           // the root's visits, at most mcts.MaxVisits; 0: none
	depth       int           // the principal variation's length to reach, at most MaxDepth; 0: none
	infinite    bool          // until stop
	ponder      bool          // search without limits until ponderhit, then under the others (or stop)
	searchMoves []string      // the root's actions to search (searchmoves); none: every legal action
}

// MaxDepth is the deepest `go depth` a search reaches: the principal
// variation's length, which `info depth` says.
const MaxDepth = 64

// goWords are the words of a go command that end a searchmoves list.
var goWords = map[string]bool{"infinite": true, "ponder": true, "searchmoves": true, "movetime": true, "nodes": true,
	"wtime": true, "btime": true, "winc": true, "binc": true, "movestogo": true, "depth": true, "mate": true}

// parseGo reads go's limits for the side to move. A clock (wtime, btime)
// is spent by the time manager (moveBudget); movetime, when also given,
// wins over it. nodes above mcts.MaxVisits and depth above MaxDepth are cut to
// those bounds, and mate is not a limit of this search (it searches as
// without it): each is noted in notes.
func parseGo(f []string, side int) (l goLimits, notes []string, err error) {
	var clock, inc [2]time.Duration
	var toGo int64
	hasClock := false
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case "infinite":
			l.infinite = true
		case "ponder":
			l.ponder = true
		case "searchmoves":
			for i+1 < len(f) && !goWords[f[i+1]] {
				l.searchMoves = append(l.searchMoves, f[i+1])
				i++
			}
		case "movetime", "nodes", "wtime", "btime", "winc", "binc", "movestogo", "depth", "mate":
			if i+1 >= len(f) {
				return l, nil, fmt.Errorf("go %s: want a number after it", f[i])
			}
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || n < 0 {
				return l, nil, fmt.Errorf("go %s %q: want a whole number 0 or more", f[i], textline.Clip(f[i+1], maxEchoBytes))
			}
			ms := time.Duration(min(n, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
			switch f[i] {
			case "movetime":
				l.moveTime = max(ms, time.Millisecond)
			case "nodes":
				if n > mcts.MaxVisits {
					notes = append(notes, fmt.Sprintf("go nodes %d: more than the most visits a move may take, searching %d", n, mcts.MaxVisits))
				}
				l.nodes = int(min(max(n, 1), mcts.MaxVisits))
			case "depth":
				if n > MaxDepth {
					notes = append(notes, fmt.Sprintf("go depth %d: deeper than the deepest line this search follows, searching to depth %d", n, MaxDepth))
				}
				l.depth = int(min(max(n, 1), MaxDepth))
			case "wtime", "btime":
				clock[map[string]int{"wtime": 0, "btime": 1}[f[i]]] = ms
				hasClock = true
			case "winc", "binc":
				inc[map[string]int{"winc": 0, "binc": 1}[f[i]]] = ms
			case "movestogo":
				toGo = n
			case "mate":
				notes = append(notes, "go mate: not a limit of this search (MCTS), ignored")
			}
			i++
		default:
			return l, nil, fmt.Errorf("go: unknown limit %q (the limits: movetime MS, nodes N, depth N, wtime/btime/winc/binc MS, movestogo N, searchmoves M..., ponder, infinite)", textline.Clip(f[i], maxEchoBytes))
		}
	}
	if l.moveTime == 0 && hasClock && side < 2 {
		l.moveTime = moveBudget(clock[side], inc[side], toGo)
	}
	return l, notes, nil
}

// moveBudget is the time manager: the time for one move with clock left,
// an increment of inc a move and toGo moves to the next time control (0:
// none). It spends the clock over toGo moves, or over 30 without a control
// (a Mill game's moves to come, roughly, each player's), plus three
// quarters of the increment, but never more than the clock less a tenth
// of it and 20 ms (the answer's way back), and at least 5 ms.
func moveBudget(clock, inc time.Duration, toGo int64) time.Duration {
	if toGo <= 0 {
		toGo = 30
	}
	t := clock/time.Duration(toGo) + inc*3/4
	t = min(t, clock-clock/10-20*time.Millisecond)
	return max(t, 5*time.Millisecond)
}

// goSearch starts the search of go in the background; it answers
// bestmove. An error is returned before the search starts (handle answers
// it).
func (x *dialog) goSearch(f []string) error {
	g, err := x.current()
	if err != nil {
		return err
	}
	lim, notes, err := parseGo(f, int(g.Pos.Side))
	if err != nil {
		return err
	}
	for _, n := range notes {
		x.say("info string %s", n)
	}
	_, byDepth := x.eng.Player.(arena.Classic) // the classical engine has its own default (a second)
	if lim.moveTime == 0 && lim.nodes == 0 && lim.depth == 0 && !lim.infinite && !byDepth {
		lim.nodes = x.opts.Visits
	}
	if r, why := JudgeGame(g); r != engine.Ongoing {
		x.say("info string the game is over: %s", arena.ResultText(g.V, &g.Pos, r, why))
		x.answer(nil, 0, nil)
		return nil
	}
	only, err := searchMoves(g, lim.searchMoves)
	if err != nil {
		return err
	}
	if x.gps == nil {
		x.games++
		threads := 1 // a search thread is a search player's; other players play as they are
		if _, ok := x.eng.Player.(*arena.SearchPlayer); ok {
			threads = max(x.opts.Threads, 1)
		}
		for i := 0; i < threads; i++ {
			gp, err := x.eng.Player.NewGame(g.V, arena.GameSeed(x.opts.Seed, x.games, 0, i))
			if err != nil {
				x.closeGame()
				return err
			}
			x.gps = append(x.gps, gp)
		}
	}
	x.debugLimits(lim, len(x.gps))
	ctx, cancel := context.WithCancel(x.ctx)
	run := &running{cancel: cancel, done: make(chan struct{}), infinite: lim.infinite || lim.ponder, bounded: !lim.infinite}
	if lim.ponder {
		run.ponder = make(chan struct{})
	}
	x.search = run
	gps := x.gps
	go func() {
		defer close(run.done)
		a, pv, err := x.think(ctx, gps, g, lim, only, run.ponder)
		if lim.ponder {
			select { // a ponder search answers after ponderhit or stop
			case <-run.ponder:
			case <-ctx.Done():
			}
		}
		if lim.infinite {
			<-ctx.Done() // an infinite search answers after stop
		}
		x.answerPV(g, a, pv, err)
	}()
	return nil
}

// think searches g under lim: with search players, one Analyse per
// thread (root parallelism: each thread its own tree, their root visits
// summed), saying info lines as it goes; another player's Act. It returns
// the action and the principal variation from it. Only, when not empty,
// restricts the root (searchmoves). A ponder search (lim.ponder) searches
// without limits until ponderhit closes ponderhit, then under lim's other
// limits (a time limit counted from then), keeping its tree.
func (x *dialog) think(ctx context.Context, gps []arena.GamePlayer, g *engine.Game, lim goLimits, only []engine.Action, ponderhit chan struct{}) (engine.Action, []engine.Action, error) {
	if cg, ok := gps[0].(*arena.ClassicGame); ok {
		if len(only) > 0 {
			x.say("info string searchmoves: the classical engine searches every action, ignored")
		}
		if lim.ponder && ponderhit != nil { // pondering: the clock starts at ponderhit
			select {
			case <-ponderhit:
				lim.ponder = false
			case <-ctx.Done():
			}
		}
		a, pv, err := x.thinkClassic(ctx, cg, g, lim)
		return a, pv, err
	}
	sgs := make([]*arena.SearchGame, len(gps))
	for i, gp := range gps {
		sg, ok := gp.(*arena.SearchGame)
		if !ok {
			if len(only) > 0 {
				x.say("info string go searchmoves: %s does not restrict its search, ignored", x.eng.Player.Name())
			}
			a, err := gps[0].Act(ctx, g)
			return a, []engine.Action{a}, err
		}
		sgs[i] = sg
	}
	n := len(sgs)
	l := arena.SearchLimits{Visits: lim.nodes, MoveTime: lim.moveTime, Infinite: lim.infinite, Every: x.s.InfoEvery,
		Depth: lim.depth, RootActions: only}
	if l.Depth > 0 && l.Visits == 0 && l.MoveTime == 0 {
		l.Visits = mcts.MaxVisits // depth alone: bounded as every search
	}
	if l.Visits > 0 {
		l.Visits = max(l.Visits/n, 1)
	}
	if l.MaxNodes = x.s.MaxNodes; l.MaxNodes <= 0 {
		l.MaxNodes = arena.MaxTreeNodes
	}
	l.MaxNodes = max(l.MaxNodes/n, 1)
	if l.Every <= 0 {
		l.Every = time.Second
	}
	start, seat := time.Now(), int(g.Pos.Side)
	var root rootEval
	if x.opts.ShowWDL {
		root = evalRoot(sgs[0], g)
	}
	var mu sync.Mutex // guards ts: each thread copies its result in
	ts := make([]threadState, n)
	var pv []engine.Action
	errs := make(chan error, n)
	for i, sg := range sgs {
		l := l
		l.Report = func(res *mcts.Result, searched int, done bool) {
			mu.Lock()
			defer mu.Unlock()
			ts[i].copyFrom(res, searched, seat)
			if i == 0 && !done {
				pv = sg.PV(pv[:0], MaxDepth)
				x.sayInfo(ts, pv, g, start, root)
			}
		}
		go func() {
			errs <- ponderThenSearch(ctx, sg, g, l, ponderhit)
		}()
	}
	var err error
	for range sgs {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		return 0, nil, err
	}
	best, from := choose(ts)
	if pv = append(pv[:0], best); from >= 0 {
		pv = sgs[from].PV(pv[:0], MaxDepth)
	}
	x.sayInfo(ts, pv, g, start, root)
	x.debugRoot(ts, g, sgs[0].Nodes())
	return best, pv, nil
}

// ponderThenSearch is one thread's search of g under l; with ponderhit
// not nil, a ponder search first: without limits until ponderhit is
// closed (a full tree waits for it there), then under l. Stop (ctx done)
// ends either with what was found.
func ponderThenSearch(ctx context.Context, sg *arena.SearchGame, g *engine.Game, l arena.SearchLimits, ponderhit chan struct{}) error {
	if ponderhit != nil {
		pctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-ponderhit:
			case <-pctx.Done():
			}
			cancel()
		}()
		pl := l
		pl.Infinite = true
		pondered := 0 // the visits the ponder search added, which the search after ponderhit goes on from
		if report := l.Report; report != nil {
			pl.Report = func(res *mcts.Result, searched int, done bool) { pondered = searched; report(res, searched, done) }
			l.Report = func(res *mcts.Result, searched int, done bool) { report(res, pondered+searched, done) }
		}
		_, err := sg.Analyse(pctx, g, pl)
		cancel()
		if err != nil {
			return err
		}
		select {
		case <-ponderhit:
		case <-ctx.Done():
			return nil
		}
	}
	_, err := sg.Analyse(ctx, g, l)
	return err
}

// threadState is what one thread's search has found so far, copied out of
// its result for the other threads to read.
type threadState struct {
	visited, searched int     // the root's visits; those this go added
	score             float64 // the mover's expected score
	actions           []engine.Action
	visits            []int32 // the root visits of each of actions
	best              engine.Action
	proven            bool
	drawn             bool // proven a draw
}

func (t *threadState) copyFrom(res *mcts.Result, searched, seat int) {
	t.visited, t.searched, t.score = res.Visited, searched, float64(res.Value[seat])
	t.actions = append(t.actions[:0], res.Actions...)
	t.visits = append(t.visits[:0], res.Visits...)
	t.best, t.proven, t.drawn = res.Best, res.Proven != engine.Ongoing, res.Proven == engine.Draw
}

// choose is the threads' choice: a thread's proven choice, or else the
// action with the most root visits summed over the threads (one thread:
// its own choice); and a thread whose own choice it is, or -1.
func choose(ts []threadState) (engine.Action, int) {
	for i, t := range ts {
		if t.proven || len(ts) == 1 {
			return t.best, i
		}
	}
	sum := make(map[engine.Action]int64)
	best := ts[0].best
	for _, t := range ts {
		for k, a := range t.actions {
			if sum[a] += int64(t.visits[k]); sum[a] > sum[best] {
				best = a
			}
		}
	}
	for i, t := range ts {
		if t.best == best {
			return best, i
		}
	}
	return best, -1
}

// sayInfo says the threads' search so far: `info depth D nodes N nps R
// time T score cp C [wdl W D L] pv ...`, where nodes are the root visits
// (playouts) of all threads, nps those this go added per second, depth the
// length of pv, and the score the mover's expected score s (1 a win, 0 a
// loss, the threads' mean by visits) as 1000(2s-1); wdl (UCI_ShowWDL, two
// players) as wdlPermille says.
func (x *dialog) sayInfo(ts []threadState, pv []engine.Action, g *engine.Game, start time.Time, root rootEval) {
	nodes, added, score := 0, 0, 0.0
	drawn := false
	for _, t := range ts {
		nodes, added, score = nodes+t.visited, added+t.searched, score+t.score*float64(t.visited)
		drawn = drawn || t.drawn
	}
	ms := time.Since(start).Milliseconds()
	s := score / float64(max(nodes, 1))
	var sb strings.Builder
	fmt.Fprintf(&sb, "info depth %d nodes %d nps %d time %d score cp %d", len(pv), nodes,
		int64(added)*1000/max(ms, 1), ms, int(math.Round(1000*(2*s-1))))
	if x.opts.ShowWDL && g.V.Players == 2 {
		w, d, l := wdlPermille(s, root, drawn)
		fmt.Fprintf(&sb, " wdl %d %d %d", w, d, l)
	}
	sb.WriteString(" pv")
	for _, a := range pv {
		sb.WriteByte(' ')
		sb.WriteString(g.V.FormatAction(a))
	}
	x.say("%s", sb.String())
}

// answer is the one answer to go: `bestmove` with the action a in g, or,
// with g nil, `bestmove (none)`, after an error line when err is not nil.
func (x *dialog) answer(g *engine.Game, a engine.Action, err error) {
	x.answerPV(g, a, nil, err)
}

// answerPV is answer with the principal variation pv from a: with the
// Ponder option on and a reply in pv, `bestmove A ponder B`.
func (x *dialog) answerPV(g *engine.Game, a engine.Action, pv []engine.Action, err error) {
	switch {
	case err != nil:
		x.say("info string error: go: %s", textline.Clip(err.Error(), maxErrorBytes))
		x.say("bestmove (none)")
	case g == nil:
		x.say("bestmove (none)")
	case x.opts.Ponder && len(pv) >= 2 && pv[0] == a:
		x.say("bestmove %s ponder %s", g.V.FormatAction(a), g.V.FormatAction(pv[1]))
	default:
		x.say("bestmove %s", g.V.FormatAction(a))
	}
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
