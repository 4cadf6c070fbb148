package arena

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// MaxAlphaBetaDepth is the deepest AlphaBeta search allowed, in plies.
const MaxAlphaBetaDepth = 16

// AlphaBeta is the classical yardstick: a fixed-depth negamax search with
// alpha-beta pruning over the engine's actions and a hand-written
// evaluation (material with the hand, closed and half-built mills,
// mobility, blocked pieces). It never changes between runs and is
// deterministic given the position: ties go to the first action in its
// move ordering, which is stable over the engine's order. With 3-4 players
// it searches by max-n instead (actMaxN), with the same evaluation per seat.
type AlphaBeta struct {
	Depth int // plies searched from the root (every action counts, removals included), 1..MaxAlphaBetaDepth
}

// Name is "alphabeta:DEPTH".
func (a AlphaBeta) Name() string { return fmt.Sprintf("alphabeta:%d", a.Depth) }

// NewGame makes a searcher for one game of v; seed is unused (the player is
// deterministic).
func (a AlphaBeta) NewGame(v *engine.Variant, _ uint64) (GamePlayer, error) {
	return newAlphaBetaSearch(v, a.Depth)
}

// The evaluation's weights, in hundredths of a piece. They are part of the
// yardstick's definition: changing one changes every rating measured
// against it.
const (
	evalPiece   = 100 // a piece on the board or in hand
	evalPending = 100 // a removal the side to move owes (a piece about to go)
	evalMill    = 30  // a line of three own pieces
	evalTwo     = 15  // a line of two own pieces whose third point is empty
	evalMove    = 4   // one sliding move (not while placing or flying)
	evalBlocked = 12  // a piece with no empty neighbour (not while flying), subtracted
	evalWin     = 1_000_000
	evalInf     = evalWin + 1
)

// Move-ordering keys: tried in decreasing key order, ties in engine order.
const (
	orderMill  = 1000 // the action forms a mill
	orderBlock = 500  // the action fills the empty point of an opponent's two
	orderBreak = 400  // the removal takes a piece of an opponent's two
)

// alphaBetaSearch is the search of one game: buffers for every ply, so no
// node allocates.
type alphaBetaSearch struct {
	v       *engine.Variant
	depth   int
	moves   [][]engine.Action // legal actions of the node at each ply, ordered
	keys    [][]int32         // their ordering keys
	pos     []engine.Position // the position at each ply of the current line (a Position on the stack of a recursive call would escape to the heap)
	linesAt [engine.MaxPoints][]uint32
	nodes   int64 // nodes visited by the last Act
}

func newAlphaBetaSearch(v *engine.Variant, depth int) (*alphaBetaSearch, error) {
	switch {
	case depth < 1 || depth > MaxAlphaBetaDepth:
		return nil, fmt.Errorf("alphabeta: depth %d: want 1..%d", depth, MaxAlphaBetaDepth)
	}
	s := &alphaBetaSearch{v: v, depth: depth}
	s.moves = make([][]engine.Action, depth+1)
	s.keys = make([][]int32, depth+1)
	s.pos = make([]engine.Position, depth+1)
	for i := range s.moves {
		s.moves[i] = make([]engine.Action, 0, engine.MaxActions)
		s.keys[i] = make([]int32, 0, engine.MaxActions)
	}
	for _, l := range v.Board.Lines {
		for m := l; m != 0; m &= m - 1 {
			pt := bits.TrailingZeros32(m)
			s.linesAt[pt] = append(s.linesAt[pt], l)
		}
	}
	return s, nil
}

func (s *alphaBetaSearch) Close() error { return nil }

// Act searches g's position to the player's depth and returns the best
// action.
func (s *alphaBetaSearch) Act(ctx context.Context, g *engine.Game) (engine.Action, error) {
	if s.v.Players > 2 {
		return s.actMaxN(ctx, g)
	}
	s.nodes = 0
	p := &g.Pos
	moves := s.ordered(p, 0)
	if len(moves) == 0 {
		return 0, fmt.Errorf("alphabeta: no legal action")
	}
	best, alpha := moves[0], int32(-evalInf)
	for _, a := range moves {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		q := &s.pos[1]
		*q = s.v.Apply(p, a)
		if val := s.child(p, q, 1, alpha, evalInf); val > alpha {
			best, alpha = a, val
		}
	}
	return best, nil
}

// child is the value of q, reached from p by one action, for p's side to
// move. A removal leaves the same seat to move, so the value is negated
// only when the side changes.
func (s *alphaBetaSearch) child(p, q *engine.Position, ply int, alpha, beta int32) int32 {
	if q.Side == p.Side {
		return s.negamax(q, ply, alpha, beta)
	}
	return -s.negamax(q, ply, -beta, -alpha)
}

