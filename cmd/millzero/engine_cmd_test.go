package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// testEngineEnv makes the test binary run `millzero engine` with the
// arguments in the variable (space separated) instead of the tests, so
// that arena.External can start it as a process.
const testEngineEnv = "MILLZERO_TEST_ENGINE_ARGS"

func init() {
	if args, ok := os.LookupEnv(testEngineEnv); ok {
		os.Exit(dispatch(append([]string{"engine"}, strings.Fields(args)...), os.Stdout, os.Stderr))
	}
}

// pipeEngine runs the engine protocol over pipes: send writes a command,
// and until reads the engine's lines, which a goroutine collects so the
// engine never waits for the test to read.
type pipeEngine struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string // the engine's output lines; closed at its end
	done  chan error
}

func startPipeEngine(t *testing.T, args ...string) *pipeEngine {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeEngine{t: t, in: inW, lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() {
		err := engineMain(args, inR, outW)
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *pipeEngine) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("send %q: %v", line, err)
	}
}

// until reads lines up to the first whose first word is word and returns
// them all.
func (p *pipeEngine) until(word string) []string {
	p.t.Helper()
	var lines []string
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the engine's output ended before %s; it wrote %q", word, lines)
			}
			lines = append(lines, line)
			if f := strings.Fields(line); len(f) > 0 && f[0] == word {
				return lines
			}
		case <-timeout:
			p.t.Fatalf("no %s within 20 s; the engine wrote %q", word, lines)
		}
	}
}

func TestEngine_HandshakeAndLegalBestMoves(t *testing.T) {
	p := startPipeEngine(t, "--sims", "24")
	p.send("uci")
	lines := p.until("uciok")
	if !strings.Contains(strings.Join(lines, "\n"), "id name millzero") {
		t.Errorf("uci answered %q, want id name millzero", lines)
	}
	p.send("setoption name variant value nine")
	p.send("isready")
	p.until("readyok")
	v, _ := engine.Load("nine")
	cases := []struct {
		name, position string
		kind           engine.Kind
	}{
		{"start", "position startpos", engine.Place},
		{"after two", "position startpos moves d6 f4", engine.Place},
		// White closes the mill a7 d7 g7 and must remove: the removal is
		// its own bestmove.
		{"removal due", "position startpos moves d7 d6 a7 f4 g7", engine.Remove},
		{"FEN", "position fen **@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20", engine.Move},
	}
	for _, c := range cases {
		p.send(c.position)
		p.send("go nodes 24")
		lines := p.until("bestmove")
		best := strings.Fields(lines[len(lines)-1])
		g, err := newNineGame()
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(c.position); f[1] == "fen" {
			pos, err := v.ParseFEN(strings.Join(f[2:], " "))
			if err != nil {
				t.Fatal(err)
			}
			g = engine.NewGameFrom(v, pos)
		} else if len(f) > 2 {
			for _, m := range f[3:] {
				g.PlayString(m)
			}
		}
		if len(best) != 2 {
			t.Errorf("%s: answered %q", c.name, lines)
			continue
		}
		a, err := v.ParseAction(&g.Pos, best[1])
		if err != nil {
			t.Errorf("%s: bestmove %s: %v", c.name, best[1], err)
		} else if a.Kind() != c.kind {
			t.Errorf("%s: bestmove %s, want a %d action", c.name, best[1], c.kind)
		}
	}
	p.send("quit")
	if err := <-p.done; err != nil {
		t.Errorf("quit: %v", err)
	}
}

