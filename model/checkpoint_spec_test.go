package model

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// fileOnlyVariant is a variant no name knows: three with another name and
// no diagonals, as a variant file would make it.
func fileOnlyVariant(t *testing.T) *engine.Variant {
	t.Helper()
	spec := mustVariant(t, "three").Spec
	spec.Name, spec.Base = "three-plain", ""
	spec.Board.Diagonals = false
	v, err := engine.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func specCheckpoint(t *testing.T, v *engine.Variant) string {
	t.Helper()
	n := randomNetwork(t, NewArch(v, Config{Width: 8, Blocks: 1}), 3)
	n.Variant, n.Spec = v.Name, v.Spec.Canonical()
	path := filepath.Join(t.TempDir(), "spec.safetensors")
	if err := (&Checkpoint{Net: n, Generation: 2}).Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckpointSpec_RebuildsAVariantThatExistsOnlyAsAFile(t *testing.T) {
	v := fileOnlyVariant(t)
	path := specCheckpoint(t, v)
	ck, err := LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Variant()
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "three-plain" || got.Spec.Hash() != v.Spec.Hash() {
		t.Errorf("rebuilt %s (hash %s), want three-plain (hash %s)", got.Name, got.Spec.Hash(), v.Spec.Hash())
	}
}

func TestCheckpointSpec_ADifferentSpecOfTheSameNameIsRefusedNamingTheDifference(t *testing.T) {
	v := fileOnlyVariant(t)
	path := specCheckpoint(t, v)
	spec := v.Spec
	spec.Board.Diagonals = true
	other, err := engine.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadCheckpointFor(path, other)
	if !errors.Is(err, ErrCheckpoint) || !errors.Is(err, engine.ErrVariantMismatch) ||
		!strings.Contains(err.Error(), "board.diagonals=false, variant three-plain has true") || !strings.Contains(err.Error(), path) {
		t.Errorf("loading for a variant with diagonals: %v", err)
	}
}

func TestCheckpointSpec_OldCheckpointsWithoutASpecFallBackToTheName(t *testing.T) {
	v := mustVariant(t, "three")
	path, _ := savedCheckpoint(t, v) // Net.Spec "": as written before specs travelled
	ck, err := LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ck.Variant()
	if err != nil || got.Name != "three" {
		t.Errorf("Variant of an old checkpoint = %v, %v; want the named three", got, err)
	}
	ck.Net.Variant = "gone-variant"
	if _, err := ck.Variant(); !errors.Is(err, engine.ErrUnknownVariant) {
		t.Errorf("an old checkpoint of an unknown name: %v", err)
	}
}

func TestCheckpointSpec_AMalformedOrMismatchedSpecIsABadCheckpoint(t *testing.T) {
	v := fileOnlyVariant(t)
	for _, c := range []struct{ name, variant, spec, want string }{
		{"malformed", "three-plain", "name: three-plain\npieces: [\n", "variant_spec"},
		{"invalid rules", "three-plain", strings.Replace(v.Spec.Canonical(), "pieces: 3", "pieces: 1", 1), "pieces 1"},
		{"another name", "three", v.Spec.Canonical(), `its variant_spec is of "three-plain"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := randomNetwork(t, NewArch(v, Config{Width: 8, Blocks: 1}), 3)
			n.Variant, n.Spec = c.variant, c.spec
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			if err := (&Checkpoint{Net: n}).Save(path); err != nil {
				t.Fatal(err)
			}
			_, err := LoadCheckpoint(path)
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("load: %v, want ErrCheckpoint saying %q", err, c.want)
			}
		})
	}
}
