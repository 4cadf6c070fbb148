package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// fileVariant is a variant no name knows: Three Men's Morris without its
// diagonals and with a shorter ply cap, under its own name.
const fileVariant = `name: three-file
base: three
description: Three Men's Morris without diagonals (a variant that exists only as this file)
board: {kind: grid3, diagonals: false, cross: false}
max_plies: 120
`

// fileVariantRun is a tiny run of the variant file at path.
func fileVariantRun(path string) string {
	return `variant: ` + path + `
model: {width: 16, blocks: 1}
train: {batch_size: 32, lr: 0.002, schedule: constant, warmup_steps: 0}
selfplay:
  games_in_flight: 8
  fast_simulations: 4
  full_fraction: 1
  games_per_shard: 8
  rollout_playouts: 2
  rollout_plies: 30
  search: {simulations: 8, batch_size: 4}
loop: {generations: 2, games: 8, steps: 4, window_generations: 2, window_samples: 5000, shuffle: 200, val_fraction: 0, val_batches: 0, seed: 3}
gate: {simulations: 4, max_games: 2, opening_plies: 1, alpha: 0.4, beta: 0.4, ladder: [random], ladder_pairs: 1}
`
}

// TestVariantFile_TrainedPlayedExportedAndServedFromItsSpec trains two
// generations of a variant that exists only as a file, then changes the
// file: the run resumes, and its model plays, exports and serves, all from
// the spec the run's files carry.
func TestVariantFile_TrainedPlayedExportedAndServedFromItsSpec(t *testing.T) {
	tmp := t.TempDir()
	varPath := filepath.Join(tmp, "three-file.yaml")
	if err := os.WriteFile(varPath, []byte(fileVariant), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(tmp, "run.yaml")
	if err := os.WriteFile(cfgPath, []byte(fileVariantRun(varPath)), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := engine.LoadNameOrFile(varPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	code, out, errOut := runCmd("train", "--config", cfgPath, "--run", dir)
	if code != 0 || !strings.Contains(out, "reached the budget of 2 generations") {
		t.Fatalf("train exit %d: %s\n%s", code, errOut, out)
	}
	rd := store.Dir(dir)
	stored, err := os.ReadFile(rd.Config())
	if err != nil || !strings.Contains(string(stored), "variant_spec:") {
		t.Fatalf("run.yaml records no variant_spec (%v):\n%s", err, stored)
	}
	shards, _ := filepath.Glob(filepath.Join(rd.Games(), "gen-*", "*"+dataset.ShardExt))
	if len(shards) == 0 {
		t.Fatal("no shards")
	}
	for _, s := range shards {
		info, err := dataset.Inspect(s)
		if err != nil || info.Metadata[dataset.VariantSpecKey+"three-file"] != want.Spec.Canonical() {
			t.Fatalf("shard %s: %v; its spec %q", s, err, info.Metadata[dataset.VariantSpecKey+"three-file"])
		}
	}
	ckPath := rd.Model(2)
	ck, err := model.LoadCheckpointFor(ckPath, want)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Net.Spec != want.Spec.Canonical() {
		t.Fatalf("checkpoint's spec %q, want the variant's", ck.Net.Spec)
	}

	// The file changes (diagonals back on): everything made from it goes
	// on with the spec it recorded.
	changed := strings.Replace(fileVariant, "diagonals: false", "diagonals: true", 1)
	if err := os.WriteFile(varPath, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd("train", "--run", dir, "--generations", "3")
	if code != 0 || !strings.Contains(out, "reached the budget of 3 generations") {
		t.Fatalf("resume after the file changed: exit %d: %s\n%s", code, errOut, out)
	}
	if _, err := model.LoadCheckpointFor(rd.Model(3), want); err != nil {
		t.Fatalf("generation 3 of the resumed run: %v", err)
	}

	var game bytes.Buffer
	if err := playMain([]string{"--model", ckPath, "--sims", "8", "--seat", "black"}, strings.NewReader("quit\n"), &game); err != nil {
		t.Fatalf("play: %v\n%s", err, game.String())
	}
	if !strings.Contains(game.String(), "white plays ") {
		t.Errorf("the model did not move:\n%s", game.String())
	}

	onnxPath := filepath.Join(tmp, "three-file.onnx")
	code, out, errOut = runCmd("export", "--run", dir, "--out", onnxPath)
	if code != 0 || !strings.Contains(out, "three-file") {
		t.Fatalf("export exit %d: %s\n%s", code, errOut, out)
	}
	if b, err := os.ReadFile(onnxPath); err != nil || !bytes.Contains(b, []byte(want.Spec.Canonical())) {
		t.Errorf("the ONNX file does not carry the variant's spec (%v)", err)
	}

	p := startPipeEngine(t, "--model", ckPath, "--sims", "8")
	p.send("isready")
	p.until("readyok")
	g := engine.NewGame(want)
	var played []string
	for ply := 0; ply < 4; ply++ {
		moves := ""
		if len(played) > 0 {
			moves = " moves " + strings.Join(played, " ")
		}
		p.send("position startpos" + moves)
		p.send("go nodes 8")
		lines := p.until("bestmove")
		best := strings.Fields(lines[len(lines)-1])
		if len(best) != 2 {
			t.Fatalf("ply %d: answered %q", ply, lines)
		}
		if err := g.PlayString(best[1]); err != nil {
			t.Fatalf("ply %d: bestmove %s is not legal in three-file: %v", ply, best[1], err)
		}
		played = append(played, best[1])
	}
	p.send("quit")
	if err := <-p.done; err != nil {
		t.Errorf("quit: %v", err)
	}

	// The changed file is another spec of the same name: a model of the
	// run is refused for it, naming the difference.
	var refused bytes.Buffer
	err = playMain([]string{"--model", ckPath, "--variant", varPath, "--sims", "8"}, strings.NewReader("quit\n"), &refused)
	if !errors.Is(err, engine.ErrVariantMismatch) || !strings.Contains(err.Error(), "board.diagonals=false, variant three-file has true") {
		t.Errorf("play --model with the changed file: %v", err)
	}
	code, _, errOut = runCmd("train", "--config", cfgPath, "--run", dir, "--generations", "4")
	if code == 0 || !strings.Contains(errOut, "board.diagonals=true, this run has false") {
		t.Errorf("train --config with the changed file on the run: exit %d: %s", code, errOut)
	}
}
