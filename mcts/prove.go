package mcts

import "github.com/millzero/millzero/engine"

// Prover knows the exact value of some positions: an endgame table (see
// engine/tablebase, whose Set is one), or any other exact oracle. Prove
// reports p's result with perfect play from here, and its distance in
// plies (0 when unknown), or ok false when p is not one it knows. It must
// allocate nothing and may be called from the search's goroutine only.
type Prover interface {
	Prove(p *engine.Position) (r engine.Result, plies int, ok bool)
}

// SetProver makes the search treat the positions prover knows as proven
// nodes with their exact value, and turns the MCTS-solver on (nil turns
// both off, unless Settings.Solver keeps the solver on). The tree is kept:
// nodes already expanded are not proven again, new ones are.
func (s *Search) SetProver(prover Prover) {
	s.prover = prover
	s.solving = s.set.Solver || prover != nil
}

// The MCTS-solver (Winands et al. 2008), with a value per seat. A node is
// proven when its game is over (by the rules, the node's result), when
// the prover knows it, or from its children: a child proven won for the
// seat to move proves the node won for that seat; with two players, a node
// whose children are all proven has the best of their results for its
// mover (a draw if any is one, else the opponent's win). A proven node is
// not searched below: every descent that reaches it backs up its exact
// score. With three or four seats only the first rule propagates (the
// result of a node whose children all lose for its mover depends on whom
// it lets win).

// proveUp proves the nodes of the current descent's path from their
// children, from the parent of the proven leaf towards the root, stopping
// at the first it cannot prove.
func (s *Search) proveUp() {
	for k := len(s.path) - 2; k >= 0; k-- {
		n := &s.nodes[s.path[k]]
		if n.result != engine.Ongoing || s.nodes[s.path[k+1]].result == engine.Ongoing {
			return
		}
		if !s.proveFromChildren(n, int(s.seats[k])) {
			return
		}
	}
}

// proveFromChildren proves the expanded node n, whose seat to move is
// seat, if its children prove it, and reports whether it did.
func (s *Search) proveFromChildren(n *node, seat int) bool {
	kids := s.nodes[n.first : n.first+int32(n.children)]
	best := engine.Ongoing
	all := true
	for i := range kids {
		switch r := kids[i].result; {
		case r == engine.Ongoing:
			all = false
		case wonFor(&kids[i], seat):
			n.result = r
			return true
		case r == engine.Draw:
			best = engine.Draw
		case best == engine.Ongoing:
			best = r
		}
	}
	if !all || s.v.Players != 2 {
		return false
	}
	n.result = best
	return true
}

// proveRootChildren classifies every child of the freshly expanded root
// (game over, or known to the prover) and proves the root from them, so
// that the move chosen at a table position is the table's however few
// simulations reach each child.
func (s *Search) proveRootChildren() {
	root := &s.nodes[0]
	s.hist = append(append(s.hist[:0], s.history...), s.rootPos.Hash)
	for i := root.first; i < root.first+int32(root.children); i++ {
		c := &s.nodes[i]
		if c.state != fresh {
			continue
		}
		s.probePos = s.v.Apply(&s.rootPos, c.action)
		if r, ok := s.classify(&s.probePos, s.v.Repetitions(&s.probePos, s.hist)); ok {
			c.state, c.result = terminal, r
		} else if r, _, ok := s.prover.Prove(&s.probePos); ok && r != engine.Ongoing {
			c.state, c.result = terminal, r
		}
	}
	s.proveFromChildren(root, int(s.rootPos.Side))
}

// lostFor reports whether node n is proven lost for seat: a win for
// another seat.
func lostFor(n *node, seat int) bool {
	w, ok := n.result.Winner()
	return ok && w != seat
}

// wonFor reports whether node n is proven won for seat.
func wonFor(n *node, seat int) bool {
	w, ok := n.result.Winner()
	return ok && w == seat
}

// provenPlies is how far the proven result of root child i is, for
// choosing the fastest win: 0 for a game over, the prover's distance plus
// one for a position it knows, and a large number when unknown (a proof
// from the tree).
func (s *Search) provenPlies(i int32) int {
	c := &s.nodes[i]
	if c.state == terminal {
		s.probePos = s.v.Apply(&s.rootPos, c.action)
		if s.probePos.Result != engine.Ongoing {
			return 0
		}
		if s.prover != nil {
			if _, plies, ok := s.prover.Prove(&s.probePos); ok {
				return plies + 1
			}
		}
		return 1
	}
	return 1 << 20
}
