package mcts

import (
	"errors"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestNode_IsCompact(t *testing.T) {
	if NodeBytes > 40 {
		t.Errorf("a node is %d bytes, want at most 40", NodeBytes)
	}
}

// TestAdvance_ReusesTheSubtree: after a move, the chosen child's subtree is
// the new tree, with its visits, and searching on keeps the invariants.
func TestAdvance_ReusesTheSubtree(t *testing.T) {
	v := load(t, "nine")
	set := testSettings(400)
	s := newSearch(t, v, set, 1)
	if err := s.Run(rollouts(t, v, 1, 1)); err != nil {
		t.Fatal(err)
	}
	res := s.Result()
	best := res.Best
	var kept int32
	for i, a := range res.Actions {
		if a == best {
			kept = res.Visits[i]
		}
	}
	g := engine.NewGame(v)
	if err := g.Play(best); err != nil {
		t.Fatal(err)
	}
	if err := s.Advance(best); err != nil {
		t.Fatal(err)
	}
	if got := s.Result().Visited; got != int(kept) {
		t.Errorf("reused root has %d visits, the child had %d", got, kept)
	}
	if s.Root() != g.Pos {
		t.Errorf("root %s, want %s", v.FormatPosition(&s.rootPos), v.FormatPosition(&g.Pos))
	}
	checkTree(t, s, g.Hashes)
	if err := s.Run(rollouts(t, v, 1, 2)); err != nil {
		t.Fatal(err)
	}
	checkTree(t, s, g.Hashes)
	if got := s.Result().Visited; got != set.Simulations {
		t.Errorf("%d root visits after searching on, want %d", got, set.Simulations)
	}
}

func TestAdvance_WithoutReuseStartsAfresh(t *testing.T) {
	v := load(t, "nine")
	set := testSettings(100)
	set.ReuseTree = false
	s := newSearch(t, v, set, 1)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Advance(s.Result().Best); err != nil {
		t.Fatal(err)
	}
	if s.Nodes() != 1 || s.Result().Visited != 0 {
		t.Errorf("%d nodes and %d root visits after advancing, want a fresh root", s.Nodes(), s.Result().Visited)
	}
}

func TestAdvance_IllegalActionIsAnError(t *testing.T) {
	v := load(t, "nine")
	s := newSearch(t, v, testSettings(10), 1)
	err := s.Advance(engine.RemoveAt(3))
	if !errors.Is(err, engine.ErrIllegal) {
		t.Errorf("error %v, want ErrIllegal", err)
	}
}

func TestRun_GameOverIsAnError(t *testing.T) {
	v := load(t, "three")
	g := engine.NewGame(v)
	for _, m := range []string{"b2", "a1", "a3", "b1", "c1"} { // White a3-b2-c1
		if err := g.PlayString(m); err != nil {
			t.Fatal(err)
		}
	}
	if r, _ := g.Outcome(); r == engine.Ongoing {
		t.Fatalf("test game not over: %s", v.FormatPosition(&g.Pos))
	}
	s := newSearch(t, v, testSettings(10), 1)
	s.SetGame(g)
	if err := s.Run(UniformEvaluator{}); !errors.Is(err, ErrGameOver) {
		t.Errorf("Run: %v, want ErrGameOver", err)
	}
	if _, err := s.Choose(0); !errors.Is(err, ErrGameOver) {
		t.Errorf("Choose: %v, want ErrGameOver", err)
	}
}
