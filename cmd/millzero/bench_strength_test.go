package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/store"
)

func TestBenchStrength_JSONRowPerDepthWithEveryGame(t *testing.T) {
	dir := store.Dir(t.TempDir())
	saveGen(t, dir, "nine", 3)
	games := filepath.Join(t.TempDir(), "games")
	code, out, errOut := runCmd("bench", "strength", "--model", dir.Model(3), "--sims", "4", "--classic", "classic:1", "--depths", "2", "--pairs", "2", "--json", "--games", games)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []arena.StrengthRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("output is not JSON rows: %v\n%s", err, out)
	}
	if len(rows) != 2 || rows[0].Opponent != "classic:1" || rows[1].Opponent != "alphabeta:2" {
		t.Fatalf("rows %+v: want classic:1 then alphabeta:2", rows)
	}
	for _, r := range rows {
		if r.Games != 4 || r.Wins+r.Draws+r.Losses != 4 || r.Penta.Pairs() != 2 {
			t.Errorf("row %+v: want 4 games in 2 complete pairs", r)
		}
	}
	for _, r := range rows {
		if r.ThrownEndgames != -1 {
			t.Errorf("row %+v: thrown endgames counted without --tablebase", r)
		}
	}
	if code, _, errOut := runCmd("bench", "strength", "--model", dir.Model(3), "--tablebase", filepath.Join(t.TempDir(), "none")); code == 0 || !strings.Contains(errOut, "--tablebase") {
		t.Errorf("--tablebase of a missing directory: exit %d, %q: want an error naming the flag", code, errOut)
	}
	// auto reads the tables a run's `tablebase: auto` builds in the user
	// cache: none there yet, so an error naming that directory.
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if code, _, errOut := runCmd("bench", "strength", "--model", dir.Model(3), "--tablebase", "auto"); code == 0 || !strings.Contains(errOut, filepath.Join(cache, "millzero", "tables")) {
		t.Errorf("--tablebase auto with an empty cache: exit %d, %q: want an error naming %s/millzero/tables", code, errOut, cache)
	}
	// --games keeps every game, and they add up to the rows.
	recs, err := arena.ReadRecordDir(games)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d games kept under --games, want the 8 played", len(recs))
	}
	for _, r := range rows {
		if got := arena.StrengthOf("gen-000003@4", r.Opponent, recs); got.Wins != r.Wins || got.Draws != r.Draws || got.Losses != r.Losses {
			t.Errorf("kept games against %s give %d/%d/%d, the row %d/%d/%d", r.Opponent, got.Wins, got.Draws, got.Losses, r.Wins, r.Draws, r.Losses)
		}
	}
}

func TestBenchStrength_BadInputIsAClearError(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "give --run or --model"},
		{[]string{"--model", filepath.Join(dir, "none.safetensors")}, "none.safetensors"},
		{[]string{"--model", "x", "--depths", "2,nine"}, `"nine" is not a depth`},
		{[]string{"--model", "x", "--classic", "classic@fast"}, `--classic "classic@fast"`},
		{[]string{"--model", "x", "--classic", "alphabeta:3"}, `want classic@TIME or classic:N`},
		{[]string{"--model", "x", "--classic", "none"}, `no yardstick`},
		{[]string{"--model", "x", "--pairs", "0"}, "--pairs 0"},
	} {
		code, _, errOut := runCmd(append([]string{"bench", "strength"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("bench strength %q: exit %d, %q: want an error naming %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestBenchStrength_FromABookEveryPairOpensFromIt(t *testing.T) {
	dir := store.Dir(t.TempDir())
	saveGen(t, dir, "nine", 3)
	book := filepath.Join(t.TempDir(), "book.txt")
	if code, out, errOut := runCmd("openings", "build", "--judge", "classic:2", "--count", "4", "--out", book); code != 0 {
		t.Fatalf("openings build: exit %d %s\n%s", code, errOut, out)
	}
	games := filepath.Join(t.TempDir(), "games")
	args := []string{"bench", "strength", "--model", dir.Model(3), "--sims", "4", "--classic", "classic:1", "--pairs", "2", "--book", book, "--games", games, "--json"}
	code, out, errOut := runCmd(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []arena.StrengthRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].Games != 4 || !strings.HasPrefix(rows[0].Book, "sha256:") {
		t.Fatalf("rows %+v (%v): want one row of 4 games from the book", rows, err)
	}
	recs, err := arena.ReadRecordDir(games)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d games kept (%v), want 4", len(recs), err)
	}
	for _, r := range recs {
		if r.Book != rows[0].Book || r.Opening != 6 {
			t.Errorf("pair %d game %d: book %q, %d opening plies: want %s and the book's 6", r.Pair, r.Game, r.Book, r.Opening, rows[0].Book)
		}
	}
	// Run again, every game is found (no new file of records); with random
	// openings none is.
	files := func() int {
		f, _ := filepath.Glob(filepath.Join(games, "*"+arena.RecordExt))
		return len(f)
	}
	if code, _, errOut := runCmd(args...); code != 0 || files() != 1 {
		t.Errorf("again: exit %d, %q, %d files of records: want the games found, none played", code, errOut, files())
	}
	random := append(append([]string(nil), args[:len(args)-5]...), "--games", games, "--json")
	if code, _, errOut := runCmd(random...); code != 0 || files() != 2 {
		t.Errorf("random openings: exit %d, %q, %d files of records: want every game played", code, errOut, files())
	}
}
