package main

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/version"
)

// uciDriver drives `millzero engine` as a separate process over its
// standard input and output, as a match runner (cutechess-cli) does: it
// writes commands and reads every answer line, so the grammar and the
// order of the answers can be checked.
type uciDriver struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    *os.File
	lines chan string
}

func startUCIDriver(t *testing.T, args string) *uciDriver {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), testEngineEnv+"="+args)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	d := &uciDriver{t: t, cmd: cmd, in: inW, lines: make(chan string, 4096)}
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return d
}

func (d *uciDriver) send(line string) {
	d.t.Helper()
	if _, err := d.in.WriteString(line + "\n"); err != nil {
		d.t.Fatalf("send %q: %v", line, err)
	}
}

// until reads the lines up to and including the first whose first word is
// word.
func (d *uciDriver) until(word string) []string {
	d.t.Helper()
	var got []string
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				d.t.Fatalf("the engine's output ended before %s: %q", word, got)
			}
			got = append(got, l)
			if f := strings.Fields(l); len(f) > 0 && f[0] == word {
				return got
			}
		case <-timeout:
			d.t.Fatalf("no %s within 30 s: %q", word, got)
		}
	}
}

// quiet checks that the engine writes nothing for a while: no answer
// comes before its time.
func (d *uciDriver) quiet(wait time.Duration, why string) {
	d.t.Helper()
	select {
	case l := <-d.lines:
		d.t.Fatalf("%s: the engine wrote %q", why, l)
	case <-time.After(wait):
	}
}

var (
	idLine     = regexp.MustCompile(`^id (name|author) \S.*$`)
	optionLine = regexp.MustCompile(`^option name \S+ type (check|spin|string|combo|button)( default \S+)?( min -?\d+ max \d+)?$`)
	infoSearch = regexp.MustCompile(`^info depth (\d+) nodes (\d+) nps (\d+) time (\d+) score cp (-?\d+) wdl (\d+) (\d+) (\d+) pv( \S+)+$`)
	bestLine   = regexp.MustCompile(`^bestmove (\S+)( ponder (\S+))?$`)
)

// searchAnswer checks the answer to one go: info lines (search lines with
// wdl summing to 1000, or info string), then one bestmove, last. It
// returns the best move, the ponder move ("" if none) and the last
// search line's depth.
func searchAnswer(t *testing.T, lines []string) (best, ponder string, depth int) {
	t.Helper()
	depth = -1
	for i, l := range lines {
		if i == len(lines)-1 {
			m := bestLine.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("answer ends with %q, want bestmove M [ponder P]: %q", l, lines)
			}
			return m[1], m[3], depth
		}
		if strings.HasPrefix(l, "info string ") {
			continue
		}
		m := infoSearch.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is neither a search info line (with wdl) nor info string", l)
		}
		w, _ := strconv.Atoi(m[6])
		dr, _ := strconv.Atoi(m[7])
		lo, _ := strconv.Atoi(m[8])
		if w+dr+lo != 1000 {
			t.Errorf("%q: wdl sums to %d, want 1000", l, w+dr+lo)
		}
		depth, _ = strconv.Atoi(m[1])
	}
	t.Fatalf("no bestmove in %q", lines)
	return
}

// legalIn reports whether move is legal after moves from the start.
func legalIn(t *testing.T, v *engine.Variant, moves []string, move string) bool {
	t.Helper()
	g := engine.NewGame(v)
	for _, m := range moves {
		if err := g.PlayString(m); err != nil {
			t.Fatalf("replay %q: %v", moves, err)
		}
	}
	_, err := v.ParseAction(&g.Pos, move)
	return err == nil
}

