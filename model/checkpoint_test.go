package model

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

func mustVariant(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func savedCheckpoint(t *testing.T, v *engine.Variant) (string, *Checkpoint) {
	t.Helper()
	n := randomNetwork(t, NewArch(v, Config{Width: 16, Blocks: 2}), 7)
	n.Variant = v.Name
	c := &Checkpoint{Net: n, Generation: 3, Steps: 12345,
		Extra: []Param{{Name: "optim.m.input.weight", Shape: []int{2, 2}, Data: []float32{1, 2, 3, 4}}},
		Meta:  map[string]string{"optimizer": "adam"}}
	path := filepath.Join(t.TempDir(), "gen3.safetensors")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	return path, c
}

func TestCheckpointRoundTripGivesIdenticalOutputs(t *testing.T) {
	v := mustVariant(t, "nine")
	path, c := savedCheckpoint(t, v)
	got, err := LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	if got.Generation != 3 || got.Steps != 12345 || got.Meta["optimizer"] != "adam" || got.Net.Variant != "nine" || got.Net.Arch != c.Net.Arch {
		t.Errorf("metadata: got generation %d steps %d meta %v variant %s arch %v", got.Generation, got.Steps, got.Meta, got.Net.Variant, got.Net.Arch)
	}
	if len(got.Extra) != 1 || got.Extra[0].Name != "optim.m.input.weight" || got.Extra[0].Data[3] != 4 {
		t.Errorf("extra tensors %+v", got.Extra)
	}
	a := c.Net.Arch
	const batch = 4
	x := randomSlice(rand.New(rand.NewPCG(1, 1)), batch*a.Inputs)
	p1, o1 := make([]float32, batch*a.Actions), make([]float32, batch*a.Outcomes)
	p2, o2 := make([]float32, batch*a.Actions), make([]float32, batch*a.Outcomes)
	NewForward(c.Net, batch).Run(x, batch, p1, o1)
	NewForward(got.Net, batch).Run(x, batch, p2, o2)
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("policy logit %d: %v before saving, %v after loading", i, p1[i], p2[i])
		}
	}
	for i := range o1 {
		if o1[i] != o2[i] {
			t.Fatalf("outcome logit %d: %v before saving, %v after loading", i, o1[i], o2[i])
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d files after saving, want only the checkpoint", len(entries))
	}
}

// TestCheckpoint_AnMLPsArchitectureIsWrittenAsBefore: the fields a graph
// network added to Arch (kind, points, planes) stay out of an MLP's
// checkpoint, byte for byte.
func TestCheckpoint_AnMLPsArchitectureIsWrittenAsBefore(t *testing.T) {
	path, _ := savedCheckpoint(t, mustVariant(t, "nine"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `"architecture":"{\"inputs\":94,\"width\":16,\"blocks\":2,\"actions\":624,\"outcomes\":3}"`
	if !bytes.Contains(data, []byte(want)) {
		t.Errorf("the header does not hold %s:\n%s", want, data[8:min(len(data), 600)])
	}
}

func TestCheckpointLoadRejectsBadFiles(t *testing.T) {
	v := mustVariant(t, "nine")
	path, c := savedCheckpoint(t, v)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	otherShape := c.Net.Clone()
	otherShape.Params[2].Shape = []int{16, 15}
	otherShape.Params[2].Data = otherShape.Params[2].Data[:16*15]
	shapePath := filepath.Join(dir, "shape.safetensors")
	if err := (&Checkpoint{Net: otherShape}).Save(shapePath); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"truncated data", write("a", good[:len(good)-3]), "truncated"},
		{"truncated header", write("b", good[:20]), "truncated"},
		{"empty file", write("c", nil), "truncated"},
		{"trailing bytes", write("d", append(append([]byte(nil), good...), 0, 0, 0, 0)), "after the last tensor"},
		{"not json", write("e", append([]byte{8, 0, 0, 0, 0, 0, 0, 0}, "{{{{{{{{"...)), "header"},
		{"wrong shape", shapePath, "block0.fc1.weight has shape [16 15]"},
		{"missing file", filepath.Join(dir, "nope"), "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadCheckpointFor(c.path, v)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("error %v, want one naming %s and saying %q", err, c.path, c.want)
			}
		})
	}
}

func TestCheckpointOfAnotherVariantIsRefused(t *testing.T) {
	path, _ := savedCheckpoint(t, mustVariant(t, "nine"))
	for _, name := range []string{"twelve", "three"} {
		_, err := LoadCheckpointFor(path, mustVariant(t, name))
		if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), `for variant "nine", not "`+name+`"`) {
			t.Errorf("loading a nine checkpoint for %s: %v", name, err)
		}
	}
}

