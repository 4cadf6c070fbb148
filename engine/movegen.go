package engine

import "math/bits"

// MaxActions bounds the number of legal actions of any position: a buffer
// of this capacity never grows in Legal.
const MaxActions = MaxPoints*MaxPoints + 8

// Legal appends the legal actions of p to buf[:0] and returns it. It is
// empty when the game is over.
func (v *Variant) Legal(p *Position, buf []Action) []Action {
	buf = buf[:0]
	if p.Result != Ongoing {
		return buf
	}
	if p.Removing() {
		o := p.removalSeat(v.Players)
		for m := v.removable(p, o); m != 0; m &= m - 1 {
			buf = append(buf, RemoveAt(bits.TrailingZeros32(m)))
		}
		return buf
	}
	s := int(p.Side)
	own := p.Pieces[s]
	empty := v.Board.All &^ p.Occupied()
	if p.Hand[s] > 0 {
		for m := empty; m != 0; m &= m - 1 {
			buf = append(buf, PlaceAt(bits.TrailingZeros32(m)))
		}
	}
	if p.Hand[s] == 0 || v.MoveWhilePlacing {
		fly := v.CanFly(p, s)
		for f := own; f != 0; f &= f - 1 {
			from := bits.TrailingZeros32(f)
			to := empty
			if !fly {
				to &= v.Board.Adjacent[from]
			}
			base := Action(Move)<<10 | Action(from)<<5
			for ; to != 0; to &= to - 1 {
				buf = append(buf, base|Action(bits.TrailingZeros32(to)))
			}
		}
	}
	if v.Board.Rotating {
		for r := 0; r < v.Board.Rings; r++ {
			if own&RingMask(r) == 0 {
				continue
			}
			for dir := 0; dir < 2; dir++ {
				if v.rotationAllowed(p, r, dir) {
					buf = append(buf, RotateRing(r, dir == 0))
				}
			}
		}
	}
	return buf
}

// HasLegal reports whether the side to move has any legal action, faster
// than generating them all.
func (v *Variant) HasLegal(p *Position) bool {
	if p.Result != Ongoing {
		return false
	}
	if p.Removing() {
		return true // pending removals are capped by what is removable
	}
	s := int(p.Side)
	own := p.Pieces[s]
	empty := v.Board.All &^ p.Occupied()
	if p.Hand[s] > 0 && empty != 0 {
		return true
	}
	if p.Hand[s] == 0 || v.MoveWhilePlacing {
		if empty != 0 && own != 0 && v.CanFly(p, s) {
			return true
		}
		for f := own; f != 0; f &= f - 1 {
			if v.Board.Adjacent[bits.TrailingZeros32(f)]&empty != 0 {
				return true
			}
		}
	}
	if v.Board.Rotating {
		for r := 0; r < v.Board.Rings; r++ {
			if own&RingMask(r) != 0 && (v.rotationAllowed(p, r, 0) || v.rotationAllowed(p, r, 1)) {
				return true
			}
		}
	}
	return false
}

// IsLegal reports whether a is a legal action in p.
func (v *Variant) IsLegal(p *Position, a Action) bool {
	var buf [MaxActions]Action
	for _, b := range v.Legal(p, buf[:0]) {
		if a == b {
			return true
		}
	}
	return false
}

// rotationAllowed applies the rules on turning ring r in direction dir (0
// clockwise): not the undo of the previous turn's rotation, and in the Pro
// variant not forming a mill of another colour.
func (v *Variant) rotationAllowed(p *Position, r, dir int) bool {
	if p.LastRotation == int8(r*2+1-dir) {
		return false
	}
	if v.ForbidOpponentMills {
		for s := 0; s < v.Players; s++ {
			if s != int(p.Side) && spokeMills(rotateRing(p.Pieces[s], r, dir)) != 0 {
				return false
			}
		}
	}
	return true
}

// rotateRing turns ring r of a bitboard one cell: clockwise (dir 0) moves
// the piece on cell k to cell k+1.
func rotateRing(m uint32, r, dir int) uint32 {
	shift := 8 * r
	b := m >> shift & 0xFF
	if dir == 0 {
		b = (b<<1 | b>>7) & 0xFF
	} else {
		b = (b>>1 | b<<7) & 0xFF
	}
	return m&^(0xFF<<shift) | b<<shift
}

// spokeMills is the set of spokes (bit k for spoke k) on which m holds all
// three rings of the rotating-ring board.
func spokeMills(m uint32) uint32 {
	return m & (m >> 8) & (m >> 16) & 0xFF
}

// inMills is the set of seat's pieces that stand in one of its lines.
func (v *Variant) inMills(m uint32) uint32 {
	if v.Board.Rotating {
		s := spokeMills(m)
		return s | s<<8 | s<<16
	}
	var in uint32
	for _, l := range v.Board.Lines {
		if m&l == l {
			in |= l
		}
	}
	return in
}

// removable is the set of seat o's pieces that may be removed: those not in
// a mill, or any when all are and the variant allows it, or any at all with
// remove_from_mills_always.
func (v *Variant) removable(p *Position, o int) uint32 {
	m := p.Pieces[o]
	if v.RemoveFromMillsAlways {
		return m
	}
	r := m &^ v.inMills(m)
	if r == 0 && v.RemoveFromMillsWhenAllInMills {
		return m
	}
	return r
}

// removalSeat is the seat whose piece the side to move removes next: the
// first with a pending removal, in turn order after the mover.
func (p *Position) removalSeat(players int) int {
	for i := 1; i < players; i++ {
		o := (int(p.Side) + i) % players
		if p.Pending[o] != 0 {
			return o
		}
	}
	return int(p.Side)
}
