package classic

import (
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// search is the principal-variation search of the position at ply with
// depth plies left: its value for the side to move, between alpha and
// beta (fail-soft). A removal leaves the same side to move, so a child's
// value is negated only when the side changes (child).
func (s *Searcher) search(ply, depth int, alpha, beta int32) int32 {
	f := &s.stack[ply]
	p := &f.pos
	s.pvLen[ply] = ply
	s.nodes++
	if s.nodes&checkEveryNode == 0 && s.timeUp() {
		s.stopped = true
	}
	if s.stopped {
		return 0
	}
	if p.Result != engine.Ongoing {
		return s.terminal(p, ply)
	}
	if ply > 0 && s.repeated(p, ply) {
		return s.draw(p)
	}
	if ply > 0 && s.tables != nil && p.Hand[0]|p.Hand[1] == 0 {
		if val, err := s.tables.Probe(p); err == nil {
			if val.Outcome == tablebase.Draw {
				return s.draw(p)
			}
			return tableScore(val, ply)
		}
	}
	if depth <= 0 || ply >= MaxDepth {
		return s.quiesce(ply, alpha, beta)
	}
	pvNode := beta-alpha > 1

	var hashMove engine.Action
	key := s.key(p)
	if !s.noTT {
		if e := s.tt.probe(key); e != nil {
			hashMove = e.move
			if !pvNode && (int(e.depth) == depth || !s.ttExact && int(e.depth) > depth) {
				sc := fromTT(e.score, ply)
				switch {
				case e.bound == boundExact,
					e.bound == boundLower && sc >= beta,
					e.bound == boundUpper && sc <= alpha:
					s.ttCuts++
					return sc
				}
			}
		}
	}
	removing := p.Removing()

	// Pruning of nodes that are not on the principal variation, where
	// the evaluation already says enough.
	prune := !pvNode && !s.noReduce && !removing && ply > 0 &&
		alpha > -scoreDecisive && beta < scoreDecisive
	nullOK := prune && depth >= 3 && p.Hand[p.Side&1] > 0 && !f.nullBefore
	var static int32
	if prune && (depth <= 3 || nullOK) {
		static = s.ev.evaluate(p, ply)
	}
	if prune && depth <= 3 {
		if static-marginRFP*int32(depth) >= beta {
			return static // far above beta: a quiet move will not fall below it
		}
	}
	if nullOK && static >= beta {
		// Null move, while placing (where placing a piece is worth more
		// than passing): the opponent places twice and still fails low.
		r := 2 + depth/4
		q := &s.stack[ply+1]
		q.pos = *p
		q.pos.Side ^= 1
		q.pos.Hash ^= s.sideKey
		q.nullBefore = true
		s.hist[s.base+ply+1] = 0
		val := -s.search(ply+1, depth-1-r, -beta, -beta+1)
		q.nullBefore = false
		if s.stopped {
			return 0
		}
		if val >= beta && val < scoreDecisive {
			return val
		}
	}
	futile := prune && depth <= 2 && static+marginFutility*int32(depth) <= alpha

	best, bestMove := int32(-scoreInf), engine.Action(0)
	origAlpha := alpha
	q := &s.stack[ply+1].pos
	var moves []engine.Action
	var keys []int32
	generated := false
	j := 0 // the next of moves to try
	for i := 0; ; i++ {
		var a engine.Action
		var k int32
		if i == 0 && hashMove != 0 {
			a, k = hashMove, keyHash+s.orderKey(p, ply, hashMove)
		} else {
			if !generated {
				generated = true
				moves = s.v.Legal(p, f.moves[:0])
				if len(moves) == 0 {
					return -(scoreWin - int32(ply)) // the side to move is stuck and loses
				}
				for m := range moves {
					if moves[m] == hashMove && hashMove != 0 {
						moves[m] = moves[len(moves)-1]
						moves = moves[:len(moves)-1]
						break
					}
				}
				keys = f.keys[:len(moves)]
				s.orderKeys(p, ply, moves, keys, 0)
			}
			if j >= len(moves) {
				break
			}
			pickBest(moves, keys, j)
			a, k = moves[j], keys[j]
			j++
		}
		quiet := k < keyQuiet
		if futile && i > 0 && quiet {
			continue
		}
		s.v.ApplyTo(q, p, a)
		s.hist[s.base+ply+1] = q.Hash
		same := q.Side == p.Side
		var val int32
		if i == 0 {
			val = s.child(ply+1, depth-1, alpha, beta, same)
		} else {
			r := 0
			threat := k >= keyThreat && k < keyBlock
			if !s.noReduce && depth >= 3 && i >= 2 && ply > 0 && !removing && (quiet || threat) {
				r = int(s.lmr[min(depth, 63)][min(i, 63)])
				if pvNode && r > 0 {
					r--
				}
				if threat && r > 0 {
					r-- // a threat is reduced less than a quiet move
				}
				r = min(r, depth-2)
			}
			val = s.child(ply+1, depth-1-r, alpha, alpha+1, same)
			if val > alpha && r > 0 {
				val = s.child(ply+1, depth-1, alpha, alpha+1, same)
			}
			if val > alpha && val < beta {
				val = s.child(ply+1, depth-1, alpha, beta, same)
			}
		}
		if s.stopped {
			return 0
		}
		if val > best {
			best = val
			if val > alpha {
				alpha, bestMove = val, a
				s.pv[ply][ply] = a
				n := copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
				s.pvLen[ply] = ply + 1 + n
				if alpha >= beta {
					if k&^keyHash < keyBreak {
						s.rememberCutoff(p, ply, depth, a)
					}
					break
				}
			}
		}
	}
	if best == -scoreInf {
		best = static // every move was futile
	}
	if !s.noTT {
		bound := boundExact
		switch {
		case best <= origAlpha:
			bound = boundUpper
		case best >= beta:
			bound = boundLower
		}
		s.tt.store(key, bestMove, toTT(best, ply), depth, bound)
	}
	return best
}

// child searches the position at ply, reached by one action from the
// position before it, and returns its value for the side that acted:
// negated when the side to move changed.
func (s *Searcher) child(ply, depth int, alpha, beta int32, same bool) int32 {
	if same {
		return s.search(ply, depth, alpha, beta)
	}
	return -s.search(ply, depth, -beta, -alpha)
}

// quiesce is the search past the horizon: the removals owed are played
// out (the side owing them picks which piece goes), then the evaluation
// stands.
func (s *Searcher) quiesce(ply int, alpha, beta int32) int32 {
	f := &s.stack[ply]
	p := &f.pos
	s.pvLen[ply] = ply
	if p.Result != engine.Ongoing {
		return s.terminal(p, ply)
	}
	if !p.Removing() || ply >= maxPly-1 {
		return s.ev.evaluate(p, ply)
	}
	moves := s.v.Legal(p, f.moves[:0])
	keys := f.keys[:len(moves)]
	s.orderKeys(p, ply, moves, keys, 0)
	best := int32(-scoreInf)
	q := &s.stack[ply+1].pos
	for i := range moves {
		pickBest(moves, keys, i)
		a := moves[i]
		s.v.ApplyTo(q, p, a)
		s.nodes++
		var val int32
		if s.tables != nil && q.Hand[0]|q.Hand[1] == 0 && q.Result == engine.Ongoing {
			if tv, err := s.tables.Probe(q); err == nil {
				val = tableScore(tv, ply+1)
				if tv.Outcome == tablebase.Draw {
					val = s.draw(q)
				}
				if q.Side != p.Side {
					val = -val
				}
				goto got
			}
		}
		if q.Side == p.Side {
			val = s.quiesce(ply+1, alpha, beta)
		} else {
			val = -s.quiesce(ply+1, -beta, -alpha)
		}
	got:
		if val > best {
			best = val
			if val > alpha {
				alpha = val
				s.pv[ply][ply] = a
				n := copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
				s.pvLen[ply] = ply + 1 + n
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
func (s *Searcher) terminal(p *engine.Position, ply int) int32 {
	seat, ok := p.Result.Winner()
	switch {
	case !ok:
		return s.draw(p)
	case seat == int(p.Side):
		return scoreWin - int32(ply)
	}
	return -(scoreWin - int32(ply))
}

// draw is a drawn position's score for its side to move: a little below
// nothing for the side to move at the root (contempt), so that it plays on
// where it sees no difference, and as much above for the other side.
func (s *Searcher) draw(p *engine.Position) int32 {
	if p.Side == s.rootSide {
		return -s.contempt
	}
	return s.contempt
}

// repeated applies the repetition rule at ply: a position met before on
// the line searched is a draw (the side that could avoid it chose not
// to), and so is one the game's history brings to the rule's count.
func (s *Searcher) repeated(p *engine.Position, ply int) bool {
	if s.v.RepetitionDraw == 0 || p.Quiet < 4 {
		return false
	}
	i := s.base + ply
	lo := max(i-int(p.Quiet), 0)
	h := p.Hash
	n := 0
	for j := i - 4; j >= lo; j -= 2 {
		if s.hist[j] == h {
			if j >= s.base {
				return true
			}
			n++
		}
	}
	return n+1 >= s.v.RepetitionDraw
}

// rememberCutoff records a quiet action that refuted a node: a killer at
// its ply, and history for its side.
func (s *Searcher) rememberCutoff(p *engine.Position, ply, depth int, a engine.Action) {
	k := &s.killers[ply]
	if k[0] != a {
		k[1], k[0] = k[0], a
	}
	h := &s.history[p.Side&1][a&4095]
	*h += int32(depth * depth)
	if *h > historyMax {
		for side := range s.history {
			for i := range s.history[side] {
				s.history[side][i] /= 2
			}
		}
	}
}

// toTT is score as stored: a decisive score counted from the node, not
// the root, so it holds wherever the position is met again.
func toTT(score int32, ply int) int16 {
	switch {
	case score >= scoreDecisive:
		score += int32(ply)
	case score <= -scoreDecisive:
		score -= int32(ply)
	}
	return int16(score)
}

// fromTT is a stored score at ply.
func fromTT(score int16, ply int) int32 {
	s := int32(score)
	switch {
	case s >= scoreDecisive:
		s -= int32(ply)
	case s <= -scoreDecisive:
		s += int32(ply)
	}
	return s
}
