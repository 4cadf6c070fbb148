package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

func TestSelfplay_AddsGamesToTheRunsCurrentGeneration(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := runCmd("train", "--config", "three-test", "--run", dir, "--generations", "1"); code != 0 {
		t.Fatalf("train: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runCmd("selfplay", "--run", dir, "--games", "40")
	if code != 0 {
		t.Fatalf("selfplay: exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "selfplay: 40 games") {
		t.Fatalf("summary missing:\n%s", out)
	}
	n, err := selfplay.CountGames(store.Dir(dir).ShardDir(1))
	if err != nil || n != 40 {
		t.Fatalf("generation 1 has %d games (%v), want the 40 just played", n, err)
	}
}

func TestSelfplay_NeedsARun(t *testing.T) {
	code, _, errOut := runCmd("selfplay", "--run", filepath.Join(t.TempDir(), "nope"))
	if code == 0 || !strings.Contains(errOut, "millzero train first") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}

func TestSelfplay_NeedsARun_AndMakesNoDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "mistyped")
	for _, cmd := range []string{"selfplay", "status"} {
		code, _, errOut := runCmd(cmd, "--run", missing)
		if code == 0 || !strings.Contains(errOut, "no such directory") {
			t.Errorf("%s of a missing run: exit %d, %q", cmd, code, errOut)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Fatalf("%s made %s (%v)", cmd, missing, err)
		}
	}
}
