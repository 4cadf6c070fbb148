package play

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
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

func TestLoadSource_RunPlaysItsBestModelInItsVariant(t *testing.T) {
	rd := store.Dir(t.TempDir())
	src, err := LoadSource(PlayerConfig{Run: string(rd)})
	if err != nil || src.Checkpoint != nil || !strings.Contains(src.Desc, "has no model yet") {
		t.Fatalf("run without a model: %+v, %v; want rollouts and a note", src, err)
	}
	if err := os.WriteFile(rd.Config(), []byte("variant: three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = LoadSource(PlayerConfig{Run: string(rd)})
	if v, err2 := src.VariantFor(""); err != nil || err2 != nil || v.Name != "three" {
		t.Fatalf("run of three without a model: variant %v, %v, %v; want three", v, err, err2)
	}
	path := saveTestCheckpoint(t, rd, "three", 3)
	src, err = LoadSource(PlayerConfig{Run: string(rd)})
	if err != nil {
		t.Fatal(err)
	}
	if src.Checkpoint == nil || !strings.Contains(src.Desc, filepath.Base(path)) || !strings.Contains(src.Desc, "generation 3") {
		t.Fatalf("source %q: want the checkpoint %s of generation 3", src.Desc, path)
	}
	v, err := src.VariantFor("")
	if err != nil || v.Name != "three" {
		t.Fatalf("variant %v, %v: want the model's, three", v, err)
	}
	if _, err := src.VariantFor("nine"); err == nil || !strings.Contains(err.Error(), "three") {
		t.Errorf("a three model asked to play nine: error %v, want one naming both", err)
	}
	p, err := src.SearchPlayer(v, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := p.NewEvaluator(v, 1); err != nil || ev.(*model.Evaluator).Orientations() != 3 {
		t.Errorf("the player's evaluator: %v, %v; want three views", ev, err)
	}
	if _, err := src.SearchPlayer(v, 8, v.NumSymmetries()+1); err == nil || !strings.Contains(err.Error(), "orientations") {
		t.Errorf("more views than the variant's symmetries: %v, want an error naming orientations", err)
	}
	if _, err := src.SearchPlayer(v, mcts.MaxVisits+1, 1); err == nil || !strings.Contains(err.Error(), "simulations") {
		t.Errorf("more visits than a move may take: %v, want an error naming simulations", err)
	}
}

func TestLoadSource_DefaultIsTheBuiltinModel(t *testing.T) {
	src, err := LoadSource(PlayerConfig{Model: "default"})
	if err != nil || !src.Builtin || src.Checkpoint == nil {
		t.Fatalf("--model default: %+v, %v: want the built-in model", src, err)
	}
	if _, err := LoadSource(PlayerConfig{Model: "default", Run: "runs/x"}); err == nil {
		t.Error("--model default with --run: no error")
	}
}
