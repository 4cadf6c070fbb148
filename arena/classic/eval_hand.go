package classic

import (
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// handEvaluate is the hand-written evaluation as it was first written,
// before the evaluation was made of weighted features: the hand set's
// scores, computed as fast as they were, so that the engine with the
// hand set plays as it did at the same time a move. The weighted
// features with the hand set's weights give the same scores (tested).
func (e *evaluator) handEvaluate(p *engine.Position, ply int) int32 {
	const (
		wPiece      = 100
		wPending    = 90
		wThreatNow  = 80
		wThreatsTwo = 55
		wThreatOne  = 15
		wMillPlace  = 10
		wMillMove   = 30
		wTwo        = 8
		wMobility   = 5
		wMobPlace   = 2
		wBlocked    = 10
		wOppStuck   = 150
		wFlyEndgame = 30
		grain       = 50
	)
	v := e.v
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
			if myFly {
				score += wFlyEndgame
			} else {
				score -= wFlyEndgame
			}
		}
	}
	var myThreat, opThreat uint32
	var mills, twos int32
	myCan := p.Hand[me] > 0 || v.MoveWhilePlacing
	opCan := p.Hand[op] > 0 || v.MoveWhilePlacing
	millW := int32(wMillPlace)
	if !placing {
		millW = wMillMove
	}
	for _, l := range e.lines {
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
	pos := score - material
	if pos >= 0 {
		pos = (pos + grain/2) / grain * grain
	} else {
		pos = -((-pos + grain/2) / grain * grain)
	}
	score = material + pos
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
