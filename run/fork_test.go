package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// forkRun is the config of a small run of Three Men's Morris of the given
// generations, ungated, its ladder random alone.
func forkRun(generations int) string {
	return "variant: three\nmodel: {width: 16, blocks: 1}\n" +
		fmt.Sprintf("loop: {generations: %d, games: 16, steps: 4}\n", generations) +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
}

// A fork is the run as its first n generations left it, and trains on
// from there, with a changed config too.
func TestFork_IsTheRunAfterNGenerationsAndTrainsOn(t *testing.T) {
	text := forkRun(3)
	l := runConfig(t, text)
	src := string(l.dir)
	dst := filepath.Join(t.TempDir(), "runs", "fork")
	if n, err := Fork(src, dst, 2); err != nil || n != 2 {
		t.Fatal(n, err)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if n, err := Fork(src, whole, 0); err != nil || n != 3 {
		t.Errorf("fork of every generation: %d, %v; want 3", n, err)
	}
	to := store.Dir(dst)
	for g := 1; g <= 3; g++ {
		_, err := os.Stat(to.Model(g))
		if (err == nil) != (g <= 2) {
			t.Errorf("model %d in the fork: %v, want it only for 1..2", g, err)
		}
	}
	if a, err := os.Stat(l.dir.Model(2)); err != nil {
		t.Fatal(err)
	} else if b, err := os.Stat(to.Model(2)); err != nil || !os.SameFile(a, b) {
		t.Errorf("model 2 of the fork is not a link of the run's: %v", err)
	}
	if best, err := to.Best(); err != nil || best != 2 {
		t.Errorf("the fork's best: %d, %v; want 2 (no gate: every candidate)", best, err)
	}
	for g := 0; g <= 2; g++ {
		shards, _ := os.ReadDir(to.ShardDir(g))
		srcShards, _ := os.ReadDir(l.dir.ShardDir(g))
		want := 0
		if g < 2 {
			want = len(srcShards)
		}
		if len(shards) != want || g < 2 && want == 0 {
			t.Errorf("games of generation %d in the fork: %d shards, want the run's %d", g, len(shards), want)
		}
	}
	arenaFiles, _ := os.ReadDir(to.Arena())
	if len(arenaFiles) == 0 {
		t.Error("the fork has no arena games")
	}
	for _, e := range arenaFiles {
		if g, _, ok := arenaFile(e.Name()); ok && g > 2 {
			t.Errorf("arena file %s of a later model in the fork", e.Name())
		}
	}
	rs, err := rating.ReadCSV(to.Path(store.RatingsObject))
	if err != nil || len(rs) == 0 {
		t.Fatalf("the fork's ratings: %v, %v", rs, err)
	}
	for _, r := range rs {
		if g, ok := store.ParseModelName(r.Name); ok && g > 2 {
			t.Errorf("the fork's ratings rate %s", r.Name)
		}
	}
	for _, table := range []string{store.GenerationsTable, store.LossesTable, store.EloTable, store.PhasesTable} {
		all, kept := readRows(t, l.dir.Path(table)), readRows(t, to.Path(table))
		want := slices.DeleteFunc(slices.Clone(all[1:]), func(r []string) bool { g, err := strconv.Atoi(r[0]); return err != nil || g >= 2 })
		if len(kept) == 0 || !slices.Equal(kept[0], all[0]) || len(kept)-1 != len(want) || len(want) == 0 {
			t.Errorf("%s of the fork: %d rows, want the run's %d of generations 0..1 under its header", table, len(kept)-1, len(want))
			continue
		}
		for i, r := range want {
			if !slices.Equal(kept[i+1], r) {
				t.Errorf("%s row %d of the fork: %v, want %v", table, i, kept[i+1], r)
			}
		}
	}
	if left, _ := os.ReadDir(filepath.Dir(dst)); len(left) != 1 {
		t.Errorf("beside the fork: %d entries, want only the fork", len(left))
	}

	// It trains on at generation 2, here with a config that grows the network there.
	cfg := filepath.Join(t.TempDir(), "grow.yaml")
	grown := strings.Replace(text, "steps: 4}", "steps: 4, grow: [{generation: 2, width: 24, blocks: 1}]}", 1)
	if err := os.WriteFile(cfg, []byte(grown), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenTrainer(context.Background(), dst, cfg, TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rows := readRows(t, to.Path(store.GenerationsTable)); len(rows) != 4 || rows[3][0] != "2" {
		t.Errorf("the fork's generations after training on: %d rows, want generations 0..2", len(rows)-1)
	}
	ck, err := model.LoadCheckpointFor(to.Model(3), l.v)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Net.Arch.Width != 24 {
		t.Errorf("the fork's generation 3: width %d, want the grown 24", ck.Net.Arch.Width)
	}
	if ck, err := model.LoadCheckpointFor(l.dir.Model(3), l.v); err != nil || ck.Net.Arch.Width != 16 {
		t.Errorf("the run's own generation 3 changed with its fork: %v", err)
	}
}

func TestFork_RefusesWhatItCannotMake(t *testing.T) {
	l := runConfig(t, forkRun(1))
	src := string(l.dir)
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists")
	if err := os.Mkdir(exists, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, src, dst string
		n              int
		want           string
	}{
		{"a negative generation", src, filepath.Join(dir, "a"), -1, "want 1..1"},
		{"a generation not ended", src, filepath.Join(dir, "b"), 2, "fork " + src + " at generation 2"},
		{"an existing directory", src, exists, 1, "fork to " + exists + ": it exists"},
		{"not a run", dir, filepath.Join(dir, "c"), 1, "fork " + dir},
		{"a store URL", "s3://bucket/runs/nine", filepath.Join(dir, "d"), 1, "fork s3://bucket/runs/nine: a store URL"},
	} {
		_, err := Fork(c.src, c.dst, c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("after the refusals %s holds %d entries, want only %s", dir, len(left), exists)
	}
}
