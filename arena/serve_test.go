package arena

import (
	"context"
	"strings"
	"testing"
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
	if err := Serve(context.Background(), v, AlphaBeta{Depth: 2}, "yardstick", 0, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"id name yardstick",
		"id author millzero",
		"uciok",
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
}
