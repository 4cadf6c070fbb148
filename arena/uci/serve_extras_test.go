package uci

import (
	"fmt"
	"strings"
	"testing"

	"github.com/millzero/millzero/mcts"
)

func TestServe_AnUnknownCommandIsNamedCutNotEchoed(t *testing.T) {
	// Before: the answer echoed the whole word, a megabyte of it.
	word := strings.Repeat("x", 1<<20-10)
	lines := served(t, rolloutServer(t, "nine"), word+"\ngo "+word+"\nsetoption name "+word+" value 1\nisready\n")
	for _, l := range lines {
		if len(l) > maxErrorBytes+len("info string error: ")+8 {
			t.Errorf("a %d-byte answer line: %.80q...", len(l), l)
		}
	}
	if !strings.HasPrefix(lines[0], `info string error: unknown command "xxxxxxxx`) || !strings.Contains(lines[0], `..."`) {
		t.Errorf("unknown command: %.200q, want it named, cut", lines[0])
	}
	if lines[len(lines)-1] != "readyok" || count(lines, "bestmove (none)") != 1 {
		t.Errorf("answers: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestServe_VisitsAreBoundedByMaxVisits(t *testing.T) {
	lines := served(t, rolloutServer(t, "nine"), fmt.Sprintf("setoption name Visits value %d\nsetoption name Visits value %d\n", mcts.MaxVisits+1, mcts.MaxVisits))
	if len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf("1..%d", mcts.MaxVisits)) {
		t.Errorf("Visits %d: %q, want one error naming the bound", mcts.MaxVisits+1, lines)
	}
	l, notes, err := parseGo([]string{"nodes", "999999999999", "depth", "1000"}, 0)
	if err != nil || l.nodes != mcts.MaxVisits || l.depth != MaxDepth || len(notes) != 2 {
		t.Errorf("go nodes 999999999999 depth 1000: nodes %d depth %d notes %q (%v), want %d, %d and two notes", l.nodes, l.depth, notes, err, mcts.MaxVisits, MaxDepth)
	}
}

func TestServe_DebugSaysMoreAndAFinishedGameIsSaidAtPosition(t *testing.T) {
	// The second position waits for the search: debug off comes after it.
	in := "debug on\nposition startpos moves d6\ngo nodes 16\nposition startpos moves d6\ndebug off\ngo nodes 16\ndebug sideways\n" +
		"position fen O@O*****/********/******** side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40\ngo nodes 16\n"
	lines := served(t, rolloutServer(t, "nine"), in)
	if n := count(lines, "info string debug: "); n != 4 {
		t.Errorf("%d debug lines, want 4 (position, go, root, position) while on: %q", n, lines)
	}
	if count(lines, "info string error: debug: ") != 1 {
		t.Errorf("debug sideways: no error in %q", lines)
	}
	if count(lines, "info string game over: black wins") != 1 || lines[len(lines)-1] != "bestmove (none)" {
		t.Errorf("a finished game: %q, want it said at position and go answered bestmove (none)", lines)
	}
}

func TestWDLPermille_SumsTo1000AndKeepsTheScore(t *testing.T) {
	cases := []struct {
		s       float64
		root    rootEval
		drawn   bool
		w, d, l int
	}{
		{0.5, rootEval{ok: true, draw: 0.6}, false, 200, 600, 200},
		{0.9, rootEval{ok: true, draw: 0.6}, false, 800, 200, 0}, // the draw share leaves room for the score
		{0.7, rootEval{}, false, 700, 0, 300},                    // no evaluator answer: no draws
		{0.5, rootEval{ok: true, draw: 0.1}, true, 0, 1000, 0},   // proven drawn
		{1, rootEval{ok: true, draw: 0.3}, false, 1000, 0, 0},
	}
	for _, c := range cases {
		w, d, l := wdlPermille(c.s, c.root, c.drawn)
		if w != c.w || d != c.d || l != c.l || w+d+l != 1000 {
			t.Errorf("score %v, root %+v, drawn %v: %d %d %d, want %d %d %d", c.s, c.root, c.drawn, w, d, l, c.w, c.d, c.l)
		}
	}
}
