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

// setDraw sets what a draw is worth to each seat: an even share of the
// point less the settings' contempt.
func (s *Search) setDraw() {
	s.draw = float32(1/float64(s.v.Players) - s.set.Contempt)
}

// score is seat's score under a finished game's result as the search
// counts it: a draw is worth s.draw.
func (s *Search) score(r engine.Result, seat int) float64 {
	if r == engine.Draw {
		return float64(s.draw)
	}
	return r.Score(seat, s.v.Players)
}

// scoreResult is each seat's score under a finished game's result.
func (s *Search) scoreResult(r engine.Result, value *[engine.MaxSeats]float32) {
	*value = [engine.MaxSeats]float32{}
	for k := 0; k < s.v.Players; k++ {
		value[k] = float32(s.score(r, k))
	}
}

// scoreOutcome turns the evaluator's outcome weights (each seat wins, then
// draw) into each seat's expected score: P(win) + P(draw) times a draw's
// worth (1/players less the contempt). The weights are renormalised; a
// zero or non-finite sum counts as a draw.
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
			value[k] = s.draw
		}
		return
	}
	draw := outcome[players] / sum * s.draw
	for k := 0; k < players; k++ {
		value[k] = outcome[k]/sum + draw
	}
}