func TestCheckpointParseNeverPanicsOnCorruptBytes(t *testing.T) {
	path, _ := savedCheckpoint(t, mustVariant(t, "three"))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for i := 0; i < 300; i++ {
		data := append([]byte(nil), good...)
		if i%2 == 0 {
			data = data[:rng.IntN(len(data))]
		} else {
			for j := 0; j < 1+rng.IntN(4); j++ {
				data[rng.IntN(min(len(data), 2000))] = byte(rng.IntN(256))
			}
		}
		c, err := parseCheckpoint(data)
		if err == nil && c.Net == nil {
			t.Fatalf("corruption %d: no error and no network", i)
		}
	}
}

func TestCheckpoint_CanonicalOrientationTravelsAndAnUnknownOneIsRefused(t *testing.T) {
	v := mustVariant(t, "nine")
	n, err := New(v.Name, NewArch(v, Config{Width: 8, Blocks: 1, Orientation: OrientCanonical}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !n.Arch.Canonical || !strings.HasSuffix(n.Arch.String(), " canonical") {
		t.Fatalf("arch %v: want canonical", n.Arch)
	}
	path := filepath.Join(t.TempDir(), "gen-000001.safetensors")
	if err := (&Checkpoint{Net: n, Generation: 1}).Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCheckpointFor(path, v)
	if err != nil || !got.Net.Arch.Canonical || got.Meta["orientation"] != "" {
		t.Fatalf("loaded %v, meta %v, %v: want a canonical network, orientation not among the free metadata", got.Net.Arch, got.Meta, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bent := bytes.Replace(data, []byte(`"orientation":"canonical"`), []byte(`"orientation":"sideways!"`), 1)
	if bytes.Equal(bent, data) {
		t.Fatal("the checkpoint's header does not say orientation canonical")
	}
	if _, err := parseCheckpoint(bent); err == nil || !strings.Contains(err.Error(), `orientation "sideways!"`) {
		t.Errorf("an unknown orientation: %v", err)
	}
	if err := (Config{Width: 8, Orientation: "sideways"}).Validate(); err == nil || !strings.Contains(err.Error(), "orientation") {
		t.Errorf("config orientation sideways: %v", err)
	}
}

func TestCheckpoint_NaNOrInfiniteWeightsAreRefusedNamingTheTensor(t *testing.T) {
	v := mustVariant(t, "nine")
	_, c := savedCheckpoint(t, v)
	for _, tc := range []struct {
		name   string
		bend   func(c *Checkpoint)
		tensor string
	}{
		{"NaN weight", func(c *Checkpoint) { c.Net.Params[2].Data[5] = float32(math.NaN()) }, c.Net.Params[2].Name},
		{"infinite weight", func(c *Checkpoint) { c.Net.Params[0].Data[0] = float32(math.Inf(-1)) }, c.Net.Params[0].Name},
		{"NaN optimizer moment", func(c *Checkpoint) { c.Extra[0].Data[1] = float32(math.NaN()) }, "optim.m.input.weight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bent := &Checkpoint{Net: c.Net.Clone(), Generation: c.Generation, Steps: c.Steps, Meta: c.Meta,
				Extra: []Param{{Name: c.Extra[0].Name, Shape: c.Extra[0].Shape, Data: slices.Clone(c.Extra[0].Data)}}}
			tc.bend(bent)
			path := filepath.Join(t.TempDir(), "diverged.safetensors")
			if err := bent.Save(path); err != nil {
				t.Fatal(err)
			}
			_, err := LoadCheckpoint(path)
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "tensor "+tc.tensor+":") ||
				!strings.Contains(err.Error(), "finite") {
				t.Errorf("loading %s: %v, want an error naming the file, tensor %s and the non-finite value", tc.name, err, tc.tensor)
			}
		})
	}
}

func TestCheckpoint_AnotherFormatIsNamedAsNotSafetensors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The start of an ONNX model: ir_version 7, then the producer's name.
	onnxStart := append([]byte{0x08, 0x07, 0x12, 0x08}, "millzero and then a graph, 64 bytes or more of it"...)
	for _, tc := range []struct {
		name, path string
		onnx       bool
	}{
		{"ONNX by content", write("model.bin", onnxStart), true},
		{"ONNX by name", write("model.onnx", []byte("PK\x03\x04 not even ONNX, but named so")), true},
		{"a zip archive", write("model.pt", []byte("PK\x03\x04 a zip archive, not a checkpoint")), false},
		{"text", write("notes.txt", []byte("these are notes, not weights")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadCheckpoint(tc.path)
			if !errors.Is(err, ErrNotSafetensors) || !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tc.path) ||
				!strings.Contains(err.Error(), "not a safetensors checkpoint") {
				t.Fatalf("%s: %v, want ErrNotSafetensors naming the file", tc.name, err)
			}
			if got := strings.Contains(err.Error(), "an ONNX model") && strings.Contains(err.Error(), "ONNX is for other runtimes"); got != tc.onnx {
				t.Errorf("%s: %v: says it is ONNX: %v, want %v", tc.name, err, got, tc.onnx)
			}
		})
	}
}