func TestEngine_MalformedCommandsAreAnsweredAndIgnored(t *testing.T) {
	p := startPipeEngine(t, "--variant", "three", "--sims", "16")
	p.send("uci")
	p.until("uciok")
	bad := []struct{ line, want string }{
		{"frobnicate", `unknown command "frobnicate"`},
		{"position sideways", `position "sideways"`},
		{"position", "want startpos or fen"},
		{"position startpos moves b2 b2", "move 2"},
		{"position startpos moves zz9", `"zz9"`},
		{"position fen garbage", "not a FEN"},
		{"position startpos b2", "want moves"},
		{"go movetime soon", `go movetime "soon"`},
		{"go nodes", "want a number"},
		{"go sideways", `unknown limit "sideways"`},
		{"setoption", "setoption name NAME value VALUE"},
		{"setoption name colour value red", `unknown option "colour"`},
		{"setoption name sims value -3", `sims "-3"`},
		{"setoption name NMoveRule value many", `NMoveRule "many"`},
		{"setoption name MayFly value perhaps", "want true or false"},
		{"setoption name PiecesCount value 99", "want a whole number in 3..32"},
		{"setoption name Threads value 0", "want a whole number in 1..64"},
		{"setoption name variant value ninety", `"ninety"`},
	}
	for _, b := range bad {
		if strings.HasPrefix(b.line, "go") {
			p.send("position startpos") // the bad positions before left none
		}
		p.send(b.line)
		p.send("isready")
		lines := p.until("readyok")
		joined := strings.Join(lines, "\n")
		if !strings.Contains(joined, "info string error: ") || !strings.Contains(joined, b.want) {
			t.Errorf("%q answered %q, want an error line naming %q", b.line, lines, b.want)
		}
	}
	// Still playing three: the bad options changed nothing.
	p.send("position startpos moves b2")
	p.send("go movetime 50")
	lines := p.until("bestmove")
	if f := strings.Fields(lines[len(lines)-1]); len(f) != 2 || f[1] == "b2" || len(f[1]) != 2 {
		t.Errorf("after the errors, go answered %q, want a placement on three's board", lines)
	}
	// Boards without a FEN take the project's position string.
	p.send("position fen O@******* side:0 hand:2,2 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:2 moves b2")
	p.send("go nodes 16")
	lines = p.until("bestmove")
	if f := strings.Fields(lines[len(lines)-1]); len(f) != 2 || f[1] == "b2" || f[1] == "a3" || f[1] == "b3" || len(f[1]) != 2 {
		t.Errorf("from a position string, go answered %q, want a placement on an empty point", lines)
	}
	// A finished game has no move.
	p.send("position startpos moves a3 a1 b3 b1 c3")
	p.send("go")
	if lines := p.until("bestmove"); !strings.Contains(strings.Join(lines, "\n"), "bestmove (none)") ||
		!strings.Contains(strings.Join(lines, "\n"), "white wins: white formed a line of three") {
		t.Errorf("go in a finished game answered %q", lines)
	}
	p.in.Close() // the end of input ends the engine like quit
	if err := <-p.done; err != nil {
		t.Errorf("end of input: %v", err)
	}
}

