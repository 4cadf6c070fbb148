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
