package mcts

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSettings_DefaultsAreValid(t *testing.T) {
	set := DefaultSettings()
	if err := set.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestSettings_ValidateNamesTheField: each bad value is refused with an
// error naming the YAML field.
func TestSettings_ValidateNamesTheField(t *testing.T) {
	cases := []struct {
		field string
		set   func(*Settings)
	}{
		{"simulations", func(s *Settings) { s.Simulations = 0 }},
		{"simulations", func(s *Settings) { s.Simulations = MaxVisits + 1 }},
		{"placing_factor", func(s *Settings) { s.Simulations = MaxVisits / 2; s.PlacingFactor = 3 }},
		{"c_puct", func(s *Settings) { s.CPuct = 0 }},
		{"placing_factor", func(s *Settings) { s.PlacingFactor = 0.5 }},
		{"placing_factor", func(s *Settings) { s.PlacingFactor = MaxPlacingFactor + 1 }},
		{"placing_factor", func(s *Settings) { s.PlacingFactor = math.NaN() }},
		{"fpu_reduction", func(s *Settings) { s.FPUReduction = -0.1 }},
		{"fpu_root", func(s *Settings) { s.FPURoot = 2 }},
		{"dirichlet_fraction", func(s *Settings) { s.DirichletFraction = 1.5 }},
		{"dirichlet_alpha", func(s *Settings) { s.DirichletAlpha = 0 }},
		{"temperature", func(s *Settings) { s.Temperature = -1 }},
		{"temperature_plies", func(s *Settings) { s.TemperaturePlies = -1 }},
		{"final_temperature", func(s *Settings) { s.FinalTemperature = -0.5 }},
		{"contempt", func(s *Settings) { s.Contempt = -0.1 }},
		{"contempt", func(s *Settings) { s.Contempt = 0.3 }},
		{"batch_size", func(s *Settings) { s.BatchSize = 0 }},
		{"virtual_loss", func(s *Settings) { s.VirtualLoss = -1 }},
		{"root", func(s *Settings) { s.Root = "alphazero" }},
		{"root", func(s *Settings) { s.Root = "" }},
		{"gumbel_actions", func(s *Settings) { s.GumbelActions = 0 }},
		{"c_visit", func(s *Settings) { s.CVisit = -1 }},
		{"c_visit", func(s *Settings) { s.CVisit = math.Inf(1) }},
		{"c_scale", func(s *Settings) { s.CScale = math.NaN() }},
		{"min_q_spread", func(s *Settings) { s.MinQSpread = 1.5 }},
		{"gumbel_interior", func(s *Settings) { s.GumbelInterior = "ucb" }},
		{"forced_playouts_k", func(s *Settings) { s.ForcedPlayoutsK = -1 }},
		{"forced_playouts_k", func(s *Settings) { s.ForcedPlayoutsK = math.NaN() }},
		{"forced_playouts_k", func(s *Settings) { s.ForcedPlayoutsK = 2; s.Root = RootGumbel }},
		{"prune_policy_target", func(s *Settings) { s.PrunePolicyTarget = true }},
	}
	for _, c := range cases {
		set := DefaultSettings()
		c.set(&set)
		err := set.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming the field", c.field, err)
		}
		if _, err := NewSearch(load(t, "nine"), set, 1); err == nil {
			t.Errorf("%s: NewSearch took bad settings", c.field)
		}
	}
}

func TestSettings_MaxVisitsIsTheMostASearchMayTake(t *testing.T) {
	set := DefaultSettings()
	set.Simulations = MaxVisits
	if err := set.Validate(); err != nil {
		t.Fatalf("simulations %d: %v; want it taken", MaxVisits, err)
	}
	set.Simulations, set.PlacingFactor = MaxVisits/4, 4
	if err := set.Validate(); err != nil {
		t.Fatalf("simulations %d with placing_factor 4: %v; want it taken", set.Simulations, err)
	}
	set.Simulations, set.PlacingFactor = 10_000_000, 0
	if err := set.Validate(); err == nil || !strings.Contains(err.Error(), "simulations 10000000") || !strings.Contains(err.Error(), fmt.Sprint(MaxVisits)) {
		t.Fatalf("simulations 10000000: %v; want refused naming the bound", err)
	}
}

func TestSettings_FilledFromYAML(t *testing.T) {
	text := `
simulations: 800
c_puct: 2.5
fpu_reduction: 0.3
fpu_root: 0.1
dirichlet_alpha: 0.15
dirichlet_fraction: 0.2
temperature: 0.8
temperature_plies: 12
final_temperature: 0.1
reuse_tree: false
contempt: 0.05
batch_size: 16
virtual_loss: 2
root: gumbel
gumbel_actions: 8
c_visit: 40
c_scale: 0.1
gumbel_interior: improved
forced_playouts_k: 0
prune_policy_target: false
`
	set := DefaultSettings()
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&set); err != nil {
		t.Fatal(err)
	}
	want := Settings{Simulations: 800, CPuct: 2.5, FPUReduction: 0.3, FPURoot: 0.1, DirichletAlpha: 0.15,
		DirichletFraction: 0.2, Temperature: 0.8, TemperaturePlies: 12, FinalTemperature: 0.1, ReuseTree: false, Contempt: 0.05, BatchSize: 16, VirtualLoss: 2,
		Root: RootGumbel, GumbelActions: 8, CVisit: 40, CScale: 0.1, GumbelInterior: InteriorImproved}
	if set != want {
		t.Errorf("decoded %+v, want %+v", set, want)
	}
	set = DefaultSettings()
	if err := yaml.Unmarshal([]byte("forced_playouts_k: 2\nprune_policy_target: true\n"), &set); err != nil {
		t.Fatal(err)
	}
	if set.ForcedPlayoutsK != 2 || !set.PrunePolicyTarget {
		t.Errorf("forced_playouts_k 2, prune_policy_target true decoded as %v, %v", set.ForcedPlayoutsK, set.PrunePolicyTarget)
	}
}
