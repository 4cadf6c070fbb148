package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
)

func TestArena_RunStoresTheGamesAndAllRatesThem(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		code, out, errOut := runCmd("arena", "random", "alphabeta:1", "--variant", "three", "--games", "2", "--seed", string(rune('1'+i)), "--run", dir, "--all")
		if code != 0 || !strings.Contains(out, "rating all") {
			t.Fatalf("arena: exit %d %s\n%s", code, errOut, out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "arena", "*"+arena.RecordExt))
	recs, err := arena.ReadRecordDir(filepath.Join(dir, "arena"))
	if len(files) != 2 || err != nil || len(recs) != 4 {
		t.Fatalf("%d record files, %d games (%v): want 2 and 4", len(files), len(recs), err)
	}
}

func TestArena_ARunHoldingSomethingElseIsRefusedBeforeAnyGame(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	code, out, errOut := runCmd("arena", "random", "alphabeta:1", "--variant", "three", "--games", "2", "--run", dir)
	if code == 0 || !strings.Contains(errOut, "something other than a run") || strings.Contains(out, "pair 1") {
		t.Fatalf("exit %d, %q, played:\n%s", code, errOut, out)
	}
}
