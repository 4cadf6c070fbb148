package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/millzero/millzero/arena"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
)

func TestServe_AnswersTheProtocol(t *testing.T) {
	v := loadVariant(t, "nine")
	// White slides g4-g7 to close a mill and win (see the alpha-beta test).
	p, err := v.ParsePosition("OO*O****/@****@**/****O*@* side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40")
	if err != nil {
		t.Fatal(err)
	}
	fen, err := v.FEN(&p)
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		"uci",
		"setoption name Skill value 3",
		"ucinewgame",
		"isready",
		"position startpos moves a7 b6 d7 c5",
		"go movetime 100",
		"position fen garbage",
		"position startpos moves a7 a7",
		"position startpos moves",
		"frobnicate",
		"position fen " + fen,
		"go",
		"quit",
		"go",
	}, "\n")
	var out strings.Builder
	if err := Serve(context.Background(), v, arena.AlphaBeta{Depth: 2}, "yardstick", 0, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, "option ") {
			lines = append(lines, l)
		}
	}
	want := []string{
		"id name yardstick",
		"id author millzero",
		"uciok",
		`info string error: setoption: unknown option "Skill"`,
		"readyok",
		"bestmove g7",
		"info string error: position: ",
		"info string error: position: move 2: ",
		"info string error: unknown command \"frobnicate\"",
		"bestmove g4-g7",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start %q", i+1, lines[i], w)
		}
	}
	for _, o := range append([]string{"Variant", "Model", "Visits", "Threads"}, arena.RuleOptionNames()...) {
		if !strings.Contains(out.String(), "option name "+o+" type ") {
			t.Errorf("uci lists no option %s:\n%s", o, out.String())
		}
	}
}

// served runs a Server of a small rollout search on in and returns its
// output lines.
func served(t *testing.T, s *Server, in string) []string {
	t.Helper()
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// rolloutServer serves a rollout search of variant name, 32 visits a go.
func rolloutServer(t *testing.T, name string) *Server {
	v := loadVariant(t, name)
	p := arena.NewSearchPlayer("rollout@32", arena.ArenaSettings(32), arena.Evaluation{})
	return &Server{Name: "test", Options: EngineOptions{Visits: 32, Threads: 1, Seed: 1},
		Load: func(o EngineOptions) (Engine, error) { return FixedEngine(v, p, o) }}
}

// count is how many lines start with prefix.
func count(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func TestServe_FailedPositionLeavesNoPosition(t *testing.T) {
	// Before: the go after a bad position searched the position before it.
	lines := served(t, rolloutServer(t, "nine"), "position startpos moves d6\nposition startpos moves d6 d6\ngo nodes 16\n"+
		"position startpos moves d6\ngo nodes 16\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "info string error: no position") || lines[2] != "bestmove (none)" {
		t.Fatalf("go after a failed position answered %q, want an error naming no position, then bestmove (none)", lines)
	}
	if last := lines[len(lines)-1]; last == "bestmove (none)" || !strings.HasPrefix(last, "bestmove ") || count(lines, "bestmove") != 2 {
		t.Errorf("a good position after the bad one: %q, want a move", lines)
	}
}

func TestServe_EveryGoIsAnsweredWhenTheEngineDoesNotLoad(t *testing.T) {
	// Before: a go whose engine failed to load answered only an error.
	s := &Server{Name: "test", Load: func(EngineOptions) (Engine, error) {
		return Engine{}, errors.New("checkpoint broken.safetensors: truncated")
	}}
	lines := served(t, s, "isready\nposition startpos\ngo movetime 10\ngo infinite\nstop\ngo sideways\n")
	if n := count(lines, "bestmove (none)"); n != 3 || count(lines, "bestmove") != 3 {
		t.Errorf("three go with no engine: %d bestmove (none) in %q, want 3", n, lines)
	}
	if !strings.Contains(strings.Join(lines, "\n"), "truncated") {
		t.Errorf("the load error is not said: %q", lines)
	}
}

func TestServe_LongLinesAreRefusedNotFatal(t *testing.T) {
	// Before: a line over the scanner's 4 MB ended Serve with an error.
	long := "position startpos moves" + strings.Repeat(" d6", 2<<20) // 6 MB
	in := "position startpos moves d6\n" + long + "\ngo nodes 8\n" + "go " + strings.Repeat("x", 5<<20) + "\nisready\n"
	lines := served(t, rolloutServer(t, "nine"), in)
	joined := strings.Join(lines, "\n")
	if count(lines, "info string error: line longer than") != 2 {
		t.Errorf("two over-long lines: %q, want two errors saying so", lines)
	}
	if count(lines, "bestmove (none)") != 2 || lines[len(lines)-1] != "readyok" {
		t.Errorf("go after a refused position, and a refused go: %q, want two bestmove (none), then readyok", joined)
	}
}

func TestServe_InfiniteSearchesUntilStop(t *testing.T) {
	// Before: go infinite answered by itself once its tree was full.
	s := rolloutServer(t, "nine")
	s.MaxNodes = 2000 // full within milliseconds
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(l string) { fmt.Fprintln(inW, l) }
	until := func(word string) []string {
		var got []string
		timeout := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("output ended before %s: %q", word, got)
				}
				got = append(got, l)
				if strings.HasPrefix(l, word) {
					return got
				}
			case <-timeout:
				t.Fatalf("no %s within 20 s: %q", word, got)
			}
		}
	}
	send("position startpos")
	send("go infinite")
	time.Sleep(300 * time.Millisecond)
	send("isready")
	if got := until("readyok"); count(got, "bestmove") != 0 {
		t.Fatalf("go infinite answered before stop: %q", got)
	}
	send("stop")
	if got := until("bestmove"); got[len(got)-1] == "bestmove (none)" {
		t.Errorf("after stop: %q, want a move", got)
	}
	// Quit during an infinite search: its bestmove, then the end.
	send("go infinite")
	send("quit")
	if got := until("bestmove"); count(got, "bestmove") != 1 {
		t.Errorf("quit during go infinite: %q", got)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
	inW.Close()
}

