package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/internal/syncbuf"
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

// A two-player match ends with each pairing from its first player's side,
// the interval from the pair scores; the arena of three or four seats has
// no such line.
func TestArena_TwoPlayerMatchesListThePairedScore(t *testing.T) {
	code, out, errOut := runCmd("arena", "alphabeta:2", "random", "--variant", "three", "--pairs", "3", "--workers", "1")
	if code != 0 {
		t.Fatalf("arena: exit %d %s\n%s", code, errOut, out)
	}
	games, wins := 0, 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " vs ") && strings.Contains(l, "plies") {
			games++
			if strings.Contains(l, "alphabeta:2 vs random  1-0") || strings.Contains(l, "random vs alphabeta:2  0-1") {
				wins++
			}
		}
	}
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "alphabeta:2 against random ") {
			row = l
		}
	}
	f := strings.Fields(row)
	if games != 6 || len(f) < 8 || f[3] != "6" || f[5] != strconv.Itoa(wins) || f[7] != strconv.Itoa(6-wins) {
		t.Errorf("want the match line of alphabeta:2's 6 games and its %d wins, got %q:\n%s", wins, row, out)
	}
	code, out, _ = runCmd("arena", "alphabeta:1", "random", "--variant", "moulin-rouge-3", "--pairs", "1", "--workers", "1")
	if code != 0 || strings.Contains(out, " against ") {
		t.Errorf("three seats: exit %d, want no paired match line:\n%s", code, out)
	}
}

// A match stopped by SIGTERM (a service manager's or kill's stop) keeps
// the games it finished, as an interrupt does.
func TestArena_TerminatedKeepsItsGames(t *testing.T) {
	if testing.Short() {
		t.Skip("a child process")
	}
	dir := t.TempDir()
	var out syncbuf.Buffer
	c := child(t, &out, "arena", "classic@50ms", "alphabeta:2", "--pairs", "500", "--workers", "1", "--run", dir)
	waitFor(t, &out, "[3/1000]")
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || !strings.Contains(out.String(), "millzero arena: stopped (terminated signal received)") {
		t.Errorf("after SIGTERM: %v, want exit status 130 and the stop named:\n%s", err, out.String())
	}
	recs, err := arena.ReadRecordDir(filepath.Join(dir, "arena"))
	if err != nil || len(recs) < 3 {
		t.Fatalf("after SIGTERM: %d games stored (%v), want the 3 or more it finished:\n%s", len(recs), err, out.String())
	}
}
