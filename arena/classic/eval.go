package classic

import (
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// The evaluation's weights, in hundredths of a piece.
const (
	wPiece      = 100 // a piece on the board or in hand
	wPending    = 90  // a removal owed (the quiet search plays them out; this is its fallback)
	wThreatNow  = 80  // the side to move can close a mill at once
	wThreatsTwo = 55  // the other side has two mills to close and one move to stop them
	wThreatOne  = 15  // the other side has one mill to close: the mover must answer it
	wMillPlace  = 10  // a closed mill while placing
	wMillMove   = 30  // a closed mill in the moving phase whose pieces can step out and back
	wTwo        = 8   // a line of two with the third point empty, not closable now
	wMobility   = 5   // a sliding move in the moving phase
	wMobPlace   = 2   // an empty neighbour of a piece while placing
	wBlocked    = 10  // a piece with no empty neighbour in the moving phase
	wOppStuck   = 150 // the other side cannot move at all: one more block and it loses
	wFlyEndgame = 30  // flying against a side that still slides: each extra piece of the slider counts less

	// grain is the step of the positional part of the evaluation: a
	// coarse evaluation ties often, and ties cut a null-window search
	// short, which buys depth (material and the tactics it searches
	// weigh more than the fine positional terms it rounds away).
	grain = 50
)

// evaluate is the hand-written evaluation of p (not owing a removal, game
// ongoing) for its side to move; a side to move with no legal action
// loses, scored as a loss at ply.
func (s *Searcher) evaluate(p *engine.Position, ply int) int32 {
	v := s.v
	b := v.Board
	me := int(p.Side) & 1
	op := me ^ 1
	own, opp := p.Pieces[me], p.Pieces[op]
	empty := b.All &^ (own | opp)
	placing := p.Hand[0]|p.Hand[1] != 0
	myFly, opFly := v.CanFly(p, me), v.CanFly(p, op)

	score := int32(wPiece * (p.PiecesLeft(me) - p.PiecesLeft(op)))
	score += wPending * (int32(p.Pending[op]) - int32(p.Pending[me]))
	material := score

	// Mobility and blocked pieces: a little while placing (the room the
	// pieces will have), in full once every piece is placed.
	myMob, myBlocked := mobility(b, own, empty)
	opMob, opBlocked := mobility(b, opp, empty)
	if placing {
		score += wMobPlace * int32(myMob-opMob)
	} else {
		if !myFly {
			if myMob == 0 && !v.HasLegal(p) {
				return -(scoreWin - int32(ply))
			}
			score += wMobility*int32(myMob) - wBlocked*int32(myBlocked)
		}
		if !opFly {
			score -= wMobility*int32(opMob) - wBlocked*int32(opBlocked)
			if opMob == 0 && !b.Rotating {
				score += wOppStuck
			}
		}
		if myFly != opFly {
			// A flying side is worth more than its count says.
			if myFly {
				score += wFlyEndgame
			} else {
				score -= wFlyEndgame
			}
		}
	}

	// Lines: mills, twos, and the mills each side can close at once.
	var myThreat, opThreat uint32
	var mills, twos int32
	myCan := p.Hand[me] > 0 || v.MoveWhilePlacing
	opCan := p.Hand[op] > 0 || v.MoveWhilePlacing
	millW := int32(wMillPlace)
	if !placing {
		millW = wMillMove
	}
	for _, l := range s.lines {
		o, t := own&l, opp&l
		switch {
		case t == 0 && o == l:
			if placing || stepsOut(b, l, empty) {
				mills += millW
			}
		case t == 0 && o != 0 && o&(o-1) != 0:
			e := l &^ o
			if myCan || myFly && own&^l != 0 || b.Adjacent[bits.TrailingZeros32(e)]&own&^l != 0 {
				myThreat |= e
			} else {
				twos++
			}
		case o == 0 && t == l:
			if placing || stepsOut(b, l, empty) {
				mills -= millW
			}
		case o == 0 && t != 0 && t&(t-1) != 0:
			e := l &^ t
			if opCan || opFly && opp&^l != 0 || b.Adjacent[bits.TrailingZeros32(e)]&opp&^l != 0 {
				opThreat |= e
			} else {
				twos--
			}
		}
	}
	score += mills + wTwo*twos
	if myThreat != 0 {
		score += wThreatNow
	}
	switch n := bits.OnesCount32(opThreat); {
	case n >= 2:
		score -= wThreatsTwo
	case n == 1:
		score -= wThreatOne
	}
	{
		pos := score - material
		if pos >= 0 {
			pos = (pos + grain/2) / grain * grain
		} else {
			pos = -((-pos + grain/2) / grain * grain)
		}
		score = material + pos
	}
	if score >= scoreDecisive {
		score = scoreDecisive - 1
	} else if score <= -scoreDecisive {
		score = -scoreDecisive + 1
	}
	return score
}

// mobility counts the sliding moves of pieces m and the pieces with none.
func mobility(b *engine.Board, m, empty uint32) (moves, blocked int) {
	for ; m != 0; m &= m - 1 {
		n := bits.OnesCount32(b.Adjacent[bits.TrailingZeros32(m)] & empty)
		moves += n
		if n == 0 {
			blocked++
		}
	}
	return moves, blocked
}

// stepsOut reports whether a piece of the closed line l can step to an
// empty neighbour off the line (and so open the mill to close it again).
func stepsOut(b *engine.Board, l, empty uint32) bool {
	for m := l; m != 0; m &= m - 1 {
		if b.Adjacent[bits.TrailingZeros32(m)]&empty&^l != 0 {
			return true
		}
	}
	return false
}
