package uci

import (
	"context"
	"github.com/millzero/millzero/arena"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/internal/syncbuf"
)

// boundNumbers caps every number in the input at 50, so that no go (and
// no Visits option) searches for long: the fuzzer is after the command
// reader, not the search.
func boundNumbers(in string) string {
	lines := strings.Split(in, "\n")
	for i, line := range lines {
		f := strings.Fields(line)
		changed := false
		for j, w := range f {
			if n, err := strconv.ParseInt(w, 10, 64); (err == nil && n > 50) || (err != nil && strings.Trim(w, "0123456789") == "") {
				f[j], changed = "50", true
			}
		}
		if changed {
			lines[i] = strings.Join(f, " ")
		}
	}
	return strings.Join(lines, "\n")
}

// FuzzServer feeds the command reader random lines: it never panics, never
// hangs, and answers every go before quit with exactly one bestmove.
func FuzzServer(f *testing.F) {
	for _, seed := range []string{
		"uci\nisready\nposition startpos moves d6 f4\ngo movetime 5\nquit\n",
		"position startpos\ngo infinite\nisready\nstop\n",
		"go infinite\n",
		"go infinite\nposition startpos moves d6\ngo nodes 8\n",
		"position fen garbage\ngo\nposition startpos moves d6 d6\ngo nodes 3\n",
		"setoption name PiecesCount value 3\nsetoption name NMoveRule value 5\nposition startpos moves a7 a1 d7\ngo nodes 4\n",
		"setoption name HasDiagonalLines value true\nsetoption name MayFly value false\nsetoption name Variant value three\ngo\n",
		"setoption name Visits value 4\nsetoption name Threads value 2\nsetoption name Colour value red\nsetoption\n",
		"go wtime 40 btime 40 winc 1 binc 1 movestogo 3\ngo depth 3\ngo mate 2\ngo sideways\ngo nodes\n",
		"ucinewgame\nd\ngo ponder\nponderhit\nstop\nquit\ngo\n",
		"position startpos moves a7 a1 d7 d1 g7\ngo nodes 8\nposition startpos moves a7 a1 d7 d1 g7 xa1\ngo nodes 8\n",
		"\r\n\t\ngo\r\n  go   nodes   2  \nquit",
	} {
		f.Add(seed)
	}
	v := loadVariant(f, "nine")
	p := arena.NewSearchPlayer("rollout@8", arena.ArenaSettings(8), arena.Evaluation{})
	f.Fuzz(func(t *testing.T, in string) {
		in = boundNumbers(in)
		s := &Server{Name: "fuzz", Options: EngineOptions{Visits: 8, Threads: 1, Seed: 1}, MaxNodes: 4000,
			Load: func(o EngineOptions) (Engine, error) { return FixedEngine(v, p, o) }}
		var out syncbuf.Buffer
		done := make(chan error, 1)
		go func() { done <- s.Serve(context.Background(), strings.NewReader(in), &out) }()
		gos := 0
		for _, line := range strings.Split(in, "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				if f[0] == "quit" {
					break
				}
				if f[0] == "go" {
					gos++
				}
			}
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
		case <-time.After(10*time.Second + time.Duration(gos)*100*time.Millisecond):
			t.Fatalf("no end within %s; wrote %q", 10*time.Second+time.Duration(gos)*100*time.Millisecond, out.String())
		}
		answers := 0
		for _, line := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == "bestmove" {
				answers++
			}
		}
		if answers != gos {
			t.Fatalf("%d go, %d bestmove; input %q, output %q", gos, answers, in, out.String())
		}
	})
}
