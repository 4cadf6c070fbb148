package engine

import "math/bits"

// Apply returns the position after the legal action a: copy-make, no
// allocation. It ends the game where the rules say so (too few pieces, a
// line that wins, the draw rules but repetition, which needs the history:
// see Repetitions). Applying an illegal action gives an unspecified
// position; check with IsLegal or ParseAction first when a is not trusted.
func (v *Variant) Apply(p *Position, a Action) (q Position) {
	v.ApplyTo(&q, p, a)
	return q
}

// ApplyTo is Apply writing the position after a into *dst, which may be p:
// the same copy-make without returning a Position by value.
func (v *Variant) ApplyTo(dst, p *Position, a Action) {
	// The fields that change are computed from p, not read back from the
	// fresh copy: that saves a store-to-load round trip on each. Every
	// field of p is read before its copy in dst is written, so dst may be p.
	s := int(p.Side) & (MaxSeats - 1)
	*dst = *p
	q := dst
	q.Ply = p.Ply + 1
	z := &v.z
	var mills int
	var m uint32 // the mover's pieces after a place or move
	switch a.Kind() {
	case Place:
		t := a.To()
		h := p.Hand[s]
		m = p.Pieces[s] | 1<<t
		q.Hash = p.Hash ^ z.point[s][t] ^ z.handStep[s][h]
		q.Pieces[s] = m
		q.Hand[s] = h - 1
		q.Quiet = 0
		if q.LastRotation != NoRotation {
			v.clearRotation(q)
		}
	case Move:
		f, t := a.From(), a.To()
		m = p.Pieces[s] ^ (1<<f | 1<<t)
		q.Hash = p.Hash ^ z.point[s][f] ^ z.point[s][t]
		q.Pieces[s] = m
		q.Quiet = p.Quiet + 1
		if q.LastRotation != NoRotation {
			v.clearRotation(q)
		}
	case Rotate:
		mills = v.rotate(q, s, a)
	default:
		v.remove(q, s, a.To())
		return
	}
	if a.Kind() != Rotate {
		// The mills through the point a piece was placed or moved on, two
		// lines at a time: most points are on two.
		lines := &v.Board.linesAt[a.To()]
		mills = fullLines(m, lines[0], lines[1])
		if lines[2] != noLine {
			mills += fullLines(m, lines[2], lines[3])
		}
	}
	// What follows a place, move or rotate: a win where lines win, else the
	// removals it earns, else the turn passes.
	if mills > 0 && v.LineWins {
		q.Result, q.Reason = WinFor(s), LineFormed
		return
	}
	q.NoCapture++
	if v.EndgameDraw > 0 && q.Hand[0] <= 3 && q.Hand[1] <= 3 && q.PiecesLeft(0) == 3 && q.PiecesLeft(1) == 3 {
		q.Endgame++
	}
	if mills > 0 && v.earnRemovals(q, s, mills) {
		return
	}
	if v.Players == 2 { // passTurn2, written out: it is too big to inline
		q.Hash ^= z.sideStep[s]
		q.Side = uint8(s ^ 1)
		if v.drawDue(q) {
			v.drawBetweenTurns(q)
		}
		return
	}
	v.passTurn(q)
}

// clearRotation drops the previous turn's rotation from a position whose
// turn does not rotate.
func (v *Variant) clearRotation(q *Position) {
	q.Hash ^= v.z.rot[q.LastRotation]
	q.LastRotation = NoRotation
}

// rotate turns the ring of action a for seat s and counts the mills it
// forms. The rotation restriction of the next turn is set here, before the
// turn passes, since passing may look for the next seat's legal actions.
func (v *Variant) rotate(q *Position, s int, a Action) int {
	r, dir := a.To(), a.From()
	rot := int8(r*2 + dir)
	if rot != q.LastRotation {
		if q.LastRotation >= 0 {
			q.Hash ^= v.z.rot[q.LastRotation]
		}
		q.Hash ^= v.z.rot[rot]
		q.LastRotation = rot
	}
	for o := 0; o < v.Players; o++ {
		old := q.Pieces[o]
		if old&RingMask(r) != 0 {
			q.Pieces[o] = rotateRing(old, r, dir)
			q.Hash ^= v.z.pieces(o, old) ^ v.z.pieces(o, q.Pieces[o])
		}
	}
	q.Quiet++
	return bits.OnesCount32(spokeMills(q.Pieces[s]))
}

