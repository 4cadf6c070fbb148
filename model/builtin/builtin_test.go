package builtin

import (
	"testing"

	"github.com/millzero/millzero/engine"
)

// TestNine_LoadsAsTheProvenanceSays: the embedded checkpoint is a nine
// network of the generation and size its provenance names, holding no
// optimizer state.
func TestNine_LoadsAsTheProvenanceSays(t *testing.T) {
	ck, err := Nine()
	if err != nil {
		t.Fatal(err)
	}
	p, err := About()
	if err != nil {
		t.Fatal(err)
	}
	v, err := ck.Variant()
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != Variant || p.Variant != Variant {
		t.Errorf("variant %s, provenance %s: want %s", v.Name, p.Variant, Variant)
	}
	if ck.Generation != p.Generation {
		t.Errorf("checkpoint generation %d, provenance says %d", ck.Generation, p.Generation)
	}
	if got := ck.Net.Arch.String(); got != p.Network {
		t.Errorf("network %s, provenance says %s", got, p.Network)
	}
	if len(ck.Extra) != 0 {
		t.Errorf("%d extra tensors: the built-in model holds only what play needs", len(ck.Extra))
	}
	if p.Commit == "" || p.Config == "" || p.Command == "" || len(p.Strength) == 0 {
		t.Errorf("provenance lacks the commit, config, command or strength: %+v", p)
	}
	if _, err := engine.Load(Variant); err != nil {
		t.Fatal(err)
	}
}
