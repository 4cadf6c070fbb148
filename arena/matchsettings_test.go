package arena

import (
	"testing"

	"github.com/millzero/millzero/mcts"
)

// TestMatchSettings_NoSelfPlayExploration: a match plays a run's search
// without its self-play exploration: no root noise, no forced playouts,
// no pruned target, greedy moves, no contempt; the result is valid settings.
func TestMatchSettings_NoSelfPlayExploration(t *testing.T) {
	run := mcts.DefaultSettings()
	run.ForcedPlayoutsK, run.PrunePolicyTarget, run.Contempt = 2, true, 0.1
	s := MatchSettings(run, 50)
	if s.Simulations != 50 || s.DirichletFraction != 0 || s.ForcedPlayoutsK != 0 || s.PrunePolicyTarget || s.Temperature != 0 || s.FinalTemperature != 0 || s.Contempt != 0 {
		t.Errorf("match settings %+v: want 50 visits, no noise, no forced playouts nor pruning, temperature 0, no contempt", s)
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}
