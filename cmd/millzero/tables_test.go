package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// randomTableWins draws n nine positions of 3 v 3, white to move, that the
// tables of dir say white wins in 3 plies or more with some move that does
// not keep the best value: where a short search by feel can go wrong.
func randomTableWins(t *testing.T, v *engine.Variant, set *tablebase.Set, n int) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var fens []string
	for tries := 0; len(fens) < n && tries < 100000; tries++ {
		board := []byte(strings.Repeat("*", 24))
		for k, perm := 0, rng.Perm(24); k < 6; k++ {
			board[perm[k]] = "O@"[k/3]
		}
		fen := string(board[:8]) + "/" + string(board[8:16]) + "/" + string(board[16:]) + " w m s 3 0 3 0 0 0 0 0 0 0 0 0 1"
		p, err := v.ParseFEN(fen)
		if err != nil {
			continue
		}
		val, err := set.Probe(&p)
		if err != nil || val.Outcome != tablebase.Win || val.Plies < 3 {
			continue
		}
		moves, err := set.Moves(&p, nil)
		if err != nil || moves[len(moves)-1].Value == moves[0].Value {
			continue
		}
		fens = append(fens, fen)
	}
	if len(fens) < n {
		t.Fatalf("found %d won positions, want %d", len(fens), n)
	}
	return fens
}

func TestEngine_WithTablesPlaysTheTablesBestMove(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCmd("tablebase", "build", "--variant", "nine", "--pieces", "6", "--out", dir); code != 0 {
		t.Fatalf("build: %s", errOut)
	}
	v, _ := engine.Load("nine")
	set, err := tablebase.Open(v, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := startPipeEngine(t, "--sims", "8", "--tablebase", dir)
	p.send("isready")
	p.until("readyok")
	for _, fen := range randomTableWins(t, v, set, 12) {
		pos, _ := v.ParseFEN(fen)
		moves, _ := set.Moves(&pos, nil)
		p.send("position fen " + fen)
		p.send("go nodes 8")
		lines := p.until("bestmove")
		best := strings.Fields(lines[len(lines)-1])
		a, err := v.ParseAction(&pos, best[len(best)-1])
		if err != nil {
			t.Fatalf("%s: bestmove %q: %v", fen, lines[len(lines)-1], err)
		}
		for _, m := range moves {
			if m.Action == a && m.Value != moves[0].Value {
				t.Errorf("%s: played %s (%s), the tables' best is %s (%s)", fen, best[len(best)-1], m.Value,
					v.FormatAction(moves[0].Action), moves[0].Value)
			}
		}
	}
	p.send("quit")
	if err := <-p.done; err != nil {
		t.Errorf("quit: %v", err)
	}
}

func TestTablebaseFlag_OtherRulesOrNoTablesIsAClearError(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCmd("tablebase", "build", "--variant", "nine", "--pieces", "6", "--out", dir); code != 0 {
		t.Fatalf("build: %s", errOut)
	}
	empty := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{
		{"arena", "random", "rollout@4", "--pairs", "1", "--variant", "nine-diagonal", "--tablebase", dir},
		{"arena", "random", "rollout@4", "--pairs", "1", "--tablebase", empty},
	} {
		code, _, errOut := runCmd(args...)
		if code == 0 || !strings.Contains(errOut, "--tablebase") {
			t.Errorf("%q: exit %d, %q: want an error naming --tablebase", args, code, errOut)
		}
	}
}

func TestOracle_TablebaseMeasuresMoveAccuracyByMaterial(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCmd("tablebase", "build", "--variant", "nine", "--pieces", "6", "--out", dir+"/tb"); code != 0 {
		t.Fatalf("build: %s", errOut)
	}
	if err := os.MkdirAll(dir+"/run", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/run/run.yaml", []byte("variant: nine\nmodel: {width: 16, blocks: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd("oracle", "--run", dir+"/run", "--untrained", "--tablebase", dir+"/tb", "--positions", "20", "--sims", "8")
	if code != 0 {
		t.Fatalf("oracle: %s", errOut)
	}
	for _, want := range []string{"3v3", "all", "search@8 right", "20 positions"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := runCmd("oracle", "--run", dir+"/run", "--untrained", "--tablebase", dir+"/missing"); code == 0 || !strings.Contains(errOut, "missing") {
		t.Errorf("missing tables: exit %d, %q: want an error naming the directory", code, errOut)
	}
	// auto reads the tables where a run's `tablebase: auto` keeps them in
	// the user cache: here a link to the ones just built.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	v, _ := engine.Load("nine")
	auto, err := tablebase.AutoDir(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(auto), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir+"/tb", auto); err != nil {
		t.Fatal(err)
	}
	autoCode, autoOut, errOut := runCmd("oracle", "--run", dir+"/run", "--untrained", "--tablebase", "auto", "--positions", "20", "--sims", "8")
	if autoCode != 0 || strings.ReplaceAll(autoOut, auto, dir+"/tb") != out {
		t.Errorf("--tablebase auto: exit %d, %q, output:\n%s\nwant the output of the directory, naming %s:\n%s", autoCode, errOut, autoOut, auto, out)
	}
}
