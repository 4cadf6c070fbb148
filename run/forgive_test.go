package run

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
)

// A run's files get the mode the user's umask gives a new file, so a
// second user or a container with another uid can read and add to it:
// metrics and run.yaml (saveFile), checkpoints (model.WriteFileAtomic) and
// every object of a local store; directories likewise.
func TestRunFiles_FollowTheUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o002} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		st, err := OpenStore(context.Background(), filepath.Join(dir, "run"))
		if err != nil {
			syscall.Umask(old)
			t.Fatal(err)
		}
		err = saveFile(filepath.Join(dir, "metrics", "generations.csv"), []byte("generation\n"))
		if err == nil {
			err = model.WriteFileAtomic(filepath.Join(dir, "gen-000001.safetensors"), func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
		}
		if err == nil {
			err = st.Put(context.Background(), "games/gen-000000/a.parquet", bytes.NewReader([]byte("x")))
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
		for _, p := range []string{"metrics/generations.csv", "gen-000001.safetensors", "run/games/gen-000000/a.parquet"} {
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
	w, err := dataset.NewShardWriter(dataset.GenerationDir(games, g), map[string]string{selfplay.GamesKey: "40"})
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
func quickLoop(t *testing.T, dir string, log *slog.Logger) *Loop {
	t.Helper()
	l, err := Open(context.Background(), dir, "three-test", Options{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c := l.Config()
	c.SelfPlay.Workers, c.Loop.Games, c.Loop.Steps, c.Loop.Generations = 1, 64, 20, 1
	c.Gate.MaxGames, c.Gate.LadderPairs = 4, 0
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
	if got := l.gens.column("games"); len(got) != 1 || got[0] != 64 {
		t.Errorf("generation 0 counts %v games, want the 64 played (the skipped shards' none)", got)
	}
}

// A match resumed from its journal numbers its new pairs after the
// journal's: the pentanomial tally counts a pair by (match, pair), so a
// repeated number would merge two pairs.
func TestMatchGames_AResumedMatchKeepsPairNumbersUnique(t *testing.T) {
	l := quickLoop(t, t.TempDir(), nil)
	a, err := l.player(0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := referencePlayer("random")
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
	if err := saveFile(filepath.Join(l.dir.Arena(), "gate-test.jsonl"), journal.Bytes()); err != nil {
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
}
