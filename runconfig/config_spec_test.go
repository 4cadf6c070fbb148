package runconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

const plainThreeFile = `name: three-plain
base: three
board: {kind: grid3, diagonals: false, cross: false}
`

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigSpec_RunYAMLRebuildsTheVariantFromItsSpecNotTheFile(t *testing.T) {
	dir := t.TempDir()
	varPath := writeFile(t, dir, "plain.yaml", plainThreeFile)
	c, text, err := LoadConfig(writeFile(t, dir, "cfg.yaml", "variant: "+varPath+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.VariantSpec == nil || c.VariantSpec.Name != "three-plain" || c.VariantSpec.Base != "" {
		t.Fatalf("resolved variant_spec %+v", c.VariantSpec)
	}
	runYAML := writeFile(t, dir, "run.yaml", string(text))
	// The file goes: run.yaml alone still gives the variant.
	if err := os.Remove(varPath); err != nil {
		t.Fatal(err)
	}
	stored, again, err := LoadConfig(runYAML)
	if err != nil {
		t.Fatalf("run.yaml after its variant file went: %v", err)
	}
	if string(again) != string(text) {
		t.Errorf("run.yaml resolves differently when read back:\n%s\nwas\n%s", again, text)
	}
	v, err := stored.LoadVariant()
	if err != nil || v.Name != "three-plain" || v.Board.Spec.Diagonals {
		t.Errorf("variant of run.yaml = %+v, %v; want three-plain without diagonals", v, err)
	}
}

func TestConfigSpec_OldRunYAMLWithoutASpecFallsBackToTheName(t *testing.T) {
	dir := t.TempDir()
	c, _, err := LoadConfig(writeFile(t, dir, "run.yaml", "variant: three\n"))
	if err != nil {
		t.Fatal(err)
	}
	three, _ := engine.Load("three")
	if c.VariantSpec == nil || c.VariantSpec.Hash() != three.Spec.Hash() {
		t.Errorf("variant_spec of an old run.yaml %+v, want three's", c.VariantSpec)
	}
}

func TestConfigSpec_ABadSpecInRunYAMLIsAnErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"bad-pieces.yaml", "variant: three\nvariant_spec: {name: three, board: {kind: grid3}, players: 2, pieces: 1, max_plies: 10}\n", "variant_spec: variant three: pieces 1"},
		{"unknown-key.yaml", "variant: three\nvariant_spec: {name: three, holes: 3}\n", "field holes not found"},
	} {
		_, _, err := LoadConfig(writeFile(t, dir, c.name, c.text))
		if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming the file and saying %q", c.name, err, c.want)
		}
	}
}

func TestConfigSpec_ConfigOfAnotherSpecIsRefusedNamingTheDifference(t *testing.T) {
	dir := t.TempDir()
	varPath := writeFile(t, dir, "plain.yaml", plainThreeFile)
	cfg := writeFile(t, dir, "cfg.yaml", "variant: "+varPath+"\n")
	first, _, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "plain.yaml", strings.Replace(plainThreeFile, "diagonals: false", "diagonals: true", 1))
	second, _, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = first.CheckSameVariant(&second, "--config")
	if !errors.Is(err, engine.ErrVariantMismatch) || !strings.Contains(err.Error(), "--config is for a variant with board.diagonals=true, this run has false") {
		t.Errorf("CheckSameVariant: %v", err)
	}
	if err := first.CheckSameVariant(&first, "--config"); err != nil {
		t.Errorf("the same config: %v", err)
	}
}