// remove takes the piece on point t for seat s, which owes a removal.
func (v *Variant) remove(q *Position, s, t int) {
	o := q.Owner(t) & (MaxSeats - 1)
	q.Pieces[o] &^= 1 << t
	q.Hash ^= v.z.point[o][t] ^ v.z.pendStep[o][q.Pending[o]]
	q.Pending[o]--
	q.NoCapture = 0
	q.Quiet = 0
	if q.PiecesLeft(o) < 3 && q.Out>>o&1 == 0 {
		if v.Players == 2 {
			q.Result, q.Reason = WinFor(s), TooFewPieces
			return
		}
		q.Out |= 1 << o
		q.Hash ^= v.z.out[o]
		if v.lastStanding(q) {
			return
		}
	}
	if !q.Removing() {
		v.passTurn(q)
	}
}

// fullLines counts which of lines a and b m fills, without a branch: a line
// l is full when m&l^l is 0, that is when m&l^l-1 has its top bit (a line
// is never 0: see noLine).
func fullLines(m uint32, a, b uint64) int {
	mm := uint64(m)
	return int((mm&a^a-1)>>63 + (mm&b^b-1)>>63)
}

// earnRemovals sets the removals that mills formed by seat s earn, and
// reports whether any is owed (else the turn passes).
func (v *Variant) earnRemovals(q *Position, s, mills int) bool {
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
	return q.Removing()
}

// passTurn gives the turn to the next seat still in the game and applies
// the draw rules that are checked between turns.
func (v *Variant) passTurn(q *Position) {
	s := int(q.Side) & (MaxSeats - 1)
	if v.Players == 2 {
		v.passTurn2(q, s)
		return
	}
	next := (s + 1) % v.Players
	for q.Out>>next&1 != 0 {
		next = (next + 1) % v.Players
	}
	q.Hash ^= v.z.side[s] ^ v.z.side[next]
	q.Side = uint8(next)
	if v.drawDue(q) {
		v.drawBetweenTurns(q)
	}
	if q.Result == Ongoing {
		v.skipStuck(q)
	}
}

// passTurn2 is passTurn in a two-player game, where seat s hands the turn
// to seat s^1.
func (v *Variant) passTurn2(q *Position, s int) {
	q.Hash ^= v.z.sideStep[s]
	q.Side = uint8(s ^ 1)
	if v.drawDue(q) {
		v.drawBetweenTurns(q)
	}
}

// drawDue reports, in one test of the counters, whether a draw rule checked
// between turns may end the game.
func (v *Variant) drawDue(q *Position) bool {
	return int(q.NoCapture) >= v.noCaptureAt || int(q.Endgame) >= v.endgameAt ||
		int(q.Ply) >= v.MaxPlies || v.BoardFullDraw && q.Occupied() == v.Board.All
}

// drawBetweenTurns ends the game by the first draw rule, checked between
// turns, that applies.
func (v *Variant) drawBetweenTurns(q *Position) {
	switch {
	case v.BoardFullDraw && q.Occupied() == v.Board.All:
		q.Result, q.Reason = Draw, BoardFullDraw
	case v.NoCaptureDraw > 0 && int(q.NoCapture) >= v.NoCaptureDraw:
		q.Result, q.Reason = Draw, NoCaptureDraw
	case v.EndgameDraw > 0 && int(q.Endgame) >= v.EndgameDraw:
		q.Result, q.Reason = Draw, EndgameDraw
	case int(q.Ply) >= v.MaxPlies:
		q.Result, q.Reason = Draw, PlyCapDraw
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
