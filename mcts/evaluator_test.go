package mcts

import (
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestBatch_ViewsDoNotOverlap(t *testing.T) {
	v := load(t, "moulin-rouge-4")
	var buf [engine.MaxActions]engine.Action
	b := NewBatch(v)
	positions := randomPositions(v, 5, 3)
	for _, g := range positions {
		b.Add(&g.Pos, v.Legal(&g.Pos, buf[:0]))
	}
	for i := 0; i < b.Len(); i++ {
		for j := range b.Priors(i) {
			b.Priors(i)[j] = float32(i)
		}
		for j := range b.Outcome(i) {
			b.Outcome(i)[j] = float32(i)
		}
	}
	for i, g := range positions {
		if *b.Position(i) != g.Pos {
			t.Errorf("position %d changed", i)
		}
		legal := v.Legal(&g.Pos, buf[:0])
		if len(b.Legal(i)) != len(legal) || len(b.Priors(i)) != len(legal) || len(b.Outcome(i)) != 5 {
			t.Fatalf("position %d: %d legal, %d priors, %d outcomes", i, len(b.Legal(i)), len(b.Priors(i)), len(b.Outcome(i)))
		}
		for j := range b.Priors(i) {
			if b.Priors(i)[j] != float32(i) || b.Legal(i)[j] != legal[j] {
				t.Fatalf("position %d: views overlap", i)
			}
		}
		for _, o := range b.Outcome(i) {
			if o != float32(i) {
				t.Fatalf("position %d: outcome views overlap", i)
			}
		}
	}
	b.Reset()
	if b.Len() != 0 {
		t.Errorf("%d positions after Reset", b.Len())
	}
}

// TestBatch_RepetitionsCountHistoryAndPath: the batch tells the evaluator
// how often each leaf occurred before, in the game and on the path.
func TestBatch_RepetitionsCountHistoryAndPath(t *testing.T) {
	v := load(t, "three-nodiagonal")
	p0 := parse(t, v, "O*@O*O@*/@ side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:20")
	g := engine.NewGameFrom(v, p0)
	cycle := []string{"a3-a2", "b2-b3", "a2-a3", "b3-b2"}
	prefer := map[uint64]engine.Action{}
	for _, m := range cycle {
		a := action(t, v, &g.Pos, m)
		prefer[g.Pos.Hash] = a
		if err := g.Play(a); err != nil {
			t.Fatal(err)
		}
	}
	set := testSettings(100)
	set.CPuct = 50
	s := newSearch(t, v, set, 1)
	s.SetGame(g) // p0 for the second time
	b := NewBatch(v)
	s.gather(b)
	if b.Len() != 1 || b.Repetitions(0) != 1 {
		t.Fatalf("root: %d leaves, repetitions %d: want 1 leaf seen once before", b.Len(), b.Repetitions(0))
	}
	if err := (scriptEvaluator{prefer}).Evaluate(b); err != nil {
		t.Fatal(err)
	}
	s.absorb(b)
	// Down the cycle: p1, p2, p3 were each seen once in the game.
	for depth := 1; depth <= 3; depth++ {
		b.Reset()
		s.set.BatchSize = 1
		s.gather(b)
		if b.Len() != 1 || b.Repetitions(0) != 1 {
			t.Fatalf("depth %d: %d leaves, repetitions %d, want 1", depth, b.Len(), b.Repetitions(0))
		}
		if err := (scriptEvaluator{prefer}).Evaluate(b); err != nil {
			t.Fatal(err)
		}
		s.absorb(b)
	}
}
