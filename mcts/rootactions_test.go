package mcts

import (
	"slices"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestSetRootActions_TheRootSearchesOnlyThoseAndSetRootLiftsIt(t *testing.T) {
	v := load(t, "nine")
	for _, root := range []string{RootPUCT, RootGumbel} {
		set := DefaultSettings()
		set.Simulations, set.Root, set.DirichletFraction = 300, root, 0
		s, err := NewSearch(v, set, 1)
		if err != nil {
			t.Fatal(err)
		}
		g := engine.NewGame(v)
		s.Follow(g)
		if err := s.Run(UniformEvaluator{}); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Result().Actions); n != 24 {
			t.Fatalf("root %v: %d root actions before the restriction, want 24", root, n)
		}
		only := []engine.Action{action(t, v, &g.Pos, "d6"), action(t, v, &g.Pos, "a1")}
		s.SetRootActions(only)
		if s.Result().Visited != 0 {
			t.Fatalf("root %v: a new restriction kept the tree grown without it", root)
		}
		if err := s.Run(UniformEvaluator{}); err != nil {
			t.Fatal(err)
		}
		res := s.Result()
		if len(res.Actions) != 2 || !slices.Contains(only, res.Best) {
			t.Fatalf("root %v: root actions %v, best %v; want only a1 and d6", root, res.Actions, res.Best)
		}
		a, err := s.Choose(0)
		if err != nil || !slices.Contains(only, a) {
			t.Fatalf("root %v: chose %v (%v), want a1 or d6", root, a, err)
		}
		if pv := s.PV(nil, 8); len(pv) == 0 || !slices.Contains(only, pv[0]) {
			t.Fatalf("root %v: pv %v starts outside the restriction", root, pv)
		}
		s.SetGame(g)
		if err := s.Run(UniformEvaluator{}); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Result().Actions); n != 24 {
			t.Fatalf("root %v: %d root actions after SetGame, want the restriction lifted (24)", root, n)
		}
	}
}

func TestSetRootActions_NoLegalActionNamedKeepsEveryAction(t *testing.T) {
	v := load(t, "nine")
	set := DefaultSettings()
	set.Simulations = 50
	s, err := NewSearch(v, set, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := engine.NewGame(v)
	if err := g.PlayString("d6"); err != nil {
		t.Fatal(err)
	}
	s.Follow(g)
	s.SetRootActions([]engine.Action{g.Actions[0]}) // d6 is taken: not legal now
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Result().Actions); n != 23 {
		t.Fatalf("%d root actions, want every legal one (23)", n)
	}
}
