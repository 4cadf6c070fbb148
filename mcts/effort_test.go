package mcts

import "testing"

// TestSetSimulations_ChangesTheNextRun: a search can be made longer or
// shorter between moves, keeping its tree; nonsense is ignored.
func TestSetSimulations_ChangesTheNextRun(t *testing.T) {
	v := load(t, "nine")
	s := newSearch(t, v, testSettings(50), 1)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	s.SetSimulations(120)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	if got := s.Result().Visited; got != 120 {
		t.Errorf("%d root visits, want 120", got)
	}
	s.SetSimulations(0)
	if got := s.Settings().Simulations; got != 120 {
		t.Errorf("SetSimulations(0) made it %d", got)
	}
}
