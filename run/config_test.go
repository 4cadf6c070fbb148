package run

import (
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/configs"
)

func TestLoadConfig_EveryEmbeddedConfigIsValid(t *testing.T) {
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Variant != "nine" {
		t.Fatalf("default variant %q", c.Variant)
	}
	entries, err := configs.Runs.ReadDir("runs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, _, err := LoadConfig(strings.TrimSuffix(e.Name(), ".yaml")); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

func TestGateDecision_UndecidedLeaningIsAnOption(t *testing.T) {
	cases := []struct {
		d       arena.Decision
		llr     float64
		leaning bool
		want    string
	}{
		{arena.AcceptH1, 3, false, "accepted"},
		{arena.AcceptH0, -3, true, "rejected"},
		{arena.Continue, 0.5, false, "rejected"},
		{arena.Continue, 0.5, true, "accepted-leaning"},
		{arena.Continue, -0.5, true, "rejected"},
	}
	for _, c := range cases {
		got := GateConfig{AcceptLean: c.leaning}.Decision(arena.GateResult{Decision: c.d, LLR: c.llr})
		if got != c.want {
			t.Errorf("decision %v, LLR %v, accept_leaning %v: %q, want %q", c.d, c.llr, c.leaning, got, c.want)
		}
	}
}

func TestConfig_TablebaseMustBeADirectory(t *testing.T) {
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	c.Tablebase = t.TempDir() + "/missing"
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "tablebase") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("validate: %v, want an error naming tablebase and the directory", err)
	}
	c.Tablebase = t.TempDir()
	if err := c.validate(); err != nil {
		t.Errorf("an existing directory: %v", err)
	}
}
