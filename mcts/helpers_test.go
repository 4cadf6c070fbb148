package mcts

import (
	"math/rand/v2"
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

// checkTree checks the invariants of a searched tree: every expanded node
// has one child per legal action of its position, in the engine's order,
// priors that sum to 1, and one visit more than its children have together
// (its own evaluation); nothing is left in flight; terminal nodes are over.
func checkTree(t testing.TB, s *Search, history []uint64) {
	t.Helper()
	var walk func(i int32, p engine.Position, hist []uint64)
	var buf [engine.MaxActions]engine.Action
	walk = func(i int32, p engine.Position, hist []uint64) {
		n := &s.nodes[i]
		if n.inflight != 0 {
			t.Fatalf("node %d: %d playouts left in flight", i, n.inflight)
		}
		switch n.state {
		case pending:
			t.Fatalf("node %d: still pending after the search", i)
		case terminal:
			if r, _ := s.v.Outcome(&p); r == engine.Ongoing && !s.repeated(&p, hist) {
				t.Fatalf("node %d: terminal (%s) but %s is not over", i, n.result, s.v.FormatPosition(&p))
			}
			return
		case fresh:
			if n.visits != 0 {
				t.Fatalf("node %d: fresh with %d visits", i, n.visits)
			}
			return
		}
		legal := s.v.Legal(&p, buf[:0])
		if len(legal) != int(n.children) {
			t.Fatalf("node %d: %d children, %d legal actions in %s", i, n.children, len(legal), s.v.FormatPosition(&p))
		}
		legal = append([]engine.Action(nil), legal...)
		sumPrior := float32(0)
		sumVisits := int32(0)
		for k, a := range legal {
			c := &s.nodes[n.first+int32(k)]
			if c.action != a {
				t.Fatalf("node %d: child %d is %s, want the legal action %s", i, k, s.v.FormatAction(c.action), s.v.FormatAction(a))
			}
			if !(c.prior >= 0) {
				t.Fatalf("node %d: child %s has prior %v", i, s.v.FormatAction(a), c.prior)
			}
			sumPrior += c.prior
			sumVisits += c.visits
		}
		if sumPrior < 0.999 || sumPrior > 1.001 {
			t.Fatalf("node %d: priors sum to %v", i, sumPrior)
		}
		if n.result != engine.Ongoing {
			// Proven: later descents stop here, so it has visits of its own.
			if n.visits < sumVisits+1 {
				t.Fatalf("node %d: proven with %d visits, its children have %d", i, n.visits, sumVisits)
			}
			won, all := false, true
			for k := range legal {
				c := &s.nodes[n.first+int32(k)]
				won = won || (c.result == n.result && wonFor(c, int(p.Side)))
				all = all && c.result != engine.Ongoing
			}
			if !won && !(all && s.v.Players == 2) {
				t.Fatalf("node %d: proven %s, but no child wins for seat %d and not all are proven", i, n.result, p.Side)
			}
		} else if n.visits != sumVisits+1 {
			t.Fatalf("node %d: %d visits, its children have %d", i, n.visits, sumVisits)
		}
		for k, a := range legal {
			q := s.v.Apply(&p, a)
			walk(n.first+int32(k), q, append(hist[:len(hist):len(hist)], p.Hash))
		}
	}
	walk(0, s.rootPos, append([]uint64(nil), history...))
}

// randomPositions plays random games of v and returns every position met
// that is not over, with its history, up to n of them.
func randomPositions(v *engine.Variant, n int, seed uint64) []*engine.Game {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*engine.Game
	var buf [engine.MaxActions]engine.Action
	for len(out) < n {
		g := engine.NewGame(v)
		stop := rng.IntN(120)
		for ply := 0; ply < stop; ply++ {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			legal := v.Legal(&g.Pos, buf[:0])
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				panic(err)
			}
		}
		if r, _ := g.Outcome(); r == engine.Ongoing {
			out = append(out, g)
		}
	}
	return out
}
