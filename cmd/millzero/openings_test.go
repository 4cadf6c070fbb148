package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

func TestOpeningsBuild_WritesABookTheArenaPlaysFrom(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "book.txt")
	code, out, errOut := runCmd("openings", "build", "--plies", "6", "--judge", "classic:2", "--band", "0.3,1.2", "--count", "4", "--out", path)
	if code != 0 || !strings.Contains(out, "4 positions of nine (2 with seat 0 better off, 2 with seat 1)") {
		t.Fatalf("openings build: exit %d %s\n%s", code, errOut, out)
	}
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	book, err := arena.ReadBook(path, v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(book.Header, "\n"), "made by: millzero openings build --plies 6 --judge classic:2") {
		t.Errorf("the header does not give the command:\n%s", book.Format())
	}
	runDir := filepath.Join(dir, "run")
	code, out, errOut = runCmd("arena", "alphabeta:1", "random", "--pairs", "2", "--book", path, "--workers", "1", "--run", runDir)
	if code != 0 || !strings.Contains(out, "draws") {
		t.Fatalf("arena --book: exit %d %s\n%s", code, errOut, out)
	}
	recs, err := arena.ReadRecordDir(filepath.Join(runDir, "arena"))
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d games (%v), want 4", len(recs), err)
	}
	for _, r := range recs {
		if r.Book != book.ID() || r.Opening != 6 {
			t.Errorf("pair %d game %d: book %q, %d opening plies: want %s, 6", r.Pair, r.Game, r.Book, r.Opening, book.ID())
		}
	}
}

func TestOpeningsBuild_BadInputNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "book.txt")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"openings", "build", "--judge", "classic@1s", "--out", out}, `--judge "classic@1s": want the classical engine at a fixed depth`},
		{[]string{"openings", "build", "--judge", "alphabeta:2", "--out", out}, `--judge "alphabeta:2"`},
		{[]string{"openings", "build", "--band", "1", "--out", out}, `--band "1": want LOW,HIGH`},
		{[]string{"openings", "build", "--band", "0.3,x", "--out", out}, "band"},
		{[]string{"openings", "build", "--count", "3", "--judge", "classic:2", "--out", out}, "count 3: want an even number"},
		{[]string{"openings", "build"}, "give --out"},
		{[]string{"openings", "shelve"}, "want: build"},
		{[]string{"arena", "random", "alphabeta:1", "--book", filepath.Join(dir, "missing.txt")}, "--book: opening book: open " + filepath.Join(dir, "missing.txt")},
	}
	for _, tc := range tests {
		code, _, errOut := runCmd(tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %q: want an error saying %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
