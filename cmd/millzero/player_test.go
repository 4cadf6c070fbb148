package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// saveTestCheckpoint writes a small random network for variant as
// generation gen of a run directory, and marks it best.
func saveTestCheckpoint(t *testing.T, rd store.Dir, variant string, gen int) string {
	t.Helper()
	v, err := engine.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	n, err := model.New(variant, model.NewArch(v, model.Config{Width: 16, Blocks: 1}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(rd.Models(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := rd.Model(gen)
	if err := (&model.Checkpoint{Net: n, Generation: gen}).Save(path); err != nil {
		t.Fatal(err)
	}
	if err := rd.SetBest(gen); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlay_ACheckpointPlaysWithTheViewsAsked(t *testing.T) {
	path := saveTestCheckpoint(t, store.Dir(t.TempDir()), "three", 3)
	var out bytes.Buffer
	if err := playMain([]string{"--model", path, "--sims", "8"}, strings.NewReader("b2\nquit\n"), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "Model: checkpoint ") || !strings.Contains(got, "black plays ") {
		t.Errorf("a game against the checkpoint:\n%s", got)
	}
	// --orientations reaches the model player's evaluator.
	out.Reset()
	if err := playMain([]string{"--model", path, "--sims", "8", "--orientations", "3"}, strings.NewReader("b2\nquit\n"), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "8 visits per move, 3 turns of the board a position") || !strings.Contains(got, "black plays ") {
		t.Errorf("a game against the checkpoint with three views:\n%s", got)
	}
}
