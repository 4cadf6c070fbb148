package mcts

import (
	"math"

	"github.com/millzero/millzero/engine"
)

// The score utility (KataGo's, Wu 2019), for two players. A network with
// a score head also says what material difference it expects at the
// game's end: d, the side to move's pieces (on the board and in hand) less
// the other's. The search's evaluation of a leaf is then
//
//	(1 - w) * outcome score + w * u(d),   u(d) = 1/2 + tanh(d / ScoreScale) / 2
//
// for the side to move, and the rest of the point for the other seat
// (w = Settings.ScoreUtility), so between lines the outcome head scores
// alike, the search prefers the one that keeps more material: the piece
// a placing move gives away a little at a time. Finished games and
// proven nodes keep their exact result: a win is worth the whole point.

// ScoreScale is the material difference, in pieces, at which the utility
// has gone tanh(1), three quarters of the way from a draw's half to a win.
const ScoreScale = 2

// mixScore mixes the score utility of d, the side's expected material
// difference, into value (each seat's score). An unknown d (NaN) leaves
// value as it is.
func (s *Search) mixScore(value *[engine.MaxSeats]float32, side int, d float32) {
	if d != d {
		return
	}
	w := float32(s.set.ScoreUtility)
	u := float32(0.5 + 0.5*math.Tanh(float64(d)/ScoreScale))
	value[side] = (1-w)*value[side] + w*u
	value[1-side] = (1-w)*value[1-side] + w*(1-u)
}