// negamax is the value of p for its side to move, searched to the
// player's depth; ply is p's distance from the root.
func (s *alphaBetaSearch) negamax(p *engine.Position, ply int, alpha, beta int32) int32 {
	s.nodes++
	if p.Result != engine.Ongoing {
		return s.terminal(p, ply)
	}
	if ply >= s.depth {
		if !s.v.HasLegal(p) {
			return -(evalWin - int32(ply)) // the side to move is stuck and loses
		}
		return s.evaluate(p)
	}
	moves := s.ordered(p, ply)
	if len(moves) == 0 {
		return -(evalWin - int32(ply))
	}
	best := int32(-evalInf)
	for _, a := range moves {
		q := &s.pos[ply+1]
		*q = s.v.Apply(p, a)
		val := s.child(p, q, ply+1, alpha, beta)
		if val > best {
			best = val
			if val > alpha {
				alpha = val
				if alpha >= beta {
					break
				}
			}
		}
	}
	return best
}

// terminal scores a finished game for its side to move: sooner wins and
// later losses are better.
func (s *alphaBetaSearch) terminal(p *engine.Position, ply int) int32 {
	seat, ok := p.Result.Winner()
	switch {
	case !ok:
		return 0
	case seat == int(p.Side):
		return evalWin - int32(ply)
	}
	return -(evalWin - int32(ply))
}

// evaluate is the hand-written evaluation of p for its side to move.
func (s *alphaBetaSearch) evaluate(p *engine.Position) int32 {
	me, op := int(p.Side), 1-int(p.Side)
	e := s.seatScore(p, me) - s.seatScore(p, op)
	return e + evalPending*int32(p.Pending[op]) - evalPending*int32(p.Pending[me])
}

// seatScore is seat's half of the evaluation.
func (s *alphaBetaSearch) seatScore(p *engine.Position, seat int) int32 {
	b := s.v.Board
	own := p.Pieces[seat]
	empty := b.All &^ p.Occupied()
	score := int32(evalPiece * p.PiecesLeft(seat))
	for _, l := range b.Lines {
		switch c := own & l; {
		case c == l:
			score += evalMill
		case bits.OnesCount32(c) == 2 && l&^own&empty != 0:
			score += evalTwo
		}
	}
	if p.Hand[seat] == 0 && !s.v.CanFly(p, seat) {
		for m := own; m != 0; m &= m - 1 {
			n := int32(bits.OnesCount32(b.Adjacent[bits.TrailingZeros32(m)] & empty))
			score += evalMove * n
			if n == 0 {
				score -= evalBlocked
			}
		}
	}
	return score
}

// ordered fills the ply's buffer with p's legal actions, most promising
// first (a stable insertion sort on the keys, so ties keep engine order).
func (s *alphaBetaSearch) ordered(p *engine.Position, ply int) []engine.Action {
	moves := s.v.Legal(p, s.moves[ply][:0])
	keys := s.keys[ply][:0]
	for _, a := range moves {
		keys = append(keys, s.orderKey(p, a))
	}
	for i := 1; i < len(moves); i++ {
		a, k := moves[i], keys[i]
		j := i
		for ; j > 0 && keys[j-1] < k; j-- {
			moves[j], keys[j] = moves[j-1], keys[j-1]
		}
		moves[j], keys[j] = a, k
	}
	s.moves[ply], s.keys[ply] = moves, keys
	return moves
}

// orderKey guesses how good action a is in p, cheaply.
func (s *alphaBetaSearch) orderKey(p *engine.Position, a engine.Action) int32 {
	own, opp := p.Pieces[p.Side], p.Pieces[1-p.Side&1]
	if s.v.Players > 2 {
		opp = p.Occupied() &^ own // every other seat's pieces
	}
	t := a.To()
	var key int32
	switch a.Kind() {
	case engine.Place, engine.Move:
		after := own | 1<<t
		if a.Kind() == engine.Move {
			after &^= 1 << a.From()
		}
		for _, l := range s.linesAt[t] {
			if after&l == l {
				key += orderMill
			}
			if bits.OnesCount32(opp&l) == 2 {
				key += orderBlock
			}
		}
		key += int32(bits.OnesCount32(s.v.Board.Adjacent[t]))
	case engine.Remove:
		empty := s.v.Board.All &^ p.Occupied()
		for _, l := range s.linesAt[t] {
			if bits.OnesCount32(opp&l) == 2 && l&empty != 0 {
				key += orderBreak
			}
		}
		key += int32(bits.OnesCount32(s.v.Board.Adjacent[t] & empty))
	}
	return key
}
