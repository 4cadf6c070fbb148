package mcts

import (
	"math"

	"github.com/millzero/millzero/engine"
)

// backup adds one playout of value (each seat's score) to every node of
// path. Each node keeps a sum per seat, and selection reads the sum of the
// seat to move there, so the backup needs no sign flips: it is right when
// one seat acts twice in a row (a mill, then its removal) and with three or
// four seats. inflight says the playout left a virtual loss to take back.
func (s *Search) backup(path []int32, value *[engine.MaxSeats]float32, inflight bool) {
	for _, i := range path {
		n := &s.nodes[i]
		n.visits++
		for k := range n.valueSum {
			n.valueSum[k] += value[k]
		}
		if inflight {
			n.inflight--
		}
	}
}

// scoreResult is each seat's score under a finished game's result.
func (s *Search) scoreResult(r engine.Result, value *[engine.MaxSeats]float32) {
	*value = [engine.MaxSeats]float32{}
	for k := 0; k < s.v.Players; k++ {
		value[k] = float32(r.Score(k, s.v.Players))
	}
}

// scoreOutcome turns the evaluator's outcome weights (each seat wins, then
// draw) into each seat's expected score: P(win) + P(draw)/players. The
// weights are renormalised; a zero or non-finite sum counts as a draw.
func (s *Search) scoreOutcome(outcome []float32, value *[engine.MaxSeats]float32) {
	players := s.v.Players
	sum := float32(0)
	ok := true
	for _, w := range outcome {
		if !(w >= 0) || math.IsInf(float64(w), 0) {
			ok = false
		}
		sum += w
	}
	*value = [engine.MaxSeats]float32{}
	if !ok || !(sum > 0) || math.IsInf(float64(sum), 0) {
		for k := 0; k < players; k++ {
			value[k] = 1 / float32(players)
		}
		return
	}
	draw := outcome[players] / sum / float32(players)
	for k := 0; k < players; k++ {
		value[k] = outcome[k]/sum + draw
	}
}
