package engine

import "math/bits"

// Apply returns the position after the legal action a: copy-make, no
// allocation. It ends the game where the rules say so (too few pieces, a
// line that wins, the draw rules but repetition, which needs the history:
// see Repetitions). Applying an illegal action gives an unspecified
// position; check with IsLegal or ParseAction first when a is not trusted.
func (v *Variant) Apply(p *Position, a Action) Position {
	q := *p
	q.Ply++
	s := int(q.Side)
	z := &v.z
	if a.Kind() != Remove {
		// The rotation restriction of the next turn is set before the turn
		// passes, since passing may look for the next seat's legal actions.
		rot := NoRotation
		if a.Kind() == Rotate {
			rot = int8(a.To()*2 + a.From())
		}
		if rot != q.LastRotation {
			if q.LastRotation >= 0 {
				q.Hash ^= z.rot[q.LastRotation]
			}
			if rot >= 0 {
				q.Hash ^= z.rot[rot]
			}
			q.LastRotation = rot
		}
	}
	switch a.Kind() {
	case Place:
		t := a.To()
		q.Pieces[s] |= 1 << t
		q.Hash ^= z.piece(s, t) ^ z.hand[s][q.Hand[s]] ^ z.hand[s][q.Hand[s]-1]
		q.Hand[s]--
		q.Quiet = 0
		v.afterTurnAction(&q, s, v.millsAt(q.Pieces[s], t))
	case Move:
		f, t := a.From(), a.To()
		q.Pieces[s] ^= 1<<f | 1<<t
		q.Hash ^= z.piece(s, f) ^ z.piece(s, t)
		q.Quiet++
		v.afterTurnAction(&q, s, v.millsAt(q.Pieces[s], t))
	case Rotate:
		r, dir := a.To(), a.From()
		for o := 0; o < v.Players; o++ {
			old := q.Pieces[o]
			if old&RingMask(r) != 0 {
				q.Pieces[o] = rotateRing(old, r, dir)
				q.Hash ^= z.pieces(o, old) ^ z.pieces(o, q.Pieces[o])
			}
		}
		q.Quiet++
		v.afterTurnAction(&q, s, bits.OnesCount32(spokeMills(q.Pieces[s])))
	case Remove:
		t := a.To()
		o := q.Owner(t)
		q.Pieces[o] &^= 1 << t
		q.Hash ^= z.piece(o, t) ^ z.pending[o][q.Pending[o]] ^ z.pending[o][q.Pending[o]-1]
		q.Pending[o]--
		q.NoCapture = 0
		q.Quiet = 0
		if q.PiecesLeft(o) < 3 && q.Out>>o&1 == 0 {
			if v.Players == 2 {
				q.Result, q.Reason = WinFor(s), TooFewPieces
				return q
			}
			q.Out |= 1 << o
			q.Hash ^= z.out[o]
			if v.lastStanding(&q) {
				return q
			}
		}
		if !q.Removing() {
			v.passTurn(&q)
		}
	}
	return q
}

// millsAt counts the lines through point t that m fills.
func (v *Variant) millsAt(m uint32, t int) int {
	n := 0
	lines := &v.Board.linesAt[t]
	for i := 0; i < int(v.Board.nLinesAt[t]); i++ {
		if m&lines[i] == lines[i] {
			n++
		}
	}
	return n
}

// afterTurnAction follows a place, move or rotate by seat s that formed
// mills mills: a win where lines win, else the removals it earns, else the
// turn passes.
func (v *Variant) afterTurnAction(q *Position, s, mills int) {
	if mills > 0 && v.LineWins {
		q.Result, q.Reason = WinFor(s), LineFormed
		return
	}
	q.NoCapture++
	if v.EndgameDraw > 0 && q.PiecesLeft(0) == 3 && q.PiecesLeft(1) == 3 {
		q.Endgame++
	}
	if mills > 0 {
		k := 1
		if v.RemovePerMill {
			k = mills
		}
		for o := 0; o < v.Players; o++ {
			if o == s {
				continue
			}
			n := min(k, bits.OnesCount32(v.removable(q, o)))
			if n > 0 {
				q.Hash ^= v.z.pending[o][0] ^ v.z.pending[o][n]
				q.Pending[o] = uint8(n)
			}
		}
		if q.Removing() {
			return
		}
	}
	v.passTurn(q)
}

// passTurn gives the turn to the next seat still in the game and applies
// the draw rules that are checked between turns.
func (v *Variant) passTurn(q *Position) {
	s := int(q.Side)
	next := s + 1
	if next == v.Players {
		next = 0
	}
	if v.Players > 2 {
		for q.Out>>next&1 != 0 {
			next = (next + 1) % v.Players
		}
	}
	q.Hash ^= v.z.side[s] ^ v.z.side[next]
	q.Side = uint8(next)
	switch {
	case v.BoardFullDraw && q.Occupied() == v.Board.All:
		q.Result, q.Reason = Draw, BoardFullDraw
	case v.NoCaptureDraw > 0 && int(q.NoCapture) >= v.NoCaptureDraw:
		q.Result, q.Reason = Draw, NoCaptureDraw
	case v.EndgameDraw > 0 && int(q.Endgame) >= v.EndgameDraw:
		q.Result, q.Reason = Draw, EndgameDraw
	case int(q.Ply) >= v.MaxPlies:
		q.Result, q.Reason = Draw, PlyCapDraw
	case v.Players > 2:
		v.skipStuck(q)
	}
}

// skipStuck eliminates, with 3-4 players, every seat that comes to move
// with no legal action, and ends the game when one seat is left.
func (v *Variant) skipStuck(q *Position) {
	for !v.HasLegal(q) {
		s := int(q.Side)
		q.Out |= 1 << s
		q.Hash ^= v.z.out[s]
		if v.lastStanding(q) {
			return
		}
		next := (s + 1) % v.Players
		for q.Out>>next&1 != 0 {
			next = (next + 1) % v.Players
		}
		q.Hash ^= v.z.side[s] ^ v.z.side[next]
		q.Side = uint8(next)
	}
}

// lastStanding ends the game when only one seat is not out.
func (v *Variant) lastStanding(q *Position) bool {
	in := (1<<v.Players - 1) &^ int(q.Out)
	if bits.OnesCount(uint(in)) != 1 {
		return false
	}
	q.Result, q.Reason = WinFor(bits.TrailingZeros(uint(in))), LastStanding
	return true
}
