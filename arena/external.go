package arena

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/textline"
)

// External is an engine in another process that speaks the UCI-style text
// protocol of Sanmill over its standard input and output: `uci` answered by
// `uciok`; the variant's options (`setoption name Variant value NAME`,
// then its rules by Sanmill's option names, RuleValues) and Options; then
// `isready` answered by `readyok`, then for every move `position startpos
// moves M1 M2 ...` (or `position fen FEN`) and `go movetime MS`, answered
// by `bestmove MOVE` in the variant's notation (d6, d6-d5, xd7), wherever
// it stands in its line (Sanmill answers `info score V ... bestmove M`).
// Each game starts its own process, so games in parallel never share one.
type External struct {
	Label    string         // the name in tables and records; "" means "engine:" and the program's base name
	Path     string         // the program to run
	Args     []string       // its arguments
	Env      []string       // extra environment variables, KEY=VALUE, on top of this process's
	Options  []EngineOption // sent as `setoption name K value V` after the variant's, in order
	MoveTime time.Duration  // the time per move sent with `go movetime`; 0 means one second
	Grace    time.Duration  // how much longer than MoveTime to wait for `bestmove` before the engine forfeits; 0 means a second
	Startup  time.Duration  // how long the handshake may take; 0 means ten seconds
	FEN      bool           // send the position as `position fen` (24-point boards) instead of the moves from the start
}

// Name is the Label, or "engine:" and the program's base name.
func (e *External) Name() string {
	if e.Label != "" {
		return e.Label
	}
	return "engine:" + filepath.Base(e.Path)
}

func (e *External) moveTime() time.Duration {
	if e.MoveTime > 0 {
		return e.MoveTime
	}
	return time.Second
}

func (e *External) grace() time.Duration {
	if e.Grace > 0 {
		return e.Grace
	}
	return time.Second
}

// An engine's line longer than maxEngineLineBytes is skipped; an error
// quotes at most maxEchoBytes of an answer. The bounds are the engine
// protocol server's (package arena/uci): a position command of the
// longest game fits a line.
const (
	maxEngineLineBytes = 1 << 20
	maxEchoBytes       = 64
)

// ErrEngine is wrapped by every error about what an external engine did or
// did not answer.
var ErrEngine = errors.New("external engine")

// ErrUnfinished is wrapped by the errors of an engine that leave its game
// unfinished rather than lost: a draw it claims under its own rules
// (ErrDrawClaim), no move (ErrNoMove), no answer within the move time and
// its grace (ErrTimeout). A match records such a game as unfinished
// (Record.Unfinished), out of every score and rating: the engine's rules
// or clock may differ from ours, which does not make its position lost.
// An illegal move, a garbled answer and an engine that exits still
// forfeit.
var ErrUnfinished = errors.New("game unfinished")

// The ways an engine leaves its game unfinished; each wraps ErrUnfinished
// and names the kind Record.Unfinished holds.
var (
	ErrDrawClaim = fmt.Errorf("%w: %s", ErrUnfinished, UnfinishedDrawClaim)
	ErrNoMove    = fmt.Errorf("%w: %s", ErrUnfinished, UnfinishedNoMove)
	ErrTimeout   = fmt.Errorf("%w: %s", ErrUnfinished, UnfinishedTimeout)
)

// unfinishedKind is the kind of an error that leaves a game unfinished
// (UnfinishedDrawClaim, UnfinishedNoMove, UnfinishedTimeout), or "".
func unfinishedKind(err error) string {
	switch {
	case errors.Is(err, ErrDrawClaim):
		return UnfinishedDrawClaim
	case errors.Is(err, ErrNoMove):
		return UnfinishedNoMove
	case errors.Is(err, ErrTimeout):
		return UnfinishedTimeout
	}
	return ""
}

// NewGame starts the engine's process and shakes hands with it (uci,
// options, ucinewgame, isready). The seed is not used.
func (e *External) NewGame(v *engine.Variant, _ uint64) (GamePlayer, error) {
	if e.Path == "" {
		return nil, fmt.Errorf("%s: no program path", e.Name())
	}
	if e.FEN {
		if _, err := v.FEN(new(engine.Position)); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
	}
	cmd := exec.Command(e.Path, e.Args...)
	cmd.Env = append(os.Environ(), e.Env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name(), err)
	}
	// An os.Pipe rather than StdoutPipe: Wait would close StdoutPipe's
	// read end and could lose the last lines of an engine that exits.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Name(), err)
	}
	cmd.Stdout = w
	x := &externalGame{e: e, v: v, cmd: cmd, stdin: stdin, lines: make(chan string, 64),
		done: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = &x.stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("%s: start %s: %w", e.Name(), e.Path, err)
	}
	go x.read(stdout)
	go func() {
		x.waitErr = cmd.Wait()
		close(x.exited)
	}()
	startup := e.Startup
	if startup <= 0 {
		startup = 10 * time.Second
	}
	if err := x.handshake(startup); err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// externalGame is one game's engine process.
type externalGame struct {
	e      *External
	v      *engine.Variant
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string   // lines the engine wrote; closed when its output ends
	done   chan struct{} // closed by Close: the reader stops
	exited chan struct{} // closed when the process has exited
	stderr tailBuffer
	sb     strings.Builder

	waitErr error
	closed  bool
}

