package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

func TestClassicTune_FitsWeightsThatPlay(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := arena.Match{Variant: v, A: arena.Classic{Depth: 2, HashMB: 1}, B: arena.Classic{Depth: 1, HashMB: 1},
		Pairs: 20, OpeningPlies: 6, Seed: 2, Workers: 1, Dir: dir}
	if _, err := m.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.json")
	code, out, errOut := runCmd("classic", "tune", "--games", dir, "--out", path, "--held-out", "0.3", "--grain", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"nine: 1 files, 40 games", "held-out log loss", "all", "placing_start", "opp_mobility", "wrote " + path} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	w, err := classic.LoadWeights(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Grain != 10 || w.Variant != "nine" || w.W[classic.Moving][classic.FMaterial] != 100 || w.Fit == nil || w.Fit.Games != 40 {
		t.Errorf("weights %+v: want grain 10, nine's, a piece 100 while moving, and the fit's record", w)
	}
	code, out, errOut = runCmd("arena", "classic:2,weights="+path, "classic:2,weights=hand", "--pairs", "1")
	if code != 0 || !strings.Contains(out, "classic:2,weights="+path) {
		t.Errorf("the weights in play: exit %d, %s\n%s", code, errOut, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"classic", "tune", "--out", path}, "give --games and --out"},
		{[]string{"classic", "tune", "--games", dir}, "give --games and --out"},
		{[]string{"classic", "tune", "--games", dir + "/none", "--out", path}, "none"},
		{[]string{"classic", "tune", "--games", dir, "--out", path, "--grain", "-1"}, "--grain -1"},
		{[]string{"classic", "tune", "--games", dir, "--out", path, "--start", "nonesuch"}, "nonesuch"},
		{[]string{"classic", "sharpen"}, "want: tune"},
	} {
		if code, _, errOut := runCmd(c.args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q: want an error saying %q", c.args, code, errOut, c.want)
		}
	}
}
