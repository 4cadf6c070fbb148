package run

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
	"github.com/millzero/millzero/train"
)

// A run's files get the mode the user's umask gives a new file, so a
// second user or a container with another uid can read and add to it:
// metrics and run.yaml (atomicfile.WriteFile), checkpoints (atomicfile.Write) and
// every object of a local store; directories likewise.
func TestRunFiles_FollowTheUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o002} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		st, err := store.Open(context.Background(), filepath.Join(dir, "run"))
		if err != nil {
			syscall.Umask(old)
			t.Fatal(err)
		}
		err = os.MkdirAll(filepath.Join(dir, "metrics"), 0o777)
		if err == nil {
			err = atomicfile.WriteFile(filepath.Join(dir, "metrics", "generations.csv"), []byte("generation\n"))
		}
		if err == nil {
			err = atomicfile.Write(filepath.Join(dir, "gen-000001.safetensors"), func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
		}
		if err == nil {
			err = st.Put(context.Background(), "games/gen-000000/a.parquet", bytes.NewReader([]byte("x")))
		}
		var shard string
		if err == nil { // a self-play shard, as its writer leaves it
			shard = writeTestShard(t, filepath.Join(dir, "games"), "three", 0)
		}
		syscall.Umask(old)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"metrics", "run/games/gen-000000"} {
			info, err := os.Stat(filepath.Join(dir, d))
			if err != nil {
				t.Fatal(err)
			}
			if want := os.FileMode(0o777 &^ mask); info.Mode().Perm() != want {
				t.Errorf("umask %03o: directory %s has mode %v, want %v", mask, d, info.Mode().Perm(), want)
			}
		}
		want := os.FileMode(0o666 &^ mask)
		rel, _ := filepath.Rel(dir, shard)
		for _, p := range []string{"metrics/generations.csv", "gen-000001.safetensors", "run/games/gen-000000/a.parquet", rel} {
			info, err := os.Stat(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != want {
				t.Errorf("umask %03o: %s has mode %v, want %v", mask, p, info.Mode().Perm(), want)
			}
		}
	}
}

