package mcts

import (
	"testing"

	"github.com/millzero/millzero/engine"
)

// oneBatch scores position p with e and returns its outcome weights.
func oneBatch(t *testing.T, v *engine.Variant, e Evaluator, p engine.Position) ([]float32, []float32) {
	t.Helper()
	var buf [engine.MaxActions]engine.Action
	b := NewBatch(v)
	b.Add(&p, v.Legal(&p, buf[:0]))
	if err := e.Evaluate(b); err != nil {
		t.Fatal(err)
	}
	return b.Priors(0), b.Outcome(0)
}

// TestRollout_WonPositionsScoreAWin: when every action wins (a removal
// that leaves Black with 2 pieces), every playout is a win for White.
func TestRollout_WonPositionsScoreAWin(t *testing.T) {
	v := load(t, "nine")
	p := parse(t, v, "OOO*****/*@******/****@@** side:0 hand:0,0 pending:0,1 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60")
	e, err := NewRolloutEvaluator(v, 8, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	priors, outcome := oneBatch(t, v, e, p)
	if outcome[0] != 1 || outcome[1] != 0 || outcome[2] != 0 {
		t.Errorf("outcome %v, want White wins always", outcome)
	}
	for _, pr := range priors {
		if pr != 1/float32(len(priors)) {
			t.Errorf("priors %v, want uniform", priors)
			break
		}
	}
}

// TestRollout_PlyLimitIsADraw: playouts cut off by the limit count as draws.
func TestRollout_PlyLimitIsADraw(t *testing.T) {
	v := load(t, "nine")
	e, err := NewRolloutEvaluator(v, 4, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, outcome := oneBatch(t, v, e, v.Start())
	if outcome[2] != 1 {
		t.Errorf("outcome %v, want a draw always", outcome)
	}
}

func TestRollout_BadSettingsAreErrors(t *testing.T) {
	v := load(t, "nine")
	if _, err := NewRolloutEvaluator(v, 0, 10, 1); err == nil {
		t.Error("0 playouts accepted")
	}
	if _, err := NewRolloutEvaluator(v, 1, 0, 1); err == nil {
		t.Error("ply limit 0 accepted")
	}
}

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