// read passes the engine's output lines on until it ends or Close.
func (x *externalGame) read(r io.ReadCloser) {
	defer r.Close()
	defer close(x.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for {
		line, err := textline.Read(br, buf[:0], maxEngineLineBytes)
		buf = line
		if err != nil && err != io.EOF && !errors.Is(err, textline.ErrTooLong) {
			return
		}
		if err == nil || err == io.EOF && len(line) > 0 {
			select {
			case x.lines <- strings.TrimRight(string(line), "\r"):
			case <-x.done:
				return
			}
		}
		if err == io.EOF {
			return
		}
	}
}

func (x *externalGame) send(line string) error {
	if _, err := io.WriteString(x.stdin, line+"\n"); err != nil {
		// Most often the engine has exited: say so, with its status.
		select {
		case <-x.exited:
			return fmt.Errorf("%s: %w exited before reading %q (%v)%s", x.e.Name(), ErrEngine, line, x.waitErr, x.stderrNote())
		case <-time.After(200 * time.Millisecond):
		}
		return fmt.Errorf("%s: send %q: %w: %w%s", x.e.Name(), line, ErrEngine, err, x.stderrNote())
	}
	return nil
}

// wordAt is the index of word among the words f of a line, or -1; the
// text of an `info ... string` is not read.
func wordAt(f []string, word string) int {
	for i, w := range f {
		if w == word {
			return i
		}
		if w == "string" && f[0] == "info" {
			break
		}
	}
	return -1
}

// expect waits up to timeout for a line holding word (wordAt), and returns
// that line's words from word on; other lines (id, option, info) are
// skipped.
func (x *externalGame) expect(ctx context.Context, word string, timeout time.Duration, after string) ([]string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-x.lines:
			if !ok {
				return nil, fmt.Errorf("%s: %w exited before answering %s with %s%s", x.e.Name(), ErrEngine, after, word, x.stderrNote())
			}
			f := strings.Fields(line)
			if i := wordAt(f, word); i >= 0 {
				return f[i:], nil
			}
		case <-timer.C:
			err := fmt.Errorf("%s: %w: no %s within %s after %s", x.e.Name(), ErrEngine, word, timeout, after)
			if word == "bestmove" {
				err = fmt.Errorf("%w (%w)", err, ErrTimeout)
			}
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (x *externalGame) handshake(timeout time.Duration) error {
	ctx := context.Background()
	if err := x.send("uci"); err != nil {
		return err
	}
	if _, err := x.expect(ctx, "uciok", timeout, "uci"); err != nil {
		return err
	}
	opts := append([]EngineOption{{"Variant", x.v.Name}}, RuleValues(x.v)...)
	for _, o := range append(opts, x.e.Options...) {
		if err := x.send("setoption name " + o.Name + " value " + o.Value); err != nil {
			return err
		}
	}
	for _, line := range []string{"ucinewgame", "isready"} {
		if err := x.send(line); err != nil {
			return err
		}
	}
	_, err := x.expect(ctx, "readyok", timeout, "isready")
	return err
}

// Act sends the position and `go movetime`, and reads `bestmove`. No
// answer in time (ErrTimeout), `bestmove draw` (ErrDrawClaim) and
// `bestmove none`, `(none)`, `-`, `0000` or nothing (ErrNoMove) leave the
// game unfinished; a move that is not legal is an error (the engine
// forfeits).
func (x *externalGame) Act(ctx context.Context, g *engine.Game) (engine.Action, error) {
	sb := &x.sb
	sb.Reset()
	if x.e.FEN {
		fen, err := x.v.FEN(&g.Pos)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", x.e.Name(), err)
		}
		sb.WriteString("position fen ")
		sb.WriteString(fen)
	} else {
		sb.WriteString("position startpos")
		if len(g.Actions) > 0 {
			sb.WriteString(" moves")
			for _, a := range g.Actions {
				sb.WriteByte(' ')
				sb.WriteString(x.v.FormatAction(a))
			}
		}
	}
	if err := x.send(sb.String()); err != nil {
		return 0, err
	}
	mt := x.e.moveTime()
	if err := x.send(fmt.Sprintf("go movetime %d", mt.Milliseconds())); err != nil {
		return 0, err
	}
	f, err := x.expect(ctx, "bestmove", mt+x.e.grace(), "go movetime")
	if err != nil {
		return 0, err
	}
	line := textline.Clip(strings.Join(f, " "), maxEchoBytes)
	if len(f) >= 2 && strings.EqualFold(f[1], "draw") {
		return 0, fmt.Errorf("%s: %w answered %q: %w", x.e.Name(), ErrEngine, line, ErrDrawClaim)
	}
	if len(f) < 2 || f[1] == "-" || f[1] == "none" || f[1] == "0000" || f[1] == "(none)" {
		return 0, fmt.Errorf("%s: %w answered %q: %w", x.e.Name(), ErrEngine, line, ErrNoMove)
	}
	a, err := x.v.ParseAction(&g.Pos, f[1])
	if err != nil {
		return 0, fmt.Errorf("%s: %w answered %q: %w", x.e.Name(), ErrEngine, line, err)
	}
	return a, nil
}

// Close asks the engine to quit, and kills it if it has not exited within
// a second.
func (x *externalGame) Close() error {
	if x.closed {
		return nil
	}
	x.closed = true
	io.WriteString(x.stdin, "quit\n")
	x.stdin.Close()
	close(x.done)
	select {
	case <-x.exited:
		return nil
	case <-time.After(time.Second):
	}
	if err := x.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: kill: %w", x.e.Name(), err)
	}
	<-x.exited
	return nil
}

// stderrNote is the end of what the engine wrote to its standard error,
// for error messages.
func (x *externalGame) stderrNote() string {
	if s := strings.TrimSpace(x.stderr.String()); s != "" {
		return " (stderr: " + s + ")"
	}
	return ""
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 512

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
