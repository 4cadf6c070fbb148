package mcts

import (
	"math"

	"github.com/millzero/millzero/engine"
)

// gather descends from the root up to BatchSize times (fewer when the
// search has nearly all its visits). A descent that ends at a terminal node
// is backed up at once; one that ends at a new node adds the node to b for
// evaluation and leaves a virtual loss on its path, so the next descent
// looks elsewhere; one that ends at a node already waiting in the batch (a
// collision) is dropped and ends the round for this search.
func (s *Search) gather(b *Batch) {
	s.leaves = s.leaves[:0]
	s.paths = s.paths[:0]
	s.movers = s.movers[:0]
	s.pathOff = append(s.pathOff[:0], 0)
	s.repKids = s.repKids[:0]
	s.repOff = append(s.repOff[:0], 0)
	target := s.visits(s.set.Simulations)
	for attempt := 0; attempt < 2*s.set.BatchSize; attempt++ {
		root := &s.nodes[0]
		left := target - int(root.visits) - int(root.inflight)
		if left <= 0 || len(s.leaves) >= s.set.BatchSize {
			return
		}
		if !s.descend(b) {
			return
		}
	}
}

// descend makes one descent. It reports false on a collision.
func (s *Search) descend(b *Batch) bool {
	pos := s.rootPos
	s.hist = append(s.hist[:0], s.history...)
	s.path = append(s.path[:0], 0)
	s.seats = s.seats[:0]
	idx := int32(0)
	for {
		n := &s.nodes[idx]
		if n.result != engine.Ongoing && n.state != pending {
			// Terminal, or proven: its exact score, and perhaps a proof
			// of its parents.
			var value [engine.MaxSeats]float32
			s.scoreResult(n.result, &value)
			s.backup(s.path, &value, false)
			if s.solving {
				s.proveUp()
			}
			if s.set.MinimaxWeight > 0 {
				s.minimaxUp(s.path, s.seats, &value)
			}
			return true
		}
		switch n.state {
		case pending:
			return false
		case fresh:
			reps := s.v.Repetitions(&pos, s.hist)
			if r, ok := s.classify(&pos, reps); ok {
				n.state, n.result = terminal, r
				continue
			}
			if s.prover != nil && idx != 0 {
				s.probePos = pos
				if r, _, ok := s.prover.Prove(&s.probePos); ok && r != engine.Ongoing {
					n.state, n.result = terminal, r
					continue
				}
			}
			legal := s.v.Legal(&pos, s.legal[:0])
			if idx == 0 && len(s.rootOnly) > 0 {
				legal = s.restrictRoot(legal)
			}
			if len(legal) == 0 {
				// Only the 2-player rules leave a seat with nothing to
				// do (classify scores that); with 3-4 players Apply
				// eliminates stuck seats. A hand-made position may
				// still get here: nothing can happen, call it a draw.
				n.state, n.result = terminal, engine.Draw
				continue
			}
			n.state = pending
			bi := b.Add(&pos, legal)
			b.SetRepetitions(bi, reps)
			s.leaves = append(s.leaves, int32(bi))
			s.paths = append(s.paths, s.path...)
			s.pathOff = append(s.pathOff, int32(len(s.paths)))
			if s.set.MinimaxWeight > 0 {
				s.movers = append(append(s.movers, s.seats...), pos.Side) // the leaf's own mover is not used
			}
			s.markRepetitions(&pos, legal)
			for _, i := range s.path {
				s.nodes[i].inflight++
			}
			return true
		case expanded:
			var c int32
			switch {
			case s.set.Root != RootGumbel || (idx != 0 && s.set.GumbelInterior == InteriorPUCT):
				c = s.selectChild(n, int(pos.Side), idx == 0)
			case idx == 0:
				c = s.selectGumbelRoot()
			default:
				c = s.selectImproved(n, int(pos.Side))
			}
			s.seats = append(s.seats, pos.Side)
			s.hist = append(s.hist, pos.Hash)
			pos = s.v.Apply(&pos, s.nodes[c].action)
			s.path = append(s.path, c)
			idx = c
		}
	}
}

