package mcts

import (
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// materialEvaluator gives even priors and even outcomes, and as the score
// the side to move's material now (pieces on the board and in hand) less
// the other's: a network that cannot tell lines apart by their result,
// only by what they keep.
type materialEvaluator struct{ scores bool }

func (e materialEvaluator) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		for j := range b.Priors(i) {
			b.Priors(i)[j] = 1
		}
		for j := range b.Outcome(i) {
			b.Outcome(i)[j] = 1
		}
		if e.scores {
			p := b.Position(i)
			me, other := int(p.Side), 1-int(p.Side)
			d := bits.OnesCount32(p.Pieces[me]) + int(p.Hand[me]) - bits.OnesCount32(p.Pieces[other]) - int(p.Hand[other])
			b.SetScore(i, float32(d))
		}
	}
	return nil
}

func (e materialEvaluator) Scores() bool { return e.scores }

// White to place with two on a line and its third point empty: a mill
// there wins a piece two actions on. With even outcomes everywhere, only
// the score utility tells that placement apart: with it the search plays
// the mill and values the root above a draw; without it the root is worth
// a draw's half exactly.
func TestScoreUtility_PlaysTheLineThatWinsMaterial(t *testing.T) {
	v := load(t, "nine")
	p := parse(t, v, "OO******/********/@@****** side:0 hand:7,7 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:4")
	var mill engine.Action // the placement on the line's third point: white moves again, to remove
	found := 0
	for _, a := range v.Legal(&p, nil) {
		if q := v.Apply(&p, a); q.Side == 0 {
			mill, found = a, found+1
		}
	}
	if found != 1 {
		t.Fatalf("%d placements close a mill in %s, want one", found, v.FormatPosition(&p))
	}
	for _, root := range []string{RootPUCT, RootGumbel} {
		set := testSettings(400)
		set.Root = root
		s := newSearch(t, v, set, 1)
		s.SetRoot(p, nil)
		if err := s.Run(materialEvaluator{scores: true}); err != nil {
			t.Fatal(err)
		}
		if r := s.Result(); r.Value[0] != 0.5 {
			t.Fatalf("%s root without the utility: root value %v, want a draw's 0.5", root, r.Value[0])
		}

		set.ScoreUtility = 0.5
		s = newSearch(t, v, set, 1)
		s.SetRoot(p, nil)
		if err := s.Run(materialEvaluator{scores: true}); err != nil {
			t.Fatal(err)
		}
		r := s.Result()
		if r.Best != mill {
			t.Errorf("%s root with the utility: plays %s, want the mill %s", root, v.FormatAction(r.Best), v.FormatAction(mill))
		}
		if !(r.Value[0] > 0.5 && r.Value[1] < 0.5) {
			t.Errorf("%s root with the utility: root values %v, want white above a draw and black below", root, r.Value[:2])
		}
		checkTree(t, s, nil)
	}
}

// The utility is for two players, in 0..1, and needs an evaluator that
// predicts the score; an unknown score leaves an evaluation as it is.
func TestScoreUtility_Refused(t *testing.T) {
	set := testSettings(10)
	for _, w := range []float64{-0.1, 1.5} {
		set.ScoreUtility = w
		if err := set.Validate(); err == nil || !strings.Contains(err.Error(), "score_utility") {
			t.Errorf("score_utility %v: %v", w, err)
		}
	}
	set.ScoreUtility = 0.2
	if _, err := NewSearch(load(t, "moulin-rouge-3"), set, 1); err == nil || !strings.Contains(err.Error(), "two players") {
		t.Errorf("three players: %v", err)
	}
	for _, e := range []Evaluator{UniformEvaluator{}, materialEvaluator{scores: false}} {
		if err := CheckEvaluator(set, e); err == nil || !strings.Contains(err.Error(), "predicts no score") {
			t.Errorf("%T: %v", e, err)
		}
	}
	if err := CheckEvaluator(set, materialEvaluator{scores: true}); err != nil {
		t.Error(err)
	}
	s := newSearch(t, load(t, "nine"), set, 1)
	value := [engine.MaxSeats]float32{0.7, 0.3}
	s.mixScore(&value, 0, float32(math.NaN()))
	if value != [engine.MaxSeats]float32{0.7, 0.3} {
		t.Errorf("an unknown score changed the evaluation to %v", value[:2])
	}
}
