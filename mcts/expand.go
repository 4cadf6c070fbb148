package mcts

import (
	"math"

	"github.com/millzero/millzero/engine"
)

// absorb takes the evaluations of this search's leaves from b: each leaf
// gets its children, with the priors renormalised over its legal actions,
// and its value is backed up along its path, taking back the virtual loss.
func (s *Search) absorb(b *Batch) {
	for li, bi := range s.leaves {
		path := s.paths[s.pathOff[li]:s.pathOff[li+1]]
		leaf := path[len(path)-1]
		s.expand(leaf, b.Legal(int(bi)), b.Priors(int(bi)))
		first := s.nodes[leaf].first
		for _, k := range s.repKids[s.repOff[li]:s.repOff[li+1]] {
			kid := &s.nodes[first+k]
			kid.state, kid.result = terminal, engine.Draw
		}
		if leaf == 0 && s.prover != nil {
			s.proveRootChildren()
		}
		var value [engine.MaxSeats]float32
		s.scoreOutcome(b.Outcome(int(bi)), &value)
		if s.set.ScoreUtility > 0 {
			s.mixScore(&value, int(b.Position(int(bi)).Side), b.Score(int(bi)))
		}
		s.backup(path, &value, true)
		if s.set.MinimaxWeight > 0 {
			s.minimaxUp(path, s.movers[s.pathOff[li]:s.pathOff[li+1]], &value)
		}
	}
	s.leaves = s.leaves[:0]
	if !s.noised && s.nodes[0].state == expanded {
		s.prepareRoot()
	}
}

// abandon takes back the virtual losses of this search's pending leaves,
// which will not be evaluated (the evaluator failed): they become fresh.
func (s *Search) abandon() {
	for li := range s.leaves {
		path := s.paths[s.pathOff[li]:s.pathOff[li+1]]
		for _, i := range path {
			s.nodes[i].inflight--
		}
		s.nodes[path[len(path)-1]].state = fresh
	}
	s.leaves = s.leaves[:0]
}

// expand gives node i one child per legal action, with the evaluator's
// priors renormalised to sum to 1 (uniform when they cannot be).
func (s *Search) expand(i int32, legal []engine.Action, priors []float32) {
	first := s.growNodes(len(legal))
	n := &s.nodes[i]
	n.first, n.children, n.state = first, uint16(len(legal)), expanded
	sum := float32(0)
	ok := true
	for _, p := range priors {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			ok = false
		}
		sum += p
	}
	ok = ok && sum > 0 && !math.IsInf(float64(sum), 0)
	kids := s.nodes[first : first+int32(len(legal))]
	for k, a := range legal {
		kids[k].action = a
		if ok {
			kids[k].prior = priors[k] / sum
		} else {
			kids[k].prior = 1 / float32(len(legal))
		}
	}
}