// markRepetitions notes, for the leaf at p that a descent just added
// (s.hist holding the positions before p), which of its legal actions lead
// to a position drawn by repetition. Expansion makes those children
// terminal at once, so selection knows their exact score before visiting
// them: a network's prior can rule out a move that repeats (3.9e-8 on the
// one defence of a side three pieces down, in a game the benchmark drew),
// and a child whose prior is that small is never visited, so the search
// never saw the draw that ended the game. A repetition needs a position
// RepetitionDraw-1 times before, each at least two plies back within the
// run of reversible actions, so a leaf with fewer quiet plies needs no look.
func (s *Search) markRepetitions(p *engine.Position, legal []engine.Action) {
	if r := s.v.RepetitionDraw; r > 0 && int(p.Quiet)+1 >= 2*(r-1) {
		s.hist = append(s.hist, p.Hash)
		for k, a := range legal {
			q := s.v.Apply(p, a)
			if q.Result == engine.Ongoing && s.repeated(&q, s.hist) {
				s.repKids = append(s.repKids, int32(k))
			}
		}
		s.hist = s.hist[:len(s.hist)-1]
	}
	s.repOff = append(s.repOff, int32(len(s.repKids)))
}

// classify reports the result of a position reached for the first time if
// the game is over there: by Apply's rules, no legal action, or repetition
// (reps earlier occurrences over the game's history and the path).
func (s *Search) classify(p *engine.Position, reps int) (engine.Result, bool) {
	if r, _ := s.v.Outcome(p); r != engine.Ongoing {
		return r, true
	}
	if s.v.RepetitionDraw > 0 && reps+1 >= s.v.RepetitionDraw {
		return engine.Draw, true
	}
	return engine.Ongoing, false
}

// selectChild picks the child of n maximising the PUCT score for seat, the
// seat to move at n:
//
//	Q + c_puct * P * sqrt(N_parent) / (1 + N_child)
//
// Q is the child's mean score for seat, with each in-flight playout counted
// as VirtualLoss lost playouts (score 0); a child with neither takes the first-play
// urgency: the parent's mean score for seat, less FPUReduction (FPURoot at
// the root) times the square root of the prior mass already visited. A
// proven child's Q is its exact score; with two players a child proven lost
// for seat is never chosen (n is not proven, so some child is not). A
// terminal child's Q is its exact score too, visited or not (a repetition
// is known at expansion: markRepetitions). At the root, forced playouts
// come first (ForcedPlayoutsK, see forced.go).
func (s *Search) selectChild(n *node, seat int, atRoot bool) int32 {
	kids := s.nodes[n.first : n.first+int32(n.children)]
	if atRoot && s.set.ForcedPlayoutsK > 0 {
		if i := s.forcedChild(kids, seat); i >= 0 {
			return n.first + int32(i)
		}
	}
	visitedMass := float32(0)
	for i := range kids {
		if kids[i].visits+int32(kids[i].inflight) > 0 {
			visitedMass += kids[i].prior
		}
	}
	reduction := s.set.FPUReduction
	if atRoot {
		reduction = s.set.FPURoot
	}
	parentQ := float64(0)
	if n.visits > 0 {
		parentQ = float64(n.valueSum[seat]) / float64(n.visits)
	}
	fpu := parentQ - reduction*math.Sqrt(float64(visitedMass))
	sqrtN := math.Sqrt(float64(max(1, n.visits+int32(n.inflight))))
	vl := s.set.VirtualLoss
	two := s.v.Players == 2
	best, bestScore := 0, math.Inf(-1)
	for i := range kids {
		k := &kids[i]
		q := fpu
		if k.result != engine.Ongoing && (s.solving || k.state == terminal) {
			if s.solving && two && lostFor(k, seat) {
				continue
			}
			q = s.score(k.result, seat)
		} else if denom := float64(k.visits) + vl*float64(k.inflight); denom > 0 {
			q = float64(k.valueSum[seat]) / denom
			if s.set.MinimaxWeight > 0 && k.visits > 0 {
				q = s.mixMinimax(q, k, seat)
			}
		}
		u := s.set.CPuct * float64(k.prior) * sqrtN / float64(1+k.visits+int32(k.inflight))
		if score := q + u; score > bestScore {
			best, bestScore = i, score
		}
	}
	return n.first + int32(best)
}
