package mcts

import (
	"context"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
)

func TestFollow_KeepsTheSubtreeAlongTheGameAndReRootsOffIt(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := DefaultSettings()
	set.Simulations = 200
	s, err := NewSearch(v, set, 1)
	if err != nil {
		t.Fatal(err)
	}
	eval := UniformEvaluator{}
	g := engine.NewGame(v)
	for i := 0; i < 3; i++ {
		s.Follow(g)
		if s.Root() != g.Pos {
			t.Fatalf("move %d: root is not the game's position", i)
		}
		if err := s.Run(eval); err != nil {
			t.Fatal(err)
		}
		if err := g.Play(s.Result().Best); err != nil {
			t.Fatal(err)
		}
	}
	s.Follow(g)
	if s.Root() != g.Pos || s.Result().Visited == 0 {
		t.Fatalf("following the game lost the subtree (visits %d)", s.Result().Visited)
	}
	g.Undo()
	g.Undo()
	s.Follow(g)
	if s.Root() != g.Pos || s.Result().Visited != 0 {
		t.Fatalf("after an undo: root matches %v, visits %d; want a fresh root at the game", s.Root() == g.Pos, s.Result().Visited)
	}
	other := engine.NewGame(v)
	other.PlayString("a1")
	s.Follow(other)
	if s.Root() != other.Pos {
		t.Fatal("another game: not re-rooted")
	}
}

func TestRunFor_StopsAtTheDeadlineWithWhatItFound(t *testing.T) {
	v, _ := engine.Load("nine")
	s, err := NewSearch(v, DefaultSettings(), 1)
	if err != nil {
		t.Fatal(err)
	}
	slow := evaluatorFunc(func(b *Batch) error { time.Sleep(2 * time.Millisecond); return UniformEvaluator{}.Evaluate(b) })
	start := time.Now()
	if err := s.RunFor(context.Background(), slow, 1<<30, time.Now().Add(50*time.Millisecond), 0); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("ran %v past a 50ms deadline", el)
	}
	if s.Result().Visited == 0 {
		t.Fatal("no visits")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.RunFor(ctx, UniformEvaluator{}, 1<<30, time.Time{}, 0); err != nil {
		t.Fatal(err)
	}
}

type evaluatorFunc func(*Batch) error

func (f evaluatorFunc) Evaluate(b *Batch) error { return f(b) }
