package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/version"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/onnx"
	"github.com/millzero/millzero/store"
)

// saveGen writes a small random network of variant name as generation gen
// of run dir and returns its checkpoint.
func saveGen(t *testing.T, dir store.Dir, name string, gen int) *model.Checkpoint {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	n, err := model.New(v.Name, model.NewArch(v, model.Config{Width: 16, Blocks: 1}), rand.New(rand.NewPCG(uint64(gen), 3)))
	if err != nil {
		t.Fatal(err)
	}
	ck := &model.Checkpoint{Net: n, Generation: gen, Steps: int64(100 * gen)}
	if err := os.MkdirAll(dir.Models(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ck.Save(dir.Model(gen)); err != nil {
		t.Fatal(err)
	}
	return ck
}

// wantExport checks that file holds ck's network exported as onnx.Encode
// writes it.
func wantExport(t *testing.T, file string, ck *model.Checkpoint) {
	t.Helper()
	v, err := engine.Load(ck.Net.Variant)
	if err != nil {
		t.Fatal(err)
	}
	want, err := onnx.Encode(v, ck.Net, onnx.Info{Generation: ck.Generation, Steps: ck.Steps, Producer: version.Producer()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes, not the %d of generation %d's export", file, len(got), len(want), ck.Generation)
	}
}

func TestExport_PicksBestElseNewestElseTheGenerationAsked(t *testing.T) {
	dir := store.Dir(t.TempDir())
	saveGen(t, dir, "nine", 1)
	two := saveGen(t, dir, "nine", 2)
	three := saveGen(t, dir, "nine", 3)
	out := filepath.Join(t.TempDir(), "net.onnx")

	// No models/best: the newest checkpoint.
	code, stdout, errOut := runCmd("export", "--run", string(dir), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantExport(t, out, three)
	if !strings.Contains(stdout, "generation 3") || !strings.Contains(stdout, "newest") {
		t.Errorf("output does not say it took the newest, generation 3:\n%s", stdout)
	}

	// models/best names generation 2.
	if err := dir.SetBest(2); err != nil {
		t.Fatal(err)
	}
	if code, stdout, errOut = runCmd("export", "--run", string(dir), "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantExport(t, out, two)
	if !strings.Contains(stdout, "best") || !strings.Contains(stdout, onnx.OutputPolicy) {
		t.Errorf("output does not say it took the best:\n%s", stdout)
	}

	// --generation overrides; best generation 0 (no file) falls back to the newest.
	one := filepath.Join(t.TempDir(), "one.onnx")
	if code, _, errOut = runCmd("export", "--run", string(dir), "--generation", "1", "--out", one); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantExport(t, one, saveGen(t, store.Dir(t.TempDir()), "nine", 1))
	if err := dir.SetBest(0); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut = runCmd("export", "--run", string(dir), "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantExport(t, out, three)
}

func TestExport_ModelFileOfAnyVariant(t *testing.T) {
	dir := store.Dir(t.TempDir())
	ck := saveGen(t, dir, "moulin-rouge-3", 4)
	out := filepath.Join(t.TempDir(), "mr3.onnx")
	code, stdout, errOut := runCmd("export", "--model", dir.Model(4), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantExport(t, out, ck)
	if !strings.Contains(stdout, "moulin-rouge-3") || !strings.Contains(stdout, "[batch, 4]") {
		t.Errorf("output lacks the variant or the outcome shape:\n%s", stdout)
	}
}

// TestExport_GraphNetworkCheckpoint: a graph network's checkpoint (its
// board's topology rebuilt from the variant when loaded) exports as the
// network saved would.
func TestExport_GraphNetworkCheckpoint(t *testing.T) {
	v, err := engine.Load("moulin-rouge")
	if err != nil {
		t.Fatal(err)
	}
	n, err := model.New(v.Name, model.NewArch(v, model.Config{Width: 12, Blocks: 1, Kind: model.KindGraph}), rand.New(rand.NewPCG(5, 3)))
	if err != nil {
		t.Fatal(err)
	}
	ck := &model.Checkpoint{Net: n, Generation: 7, Steps: 700}
	path := filepath.Join(t.TempDir(), "graph.safetensors")
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "graph.onnx")
	code, stdout, errOut := runCmd("export", "--model", path, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantExport(t, out, ck)
	if !strings.Contains(stdout, "graph") || !strings.Contains(stdout, "moulin-rouge") {
		t.Errorf("output does not name the graph network or its variant:\n%s", stdout)
	}
}

func TestExport_BadInputIsAClearError(t *testing.T) {
	dir := store.Dir(t.TempDir())
	saveGen(t, dir, "nine", 1)
	empty := store.Dir(t.TempDir())
	out := filepath.Join(t.TempDir(), "x.onnx")

	// A checkpoint whose architecture is another variant's.
	misfit := filepath.Join(t.TempDir(), "misfit.safetensors")
	ck := saveGen(t, store.Dir(t.TempDir()), "three", 1)
	ck.Net.Variant = "nine"
	if err := ck.Save(misfit); err != nil {
		t.Fatal(err)
	}
	// A checkpoint whose input weight has the wrong shape for its
	// architecture (the same number of values, transposed).
	transposed := filepath.Join(t.TempDir(), "transposed.safetensors")
	ck = saveGen(t, store.Dir(t.TempDir()), "nine", 1)
	s := ck.Net.Params[0].Shape
	ck.Net.Params[0].Shape = []int{s[1], s[0]}
	if err := ck.Save(transposed); err != nil {
		t.Fatal(err)
	}
	badBest := store.Dir(t.TempDir())
	saveGen(t, badBest, "nine", 1)
	if err := os.WriteFile(badBest.BestFile(), []byte("seven\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--run", missing, "--out", out}, []string{"--run " + missing, "no such file"}},
		{[]string{"--run", string(empty), "--out", out}, []string{"no checkpoint in " + empty.Models()}},
		{[]string{"--run", string(dir), "--generation", "7", "--out", out}, []string{"--generation 7", "gen-000007.safetensors", "checkpoints: [1]"}},
		{[]string{"--run", string(badBest), "--out", out}, []string{`"seven" is not a generation`}},
		{[]string{"--model", misfit, "--out", out}, []string{misfit, "does not fit variant nine"}},
		{[]string{"--model", transposed, "--out", out}, []string{transposed, "input.weight", "shape"}},
		{[]string{"--model", missing, "--out", out}, []string{missing}},
		{[]string{"--run", string(dir)}, []string{"--out"}},
		{[]string{"--out", out}, []string{"--run DIR or --model"}},
		{[]string{"--run", string(dir), "--model", misfit, "--out", out}, []string{"not both"}},
		{[]string{"--model", misfit, "--generation", "1", "--out", out}, []string{"--generation"}},
		{[]string{"--run", string(dir), "--out", filepath.Join(missing, "x.onnx")}, []string{filepath.Join(missing, "x.onnx")}},
	}
	for _, c := range cases {
		code, _, errOut := runCmd(append([]string{"export"}, c.args...)...)
		if code == 0 {
			t.Errorf("%v: exit 0, want an error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q, want it to name %q", c.args, errOut, w)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s behind", out)
	}
}

// TestExport_SafetensorsOutIsAPlayOnlyCheckpoint: --out FILE.safetensors
// writes the network alone (no optimizer tensors or metadata), which
// loads and computes as the source does.
func TestExport_SafetensorsOutIsAPlayOnlyCheckpoint(t *testing.T) {
	dir := store.Dir(t.TempDir())
	ck := saveGen(t, dir, "nine", 2)
	ck.Extra = []model.Param{{Name: "adam.m.input.weight", Shape: []int{2}, Data: []float32{1, 2}}}
	ck.Meta = map[string]string{"optimizer": "adam"}
	if err := ck.Save(dir.Model(2)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "play.safetensors")
	code, stdout, errOut := runCmd("export", "--model", dir.Model(2), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, err := model.LoadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Extra) != 0 || len(got.Meta) != 0 || got.Generation != 2 {
		t.Errorf("exported: %d extra tensors, meta %v, generation %d; want none, none, 2", len(got.Extra), got.Meta, got.Generation)
	}
	for i, p := range got.Net.Params {
		if !slices.Equal(p.Data, ck.Net.Params[i].Data) {
			t.Fatalf("parameter %s differs from the source", p.Name)
		}
	}
	if !strings.Contains(stdout, "no optimizer state") {
		t.Errorf("output does not say what it left out:\n%s", stdout)
	}
}
