package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/millzero/millzero/engine"
)

// playGames plays n games of variant by uniformly random legal actions and
// records every position before an action, with a policy over all of its
// legal actions. A game still going after maxPlies is scored a draw.
func playGames(t testing.TB, variant string, n int, seed uint64, gen, maxPlies int) []Sample {
	t.Helper()
	v, err := engine.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	return playGamesOf(t, v, n, seed, gen, maxPlies)
}

// playGamesOf is playGames of variant v, which need not be a named one.
func playGamesOf(t testing.TB, v *engine.Variant, n int, seed uint64, gen, maxPlies int) []Sample {
	t.Helper()
	variant := v.Name
	rng := rand.New(rand.NewPCG(seed, uint64(gen)))
	buf := make([]engine.Action, 0, engine.MaxActions)
	var out []Sample
	for g := 0; g < n; g++ {
		id := fmt.Sprintf("%s-g%d-s%d-%d", variant, gen, seed, g)
		game := engine.NewGame(v)
		first := len(out)
		for ply := 0; ply < maxPlies; ply++ {
			if r, _ := game.Outcome(); r != engine.Ongoing {
				break
			}
			legal := v.Legal(&game.Pos, buf)
			policy := make([]PolicyEntry, len(legal))
			var sum float32
			for i, a := range legal {
				policy[i] = PolicyEntry{Action: uint16(v.ActionIndex(a)), Prob: rng.Float32() + 0.01}
				sum += policy[i].Prob
			}
			for i := range policy {
				policy[i].Prob /= sum
			}
			out = append(out, Sample{
				Variant: variant, GameID: id, Ply: ply, Generation: gen, Position: game.Pos,
				Repetitions: v.Repetitions(&game.Pos, game.Hashes), Policy: policy,
				RootValue: rng.Float32(), Simulations: 100 + rng.IntN(700), Full: rng.IntN(4) != 0,
			})
			if err := game.Play(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
		r, _ := game.Outcome()
		outcome := r.Class(v.Players)
		if r == engine.Ongoing {
			outcome = v.Players
		}
		end := EndOf(&game.Pos)
		for i := first; i < len(out); i++ {
			out[i].Outcome = outcome
			out[i].End = end
			out[i].Reply = -1
			if k := out[i].Ply + 1; k < len(game.Actions) {
				out[i].Reply = v.ActionIndex(game.Actions[k])
			}
		}
	}
	return out
}

// writeShard writes samples as one shard into dir and returns its path.
func writeShard(t testing.TB, dir string, samples []Sample) string {
	t.Helper()
	w, err := NewShardWriter(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(samples...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// readAll drains a window.
func readAll(t testing.TB, w *Window) []Sample {
	t.Helper()
	var out []Sample
	for {
		var s Sample
		err := w.Next(&s)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatal(err)
		}
		out = append(out, s)
	}
}

// key names a sample by game and ply.
type key struct {
	game string
	ply  int
}

func keyOf(s *Sample) key { return key{s.GameID, s.Ply} }

// captureLog is a logger whose output the test can read.
func captureLog() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

// generationDir is the directory of generation gen's shards in the games
// directory gamesDir, as a run lays it out (store.ShardsPrefix, which this
// package's tests cannot import: store imports dataset) and OpenWindow
// reads it.
func generationDir(gamesDir string, gen int) string {
	return filepath.Join(gamesDir, fmt.Sprintf("gen-%06d", gen))
}