// writeTestShard writes a shard of one game of variant (its start
// position, a uniform policy) into generation g of games, and returns its
// path.
func writeTestShard(t *testing.T, games, variant string, g int) string {
	t.Helper()
	v, err := engine.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	game := engine.NewGame(v)
	legal := v.Legal(&game.Pos, nil)
	s := dataset.Sample{Variant: v.Name, GameID: "foreign-" + variant, Position: game.Pos, Outcome: v.Players, Full: true, Simulations: 1}
	for _, a := range legal {
		s.Policy = append(s.Policy, dataset.PolicyEntry{Action: uint16(v.ActionIndex(a)), Prob: 1 / float32(len(legal))})
	}
	w, err := dataset.NewShardWriter(filepath.Join(games, store.ModelName(g)), map[string]string{selfplay.GamesKey: "40"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		s.Ply = i
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// quickLoop opens a new three-test run in dir, cut to a quick generation.
func quickLoop(t *testing.T, dir string, log *slog.Logger) *Trainer {
	t.Helper()
	l, err := OpenTrainer(context.Background(), dir, "three-test", TrainerOptions{Options: Options{Log: log}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c := l.Config()
	c.SelfPlay.Workers, c.Loop.Games, c.Loop.Steps, c.Loop.Generations = 1, 64, 20, 1
	c.Gate.MaxGames, c.Gate.LadderPairs = 4, 0
	c.Loop.ValFraction, c.Loop.ValBatches = 0.5, 1
	return l
}

// A truncated shard and a shard of another variant in a generation, as a
// killed copy or a mistaken one leaves them, are skipped and named: the
// generation's games are played again without them, and training reads
// only this run's games.
func TestRun_TruncatedAndForeignShardsAreSkippedAndNamed(t *testing.T) {
	dir := t.TempDir()
	var logBuf bytes.Buffer
	l := quickLoop(t, dir, slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	games := filepath.Join(dir, "games")
	foreign := writeTestShard(t, games, "nine", 0)
	truncated := writeTestShard(t, games, "three", 0)
	data, err := os.ReadFile(truncated)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatalf("run: %v\n%s", err, logBuf.String())
	}
	for _, p := range []string{foreign, truncated} {
		if !strings.Contains(logBuf.String(), p) {
			t.Errorf("the log does not name the skipped shard %s:\n%s", p, logBuf.String())
		}
	}
	if got := mustLoad(t, l.gens).column("games"); len(got) != 1 || got[0] != 64 {
		t.Errorf("generation 0 counts %v games, want the 64 played (the skipped shards' none)", got)
	}
	if _, err := mustReader(t, l).Status(context.Background()); err != nil {
		t.Errorf("status of a run with a truncated shard: %v", err)
	}
}

// A match resumed from its journal numbers its new pairs after the
// journal's: the pentanomial tally counts a pair by (match, pair), so a
// repeated number would merge two pairs.
func TestMatchGames_AResumedMatchKeepsPairNumbersUnique(t *testing.T) {
	l := quickLoop(t, t.TempDir(), nil)
	a, err := l.arenaPlayer(0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runconfig.ReferencePlayer("random")
	if err != nil {
		t.Fatal(err)
	}
	m := arena.Match{Variant: l.v, A: a, B: b, Pairs: 1, Seed: 7, OpeningPlies: 2}
	first, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var journal bytes.Buffer // the first pair, as a killed run leaves it
	for _, r := range first {
		line, _ := json.Marshal(r)
		journal.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(l.dir.Arena(), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(filepath.Join(l.dir.Arena(), "gate-test.jsonl"), journal.Bytes()); err != nil {
		t.Fatal(err)
	}
	recs, err := l.matchGames(context.Background(), "gate-test", arena.Match{Variant: l.v, A: a, B: b, OpeningPlies: 2}, 6, func([]arena.Record) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]int32]bool{}
	for _, r := range recs {
		k := [2]int32{r.Pair, r.Game}
		if seen[k] {
			t.Fatalf("pair %d game %d recorded twice in %d games", r.Pair, r.Game, len(recs))
		}
		seen[k] = true
	}
	if len(recs) != 6 {
		t.Errorf("%d games, want 6", len(recs))
	}
	// Killed after the match's file was written and before its journal
	// was removed: the match is not played again and the journal goes.
	journalPath := filepath.Join(l.dir.Arena(), "gate-test.jsonl")
	if err := atomicfile.WriteFile(journalPath, journal.Bytes()); err != nil {
		t.Fatal(err)
	}
	again, err := l.matchGames(context.Background(), "gate-test", arena.Match{Variant: l.v, A: a, B: b, OpeningPlies: 2}, 6, func([]arena.Record) bool { return false })
	if err != nil || len(again) != len(recs) {
		t.Fatalf("the finished match again: %d games, %v; want its %d", len(again), err, len(recs))
	}
	if _, err := os.Stat(journalPath); !os.IsNotExist(err) {
		t.Errorf("the finished match's journal is left behind (%v)", err)
	}
}

// A generation resumed after a kill between its ratings and its commit
// (the generations.csv row) writes each metrics row once, and the self-play
// figures of the killed process (no longer NaN rows): every generation row
// holds the seconds of its phases and the search's KL.
func TestRun_AResumedGenerationWritesItsMetricsOnce(t *testing.T) {
	dir := t.TempDir()
	l := quickLoop(t, dir, nil)
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.Close()
	gens := filepath.Join(dir, "metrics", "generations.csv")
	data, err := os.ReadFile(gens)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(data), "\n")
	if err := os.WriteFile(gens, []byte(header+"\n"), 0o644); err != nil { // killed before the commit point
		t.Fatal(err)
	}
	l = quickLoop(t, dir, nil)
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, filepath.Join(dir, "metrics", "elo.csv"))
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		if seen[r[0]+"/"+r[2]] {
			t.Errorf("elo.csv: generation %s, player %s written twice:\n%v", r[0], r[2], rows)
		}
		seen[r[0]+"/"+r[2]] = true
	}
	rows = readRows(t, gens)
	if len(rows) != 2 {
		t.Fatalf("generations.csv: %d rows, want 1:\n%v", len(rows)-1, rows)
	}
	for i, name := range rows[0] {
		cell := rows[1][i]
		if cell == "" || strings.EqualFold(cell, "nan") {
			t.Errorf("generations.csv: %s is %q after the resume", name, cell)
		}
	}
}

func readRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// train --config on an existing run lays the file over its run.yaml: the
// settings a generation may change change, and are printed; the variant
// and the network's shape are refused, naming each setting and why.
func TestOpen_ConfigOnAnExistingRunChangesWhatMayChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := OpenTrainer(context.Background(), dir, "three-test", TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	change := filepath.Join(t.TempDir(), "change.yaml")
	cases := []struct {
		text    string
		refused []string // settings named in the error; none: accepted
	}{
		{"loop: {games: 128, window_generations: 6}\ntrain: {lr: 0.001}\nselfplay: {search: {simulations: 200}}\n", nil},
		// Valid over the run's config (now 200 simulations), not over the
		// default (96): laid over the run's.
		{"selfplay: {fast_simulations: 150}\n", nil},
		{"model: {width: 32}\n", []string{"model.width: 64 -> 32", "network shape"}},
		{"variant: nine\nloop: {games: 64}\n", []string{"variant: three -> nine", "variant"}},
		{"train: {optimizer: sgd}\n", []string{"train.optimizer: adam -> sgd"}},
	}
	for _, c := range cases {
		if err := os.WriteFile(change, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var out progressLog
		l, err := OpenTrainer(context.Background(), dir, change, TrainerOptions{Options: Options{Progress: &out}})
		if len(c.refused) > 0 {
			if err == nil {
				l.Close()
				t.Errorf("%q: accepted, want refused", c.text)
				continue
			}
			for _, want := range c.refused {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q: %v, want it to name %q", c.text, err, want)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		l.Close()
		lc := l.Config()
		if lc.SelfPlay.FastSimulations == 150 {
			continue // the second change, over the first
		}
		if lc.Loop.Games != 128 || lc.Loop.WindowGenerations != 6 || lc.Train.LR != 0.001 || lc.SelfPlay.Search.Simulations != 200 || lc.Variant != "three" {
			t.Errorf("config after the change: %+v", lc)
		}
		for _, want := range []string{"loop.games: 256 -> 128", "train.lr: 0.002 -> 0.001", "selfplay.search.simulations: 64 -> 200"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the printed changes do not say %q:\n%s", want, out.String())
			}
		}
		stored, _, err := runconfig.LoadConfig(filepath.Join(dir, "run.yaml"))
		if err != nil || stored.Loop.Games != 128 {
			t.Errorf("run.yaml after the change: games %d, %v", stored.Loop.Games, err)
		}
	}
}

// The default's value_mix is for two players: a run of a variant with
// more seats that keeps it is refused when it opens, naming the setting.
func TestOpen_ValueMixWithThreeSeatsIsRefusedBeforeTheFirstGame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mr3.yaml")
	if err := os.WriteFile(path, []byte("variant: moulin-rouge-3\ntablebase: \"\"\ntrain: {value_mix: 0.5}\nselfplay: {search: {minimax_weight: 0}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenTrainer(context.Background(), filepath.Join(t.TempDir(), "run"), path, TrainerOptions{})
	if err == nil {
		l.Close()
		t.Fatal("value_mix with three seats opened, want an error before any game")
	}
	if !strings.Contains(err.Error(), "value_mix") {
		t.Errorf("error %v, want it to name value_mix", err)
	}
}

// Settings valid one by one but failing together are found when the run
// opens, before its first game, not in the generation that needs them.
func TestOpen_SettingsThatFailTogetherAreFoundBeforeTheFirstGame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("variant: three\ngate: {max_games: 40, opening_plies: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	l, err := OpenTrainer(context.Background(), dir, path, TrainerOptions{})
	if err == nil {
		l.Close()
		t.Fatal("a gate of 20 pairs from 0 opening plies opened, want an error before any game")
	}
	if !strings.Contains(err.Error(), "opening_plies 0") || !strings.Contains(err.Error(), "max_games") {
		t.Errorf("error %v does not name gate.max_games and opening_plies", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.yaml")); !os.IsNotExist(err) {
		t.Errorf("the refused run was made (run.yaml: %v)", err)
	}
}

// BenchmarkCheckShard is the cost of counting a new shard's games with
// the whole-shard check (once per shard and process): a shard of 32 nine
// games of about 100 recorded positions each.
func BenchmarkCheckShard(b *testing.B) {
	v, err := engine.Load("nine")
	if err != nil {
		b.Fatal(err)
	}
	game := engine.NewGame(v)
	legal := v.Legal(&game.Pos, nil)
	s := dataset.Sample{Variant: v.Name, Position: game.Pos, Outcome: v.Players, Full: true, Simulations: 1}
	for _, a := range legal {
		s.Policy = append(s.Policy, dataset.PolicyEntry{Action: uint16(v.ActionIndex(a)), Prob: 1 / float32(len(legal))})
	}
	w, err := dataset.NewShardWriter(filepath.Join(b.TempDir(), store.ModelName(0)), map[string]string{selfplay.GamesKey: "32"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 3200; i++ {
		s.GameID, s.Ply = fmt.Sprint("g", i/100), i%100
		if err := w.Write(s); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.Run("footer", func(b *testing.B) { // the count alone, as before the check
		for range b.N {
			if _, err := selfplay.ShardGames(w.Path()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for range b.N {
			if _, err := checkShard(w.Path(), "nine"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A generation whose training diverges stops the run with an error naming
// the step, saves no checkpoint of NaN weights, and keeps the last good
// one, from which the run resumes.
func TestRun_ANonFiniteLossStopsTheRunAndKeepsTheLastGoodCheckpoint(t *testing.T) {
	dir := t.TempDir()
	l := quickLoop(t, dir, nil)
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l = quickLoop(t, dir, nil)
	l.Config().Loop.Generations = 2
	l.Config().Train.LR = 1e30 // diverges within a few steps
	_, err := l.Run(context.Background())
	if !errors.Is(err, train.ErrNonFiniteLoss) || !strings.Contains(err.Error(), "generation 1") || !strings.Contains(err.Error(), "step ") {
		t.Fatalf("run with a diverging learning rate: %v, want the non-finite loss of generation 1 naming its step", err)
	}
	if _, err := os.Stat(l.dir.Model(2)); !os.IsNotExist(err) {
		t.Errorf("a checkpoint of the diverged generation was saved (%v)", err)
	}
	if _, err := model.LoadCheckpointFor(l.dir.Model(1), l.v); err != nil {
		t.Errorf("the last good checkpoint: %v", err)
	}
}
