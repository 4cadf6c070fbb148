package arena

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/engine"
)

// values is a max-n value: one number per seat, each seat's own view of
// the position in hundredths of a piece (see evaluateN).
type values [engine.MaxSeats]int32

// actMaxN is Act for 3-4 seats: a fixed-depth max-n search (Luckhardt and
// Irani), in which the seat to move at each node picks the child best for
// itself by its own component of the children's value vectors. Alpha-beta
// pruning does not carry over to more than two players (only a shallow
// pruning does, and it rarely applies with unbounded evaluations), so the
// whole tree to the depth is searched; a removal is the same seat's next
// action, as in the two-player search. Ties go to the first action in the
// move ordering, so the player is deterministic. With no pruning the cost
// grows as the branching factor to the depth: early in Moulin Rouge for
// three, about 22 actions a node, depth 3 visits 10,690 nodes a move
// (BenchmarkAlphaBeta_MaxNDepth3, about 1-2 ms) and depth 4 220,255
// (about 16 ms); each further ply multiplies that by about 20.
func (s *alphaBetaSearch) actMaxN(ctx context.Context, g *engine.Game) (engine.Action, error) {
	s.nodes = 0
	p := &g.Pos
	moves := s.ordered(p, 0)
	if len(moves) == 0 {
		return 0, fmt.Errorf("alphabeta: no legal action")
	}
	me := int(p.Side)
	best, bestVal := moves[0], int32(-evalInf)
	for _, a := range moves {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		q := &s.pos[1]
		*q = s.v.Apply(p, a)
		if val := s.maxN(q, 1); val[me] > bestVal {
			best, bestVal = a, val[me]
		}
	}
	return best, nil
}

// maxN is the value vector of p, searched to the player's depth; ply is
// p's distance from the root.
func (s *alphaBetaSearch) maxN(p *engine.Position, ply int) values {
	s.nodes++
	if p.Result != engine.Ongoing {
		return s.terminalN(p, ply)
	}
	if ply >= s.depth {
		return s.evaluateN(p)
	}
	moves := s.ordered(p, ply)
	if len(moves) == 0 {
		// The engine eliminates a stuck seat before it is to move; a
		// position with no action is the end of the line.
		return s.evaluateN(p)
	}
	me := int(p.Side)
	var best values
	best[me] = -evalInf
	for _, a := range moves {
		q := &s.pos[ply+1]
		*q = s.v.Apply(p, a)
		if val := s.maxN(q, ply+1); val[me] > best[me] {
			best = val
		}
	}
	return best
}

// terminalN scores a finished game for every seat: the winner gains what
// the others lose, sooner being better for it; a draw is 0 for all.
func (s *alphaBetaSearch) terminalN(p *engine.Position, ply int) values {
	var val values
	w, ok := p.Result.Winner()
	if !ok {
		return val
	}
	for seat := 0; seat < s.v.Players; seat++ {
		val[seat] = -(evalWin - int32(ply))
	}
	val[w] = evalWin - int32(ply)
	return val
}

// evaluateN is the hand-written evaluation for every seat: a seat's half
// of the two-player evaluation (seatScore) less the mean of the other
// seats still in, scaled by the number of seats still in so that it stays
// an integer. A removal owed by the seat to move is a piece lost by its
// victim. A seat that is out has lost.
func (s *alphaBetaSearch) evaluateN(p *engine.Position) values {
	var own values
	var total int32
	in := int32(0)
	for seat := 0; seat < s.v.Players; seat++ {
		if p.Out>>seat&1 != 0 {
			continue
		}
		own[seat] = s.seatScore(p, seat) - evalPending*int32(p.Pending[seat])
		total += own[seat]
		in++
	}
	var val values
	for seat := 0; seat < s.v.Players; seat++ {
		if p.Out>>seat&1 != 0 {
			val[seat] = -evalWin
			continue
		}
		val[seat] = in*own[seat] - total
	}
	return val
}
