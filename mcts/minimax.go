package mcts

import "github.com/millzero/millzero/engine"

// Implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant,
// "Monte Carlo Tree Search with Heuristic Evaluations using Implicit
// Minimax Backups", 2014), for two players. Besides the mean of its
// playouts, every node keeps the minimax of the evaluations below it: a
// leaf's is its evaluation; an expanded node's is that of the child best
// for the seat to move there, over the children visited or known exactly
// (a terminal or proven child scores its result). Selection then reads a
// visited child's value as
//
//	(1 - w) * mean + w * minimax        (w = Settings.MinimaxWeight)
//
// so a refutation found deep in a line counts at once, where the mean
// would take many playouts to move: the tactics of a mill or a blockade
// that a few visits find and the average hides. Both values are each
// seat's score, so a mill's second action (the same seat twice) needs no
// sign flip, as in backup.

// minimaxUp sets the minimax of the last node of path to value (the
// evaluation of a leaf, or a terminal node's exact score) and recomputes
// it for every node above it, movers[k] the seat to move at path[k].
func (s *Search) minimaxUp(path []int32, movers []uint8, value *[engine.MaxSeats]float32) {
	s.nodes[path[len(path)-1]].minimax = [2]uint16{toScore16(value[0]), toScore16(value[1])}
	for k := len(path) - 2; k >= 0; k-- {
		s.minimaxOf(&s.nodes[path[k]], int(movers[k]))
	}
}

// minimaxOf sets n's minimax from its children, seat to move at n. A node
// none of whose children is visited or known keeps what it has (its own
// evaluation).
func (s *Search) minimaxOf(n *node, seat int) {
	kids := s.nodes[n.first : n.first+int32(n.children)]
	best, found := [2]uint16{}, false
	for i := range kids {
		k := &kids[i]
		var v [2]uint16
		switch {
		case k.result != engine.Ongoing && (s.solving || k.state == terminal):
			v = s.score16(k.result)
		case k.visits > 0:
			v = k.minimax
		default:
			continue
		}
		if !found || v[seat] > best[seat] {
			best, found = v, true
		}
	}
	if found {
		n.minimax = best
	}
}

// mixMinimax is q, a visited child k's mean score for seat, with the
// minimax of the evaluations below k mixed in by MinimaxWeight.
func (s *Search) mixMinimax(q float64, k *node, seat int) float64 {
	w := s.set.MinimaxWeight
	return (1-w)*q + w*float64(k.minimax[seat])/score16One
}

// score16One is a score of 1 in a node's minimax.
const score16One = 65535

// toScore16 is the score x (0..1) in 65535ths, rounded: a resolution of
// 1.5e-5, far below what the evaluations tell apart.
func toScore16(x float32) uint16 {
	return uint16(min(max(x, 0), 1)*score16One + 0.5)
}

// score16 is each seat's score under a finished game's result, in 65535ths.
func (s *Search) score16(r engine.Result) [2]uint16 {
	return [2]uint16{toScore16(float32(s.score(r, 0))), toScore16(float32(s.score(r, 1)))}
}