func TestEngine_ArenaExternalPlaysAWholeGameAgainstIt(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	ext := &arena.External{Label: "millzero-engine", Path: os.Args[0],
		Env:      []string{testEngineEnv + "=--sims 32"},
		Options:  []arena.EngineOption{{Name: "Seed", Value: "5"}},
		MoveTime: 40 * time.Millisecond, Grace: 5 * time.Second}
	players := [2]arena.GamePlayer{}
	for s := range players {
		gp, err := ext.NewGame(v, uint64(s))
		if err != nil {
			t.Fatal(err)
		}
		defer gp.Close()
		players[s] = gp
	}
	g, forfeit, why := arena.PlayGame(context.Background(), v, players, nil)
	if forfeit >= 0 {
		t.Fatalf("seat %d forfeited: %s", forfeit, why)
	}
	if r, _ := g.Outcome(); r == engine.Ongoing {
		t.Fatalf("the game stopped unfinished: %s", why)
	}
	t.Logf("%d actions, %s", len(g.Actions), why)
	for _, gp := range players {
		if err := gp.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}

func TestEngine_StopEndsAnInfiniteSearchAndIsreadyAnswersDuringIt(t *testing.T) {
	p := startPipeEngine(t, "--variant", "nine")
	p.send("position startpos moves d6")
	p.send("go infinite")
	p.send("isready")
	if lines := p.until("readyok"); strings.Contains(strings.Join(lines, "\n"), "bestmove") {
		t.Fatalf("an infinite search answered before stop: %q", lines)
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	p.send("stop")
	lines := p.until("bestmove")
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("bestmove %s after stop", el)
	}
	if f := strings.Fields(lines[len(lines)-1]); len(f) != 2 || f[1] == "(none)" || f[1] == "d6" {
		t.Errorf("after stop: %q, want a placement", lines)
	}
	// quit during a search ends it and the engine.
	p.send("go infinite")
	p.send("quit")
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("quit: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("quit during a search did not end the engine within 5 s")
	}
}

func TestEngine_EndOfInputLetsTheSearchAnswer(t *testing.T) {
	var out strings.Builder
	in := strings.NewReader("position startpos\ngo movetime 60\n")
	if err := engineMain([]string{"--variant", "three"}, in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bestmove ") {
		t.Errorf("input ended during the search; the engine wrote %q, want its bestmove", out.String())
	}
}

func TestEngine_FailedModelLoadStillAnswersEveryGo(t *testing.T) {
	// Before: the error was said, and no bestmove.
	var out strings.Builder
	in := strings.NewReader("uci\nisready\nposition startpos\ngo nodes 8\ngo infinite\nstop\n")
	if err := engineMain([]string{"--model", "/nonexistent/gen-000001.safetensors"}, in, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "bestmove (none)"); n != 2 || !strings.Contains(out.String(), "/nonexistent/gen-000001.safetensors") {
		t.Errorf("two go with a missing model: %q, want the file named and two bestmove (none)", out.String())
	}
}

func TestEngine_HelpsPipeExampleAnswersAsPrinted(t *testing.T) {
	// engine --help: printf 'uci\nisready\nposition startpos moves d6 f4\ngo movetime 500\nquit\n' | millzero engine
	var out strings.Builder
	in := strings.NewReader("uci\nisready\nposition startpos moves d6 f4\ngo movetime 500\nquit\n")
	if err := engineMain(nil, in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	best := strings.Fields(lines[len(lines)-1])
	g, _ := newNineGame()
	g.PlayString("d6")
	g.PlayString("f4")
	if len(best) != 2 || best[0] != "bestmove" || g.PlayString(best[1]) != nil {
		t.Errorf("the pipe example ended %q, want a legal bestmove after d6 f4", lines[len(lines)-1])
	}
	if !strings.Contains(out.String(), "info depth ") {
		t.Errorf("no info line during a 500 ms search: %q", out.String())
	}
}

// TestEngine_WithoutAModelPlaysTheBuiltinModel: with no --model or --run
// the engine plays nine with the model that comes with millzero and says
// so; rules of another variant set by setoption give way to rollouts.
func TestEngine_WithoutAModelPlaysTheBuiltinModel(t *testing.T) {
	var out bytes.Buffer
	in := "uci\nisready\nposition startpos\ngo nodes 8\nsetoption name Variant value three\nisready\nposition startpos\ngo nodes 8\nquit\n"
	if err := engineMain(nil, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{"model: built-in nine model (generation", "random-rollout search (no model given, and the built-in model plays nine only)"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	if n := strings.Count(got, "bestmove "); n != 2 {
		t.Errorf("%d bestmove lines, want 2:\n%s", n, got)
	}
}

func TestEngine_ClassicSaysEveryDepthThenItsMove(t *testing.T) {
	var out strings.Builder
	in := "uci\nisready\nposition startpos moves d6 f4\ngo depth 5\nposition startpos\ngo nodes 3000\nquit\n"
	if err := engineMain([]string{"--classic"}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var depths []string
	bestmoves := 0
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) > 2 && f[0] == "info" && f[1] == "depth":
			if !strings.Contains(l, " nodes ") || !strings.Contains(l, " nps ") || !strings.Contains(l, " score cp ") || !strings.Contains(l, " pv ") {
				t.Errorf("info line %q: want depth, nodes, nps, time, score cp and pv", l)
			}
			depths = append(depths, f[2])
		case len(f) == 2 && f[0] == "bestmove":
			bestmoves++
			if f[1] == "(none)" {
				t.Errorf("bestmove (none):\n%s", out.String())
			}
		case strings.Contains(l, "error"):
			t.Errorf("error line %q", l)
		}
	}
	if bestmoves != 2 || len(depths) < 6 || strings.Join(depths[:5], " ") != "1 2 3 4 5" {
		t.Errorf("depths %v, %d bestmoves: want 1..5 for go depth 5, then more for go nodes, two bestmoves\n%s", depths, bestmoves, out.String())
	}
	if err := engineMain([]string{"--classic", "--model", "x.safetensors"}, strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), "--classic") {
		t.Errorf("--classic with --model: %v, want an error naming --classic", err)
	}
}

// newNineGame is a game of nine from its start.
func newNineGame() (*engine.Game, error) {
	v, err := engine.Load("nine")
	if err != nil {
		return nil, err
	}
	return engine.NewGame(v), nil
}