func TestServe_QuitAndEndOfInputLetABoundedSearchAnswer(t *testing.T) {
	for _, end := range []string{"quit\n", ""} {
		lines := served(t, rolloutServer(t, "nine"), "position startpos moves d6 f4\ngo movetime 200\n"+end)
		if n := count(lines, "bestmove "); n != 1 || lines[len(lines)-1] == "bestmove (none)" {
			t.Errorf("input ending %q: %q, want the search's bestmove", end, lines)
		}
	}
}

func TestServe_InfoLinesWhileSearching(t *testing.T) {
	s := rolloutServer(t, "nine")
	s.InfoEvery = 30 * time.Millisecond
	lines := served(t, s, "position startpos\ngo movetime 300\n")
	var infos []string
	for _, l := range lines {
		if strings.HasPrefix(l, "info depth ") {
			infos = append(infos, l)
		}
	}
	if len(infos) < 2 {
		t.Fatalf("%d info lines in a 300 ms search at 30 ms: %q", len(infos), lines)
	}
	last := strings.Fields(infos[len(infos)-1])
	var depth, nodes, nps, ms, cp int
	if _, err := fmt.Sscanf(strings.Join(last[:13], " "), "info depth %d nodes %d nps %d time %d score cp %d pv",
		&depth, &nodes, &nps, &ms, &cp); err != nil {
		t.Fatalf("info line %q: %v", infos[len(infos)-1], err)
	}
	pv := last[13:]
	best := strings.Fields(lines[len(lines)-1])
	switch {
	case depth != len(pv) || depth < 1:
		t.Errorf("depth %d with pv %v: want the pv's length", depth, pv)
	case nodes < 1 || nps < 1 || cp < -1000 || cp > 1000:
		t.Errorf("info %q: nodes, nps or score out of range", infos[len(infos)-1])
	case len(best) != 2 || best[1] != pv[0]:
		t.Errorf("bestmove %q, pv %v: want the pv's first move", best, pv)
	}
}

func TestServe_RuleOptionsChangeTheGame(t *testing.T) {
	// Three pieces each: the seventh placement is not legal any more.
	lines := served(t, rolloutServer(t, "nine"), "setoption name PiecesCount value 3\n"+
		"position startpos moves a7 a1 d7 d1 b6 b2 c5\nsetoption name piecescount value 2\nsetoption name NMoveRule value 5\n"+
		"position startpos moves a7 a1 d7 d1 b6 b2\nsetoption name NMoveRule value 100\n"+
		"position startpos moves a7 a1 d7 d1 b6 b2\ngo nodes 16\n")
	if !strings.HasPrefix(lines[0], "info string error: position: move 7") {
		t.Errorf("a seventh placement with three pieces each: %q, want it refused", lines[0])
	}
	if !strings.Contains(lines[1], "PiecesCount \"2\": want a whole number in 3..32") {
		t.Errorf("PiecesCount 2: %q, want it refused", lines[1])
	}
	if !strings.Contains(lines[2], "no-capture draw") {
		t.Errorf("six plies with NMoveRule 5: %q, want the game drawn", lines[2])
	}
	if best := lines[len(lines)-1]; !strings.Contains(best, "-") {
		t.Errorf("after six placements of three pieces each: %q, want a move (the moving phase)", lines)
	}
}

