package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestSpecCanonical_RebuildsEveryNamedVariant(t *testing.T) {
	for _, name := range Names() {
		v, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		text := v.Spec.Canonical()
		if strings.Contains(text, "base: "+v.Base) && v.Base != "" {
			t.Errorf("%s: canonical spec keeps its base %q:\n%s", name, v.Base, text)
		}
		w, err := ParseSpec(text, name)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, text)
		}
		want := v.Spec
		want.Base = ""
		if w.Spec != want {
			t.Errorf("%s: rebuilt spec %+v, want %+v", name, w.Spec, want)
		}
		if got := w.Spec.Canonical(); got != text {
			t.Errorf("%s: canonical form is not stable:\n%s\nthen\n%s", name, text, got)
		}
		if w.Spec.Hash() != v.Spec.Hash() || w.NumActions() != v.NumActions() {
			t.Errorf("%s: rebuilt variant differs: hash %s vs %s", name, w.Spec.Hash(), v.Spec.Hash())
		}
	}
}

func TestSpecHash_IgnoresOnlyTheDescriptionAndBase(t *testing.T) {
	v, err := Load("nine-diagonal")
	if err != nil {
		t.Fatal(err)
	}
	s := v.Spec
	same := s
	same.Description, same.Base = "other prose", ""
	if s.Hash() != same.Hash() {
		t.Errorf("description or base changed the hash")
	}
	for _, change := range []func(*Spec){
		func(x *Spec) { x.Name = "nine-diagonal-2" },
		func(x *Spec) { x.Board.Spokes = "midpoints" },
		func(x *Spec) { x.FlyAt = 0 },
		func(x *Spec) { x.MaxPlies++ },
	} {
		d := s
		change(&d)
		if d.Hash() == s.Hash() {
			t.Errorf("a rule change kept the hash: %+v", d)
		}
	}
}

func TestCheckSame_NamesEveryDifference(t *testing.T) {
	three, _ := Load("three")
	spec := three.Spec
	spec.Board.Diagonals = false
	spec.MaxPlies = 500
	spec.Description = "changed prose only"
	other, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	err = CheckSame(other, "model m.safetensors", three, "this run")
	if !errors.Is(err, ErrVariantMismatch) {
		t.Fatalf("CheckSame = %v, want ErrVariantMismatch", err)
	}
	for _, want := range []string{"model m.safetensors", "board.diagonals=false, this run has true", "max_plies=500, this run has 1000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "description") {
		t.Errorf("error %q names the description, which is no rule", err)
	}
	same, _ := Load("three")
	if err := CheckSame(same, "a", three, "b"); err != nil {
		t.Errorf("the same variant: %v", err)
	}
}

func TestRebuild_FallsBackToTheNameWithoutASpec(t *testing.T) {
	v, err := Rebuild("", "three", "old file")
	if err != nil || v.Name != "three" {
		t.Fatalf("Rebuild by name = %v, %v", v, err)
	}
	if _, err := Rebuild("", "no-such-variant", "old file"); !errors.Is(err, ErrUnknownVariant) || !strings.Contains(err.Error(), "old file") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Rebuild("name: x\npieces: [", "three", "bad file"); err == nil || !strings.Contains(err.Error(), "bad file") {
		t.Errorf("a malformed spec: %v", err)
	}
	spec := v.Spec
	spec.Name = "three-file-only"
	w, err := Rebuild(spec.Canonical(), "ignored", "new file")
	if err != nil || w.Name != "three-file-only" {
		t.Errorf("Rebuild from a spec = %v, %v", w, err)
	}
}

// The hash is stored in exported models: it must not change from one
// build to the next while the rules stay the same. A change to the
// canonical form (a new rule field, another field order) changes these
// on purpose; update them then.
func TestSpecHash_IsStableAcrossBuilds(t *testing.T) {
	for name, want := range map[string]string{"three": "fee2615597607760", "nine": "f08ab752c300abfd"} {
		v, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Spec.Hash(); got != want {
			t.Errorf("%s: hash %s, want %s", name, got, want)
		}
	}
}