// TestEngine_ScriptedClientAsAMatchRunnerDrivesIt drives the built
// engine through a whole match-runner dialog as cutechess-cli does: handshake,
// options, new game, clocked searches, ponder with ponderhit and with
// stop, infinite with stop, searchmoves, depth, a finished game, quit.
func TestEngine_ScriptedClientAsAMatchRunnerDrivesIt(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	d := startUCIDriver(t, "--sims 64 --seed 3")

	d.send("uci")
	hello := d.until("uciok")
	if hello[0] != "id name millzero "+version.Version() || !slices.Contains(hello, "id author millzero contributors") {
		t.Errorf("handshake %q: want id name millzero %s first and the author", hello, version.Version())
	}
	for _, l := range hello[:len(hello)-1] {
		if !idLine.MatchString(l) && !optionLine.MatchString(l) && !strings.HasPrefix(l, "info string ") {
			t.Errorf("handshake line %q is not id, option or info string", l)
		}
	}
	for _, o := range []string{"option name UCI_ShowWDL type check default false", "option name Ponder type check default false",
		"option name Visits type spin default 64 min 1 max 100000"} {
		if !slices.Contains(hello, o) {
			t.Errorf("handshake lacks %q: %q", o, hello)
		}
	}
	d.send("isready")
	if got := d.until("readyok"); len(got) != 1 {
		t.Errorf("isready: %q, want readyok alone", got)
	}
	d.send("ucinewgame")
	d.send("setoption name UCI_ShowWDL value true")
	d.send("setoption name Ponder value true")
	d.send("isready")
	if got := d.until("readyok"); len(got) != 1 {
		t.Errorf("options, then isready: %q, want readyok alone", got)
	}

	// A clocked move: 2 s each, 100 ms increments.
	moves := []string{"d6", "f4"}
	d.send("position startpos moves " + strings.Join(moves, " "))
	start := time.Now()
	d.send("go wtime 2000 btime 2000 winc 100 binc 100")
	best, ponder, _ := searchAnswer(t, d.until("bestmove"))
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("a move on a 2 s clock took %s", took)
	}
	if !legalIn(t, v, moves, best) || ponder == "" || !legalIn(t, v, append(moves, best), ponder) {
		t.Fatalf("bestmove %s ponder %s after %q: want both legal", best, ponder, moves)
	}

	// Ponder on the expected reply; the opponent plays it: ponderhit.
	moves = append(moves, best, ponder)
	d.send("position startpos moves " + strings.Join(moves, " "))
	d.send("go ponder wtime 2000 btime 2000 winc 100 binc 100")
	d.quiet(300*time.Millisecond, "pondering without ponderhit: no bestmove yet")
	d.send("isready")
	d.until("readyok")
	d.send("ponderhit")
	best, _, _ = searchAnswer(t, d.until("bestmove"))
	if !legalIn(t, v, moves, best) {
		t.Fatalf("after ponderhit: bestmove %s, not legal after %q", best, moves)
	}

	// Ponder, but the opponent played another move: stop, and a new go.
	d.send("position startpos moves " + strings.Join(append(moves, best), " "))
	d.send("go ponder wtime 2000 btime 2000")
	d.quiet(200*time.Millisecond, "pondering: no bestmove before stop")
	d.send("stop")
	searchAnswer(t, d.until("bestmove"))

	// Infinite until stop; isready is answered meanwhile.
	d.send("position startpos moves " + strings.Join(moves, " "))
	d.send("go infinite")
	d.quiet(300*time.Millisecond, "go infinite: no bestmove before stop")
	d.send("isready")
	if got := d.until("readyok"); slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "bestmove") }) {
		t.Fatalf("go infinite answered before stop: %q", got)
	}
	d.send("stop")
	best, _, _ = searchAnswer(t, d.until("bestmove"))
	if !legalIn(t, v, moves, best) {
		t.Errorf("after stop: bestmove %s not legal", best)
	}

	// searchmoves and depth.
	d.send("go nodes 200 searchmoves a1 g7")
	if best, _, _ = searchAnswer(t, d.until("bestmove")); best != "a1" && best != "g7" {
		t.Errorf("go searchmoves a1 g7: bestmove %s", best)
	}
	d.send("go depth 3")
	if _, _, depth := searchAnswer(t, d.until("bestmove")); depth < 3 {
		t.Errorf("go depth 3: the last info line says depth %d", depth)
	}

	// A finished game: said at position, and go answers no move.
	d.send("position fen O@O*****/********/******** side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40")
	d.send("go movetime 100")
	got := d.until("bestmove")
	if !strings.HasPrefix(got[0], "info string game over: black wins") || got[len(got)-1] != "bestmove (none)" {
		t.Errorf("a finished game: %q, want info string game over ..., then bestmove (none)", got)
	}

	d.send("quit")
	exited := make(chan error, 1)
	go func() { exited <- d.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("quit: %v, want exit 0", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the engine did not exit within 5 s of quit")
	}
	if l, ok := <-d.lines; ok {
		t.Errorf("after quit the engine wrote %q", l)
	}
}