func TestMoveBudget_TimeManager(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name       string
		clock, inc time.Duration
		toGo       int64
		want       time.Duration
	}{
		{"a thirtieth without a control", 60000 * ms, 0, 0, 2000 * ms},
		{"plus three quarters of the increment", 60000 * ms, 1000 * ms, 0, 2750 * ms},
		{"the clock over the moves to go", 10000 * ms, 0, 5, 2000 * ms},
		{"never the whole clock at the last move", 1000 * ms, 0, 1, 880 * ms},
		{"at least 5 ms on an empty clock", 0, 0, 0, 5 * ms},
	}
	for _, tc := range tests {
		if got := moveBudget(tc.clock, tc.inc, tc.toGo); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	l, _, err := parseGo([]string{"wtime", "60000", "btime", "30000", "movestogo", "10"}, 1)
	if err != nil || l.moveTime != 3000*ms {
		t.Errorf("black's clock of 30 s over 10 moves: %s (%v), want 3s", l.moveTime, err)
	}
	if l, _, _ := parseGo([]string{"wtime", "60000", "movetime", "100"}, 0); l.moveTime != 100*ms {
		t.Errorf("movetime with a clock: %s, want movetime's 100ms", l.moveTime)
	}
}

func TestEngineOptions_RuleValuesDescribeEveryVariant(t *testing.T) {
	for _, name := range engine.Names() {
		v := loadVariant(t, name)
		var o EngineOptions
		for _, r := range arena.RuleValues(v) {
			if err := o.Set(r.Name, r.Value); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		got, err := o.ApplyRules(v)
		if err != nil || got != v {
			t.Errorf("%s: its own rule values changed it (%v)", name, err)
		}
	}
}

func TestEngineOptions_RulesMapToTheSpec(t *testing.T) {
	nine := loadVariant(t, "nine")
	tests := []struct {
		name, value string
		check       func(s engine.Spec) bool
	}{
		{"PiecesCount", "12", func(s engine.Spec) bool { return s.Pieces == 12 }},
		{"HasDiagonalLines", "true", func(s engine.Spec) bool { return s.Board.Spokes == "both" }},
		{"MayFly", "false", func(s engine.Spec) bool { return s.FlyAt == 0 }},
		{"NMoveRule", "50", func(s engine.Spec) bool { return s.NoCaptureDraw == 50 }},
		{"EndgameNMoveRule", "0", func(s engine.Spec) bool { return s.EndgameDraw == 0 }},
		{"ThreefoldRepetitionRule", "FALSE", func(s engine.Spec) bool { return s.RepetitionDraw == 0 }},
		{"MayRemoveFromMillsAlways", "true", func(s engine.Spec) bool { return s.RemoveFromMillsAlways }},
	}
	for _, tc := range tests {
		var o EngineOptions
		if err := o.Set(tc.name, tc.value); err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.value, err)
		}
		v, err := o.ApplyRules(nine)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.value, err)
		}
		if !tc.check(v.Spec) || v.Name != "nine" || !strings.Contains(v.Description, tc.name) {
			t.Errorf("%s %s: spec %+v", tc.name, tc.value, v.Spec)
		}
	}
	var o EngineOptions
	for _, bad := range [][2]string{{"PiecesCount", "2"}, {"MayFly", "yes"}, {"NMoveRule", "-1"}, {"Colour", "red"}, {"Threads", "65"}, {"Visits", "0"}} {
		if err := o.Set(bad[0], bad[1]); err == nil {
			t.Errorf("%s %s: no error", bad[0], bad[1])
		}
	}
	if len(o.Rules) != 0 || o.Visits != 0 {
		t.Errorf("bad values changed the options: %+v", o)
	}
	o.Set("HasDiagonalLines", "true")
	if _, err := o.ApplyRules(loadVariant(t, "moulin-rouge")); err == nil {
		t.Error("HasDiagonalLines true on the ring board: no error")
	}
}

func TestServe_ThreadsSearchOneTreeEach(t *testing.T) {
	s := rolloutServer(t, "nine")
	s.InfoEvery = 20 * time.Millisecond
	lines := served(t, s, "setoption name Threads value 2\nposition startpos moves d6\ngo nodes 64\ngo movetime 150\n")
	var finals []string
	for i, l := range lines {
		if strings.HasPrefix(l, "bestmove") {
			finals = append(finals, lines[i-1])
			if l == "bestmove (none)" || strings.Fields(l)[1] == "d6" {
				t.Errorf("two threads answered %q", l)
			}
		}
	}
	if len(finals) != 2 || !strings.Contains(finals[0], " nodes 64 ") {
		t.Fatalf("go nodes 64 on two threads: %q, want its final info line to count 64 nodes (32 a thread)", lines)
	}
	if f := strings.Fields(finals[1]); len(f) < 14 || f[13] != strings.Fields(lines[len(lines)-1])[1] {
		t.Errorf("final info %q does not lead with the bestmove %q", finals[1], lines[len(lines)-1])
	}
}
