package mcts

import (
	"testing"

	"github.com/millzero/millzero/engine"
)

// load loads a named variant or fails the test.
func load(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// parse reads a position or fails the test.
func parse(t testing.TB, v *engine.Variant, s string) engine.Position {
	t.Helper()
	p, err := v.ParsePosition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// action reads an action legal in p or fails the test.
func action(t testing.TB, v *engine.Variant, p *engine.Position, s string) engine.Action {
	t.Helper()
	a, err := v.ParseAction(p, s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testSettings are settings for small deterministic test searches: no
// noise, greedy move choice.
func testSettings(sims int) Settings {
	set := DefaultSettings()
	set.Simulations = sims
	set.DirichletFraction = 0
	set.TemperaturePlies = 0
	return set
}

// newSearch makes a search or fails the test.
func newSearch(t testing.TB, v *engine.Variant, set Settings, seed uint64) *Search {
	t.Helper()
	s, err := NewSearch(v, set, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rollouts makes a rollout evaluator or fails the test.
func rollouts(t testing.TB, v *engine.Variant, playouts int, seed uint64) *RolloutEvaluator {
	t.Helper()
	e, err := NewRolloutEvaluator(v, playouts, 200, seed)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// scriptEvaluator gives a prior of 1000 to the action it is told to prefer
// in a position (by hash) and 1 to the others, with even outcomes.
type scriptEvaluator struct {
	prefer map[uint64]engine.Action
}

func (e scriptEvaluator) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		want, ok := e.prefer[b.Position(i).Hash]
		for j, a := range b.Legal(i) {
			b.Priors(i)[j] = 1
			if ok && a == want {
				b.Priors(i)[j] = 1000
			}
		}
		for j := range b.Outcome(i) {
			b.Outcome(i)[j] = 1
		}
	}
	return nil
}
