package engine

import "slices"

// NumSymmetries is the size of the board's symmetry group: 16 on the square
// boards, 8 on the 3x3 board, 32 on the ring board. Symmetry 0 is the
// identity.
func (v *Variant) NumSymmetries() int { return len(v.Board.syms) }

// MapPoint maps point pt by symmetry sym.
func (v *Variant) MapPoint(sym, pt int) int { return int(v.Board.syms[sym].point[pt]) }

// MapAction maps an action by symmetry sym.
func (v *Variant) MapAction(sym int, a Action) Action {
	s := &v.Board.syms[sym]
	switch a.Kind() {
	case Place:
		return PlaceAt(int(s.point[a.To()]))
	case Move:
		return MoveFromTo(int(s.point[a.From()]), int(s.point[a.To()]))
	case Remove:
		return RemoveAt(int(s.point[a.To()]))
	}
	return RotateRing(int(s.ring[a.To()]), a.Clockwise() != s.mirror)
}

// MapPosition maps a position by symmetry sym: the pieces move, everything
// else stays, and the hash is that of the mapped position.
func (v *Variant) MapPosition(sym int, p Position) Position {
	s := &v.Board.syms[sym]
	for seat := 0; seat < v.Players; seat++ {
		p.Pieces[seat] = s.mapBits(p.Pieces[seat])
	}
	p.LastRotation = int8(v.mapRotation(sym, p.LastRotation) - 1)
	p.Hash = v.hash(&p)
	return p
}

// MapPoints maps a set of points (a bitboard, bit i point i) by symmetry
// sym, as MapPosition maps each seat's pieces.
func (v *Variant) MapPoints(sym int, points uint32) uint32 {
	return v.Board.syms[sym].mapBits(points)
}

// InverseSymmetry is the symmetry that undoes sym.
func (v *Variant) InverseSymmetry(sym int) int {
	s := &v.Board.syms[sym]
	for i := range v.Board.syms {
		t := &v.Board.syms[i]
		ok := true
		for pt := 0; pt < v.Board.Points && ok; pt++ {
			ok = t.point[s.point[pt]] == uint8(pt)
		}
		if ok {
			return i
		}
	}
	return 0 // unreachable: the group is closed (checked by a test)
}

// CanonicalSymmetry is the symmetry that maps p to the least of its images
// under the board's symmetries: least by the first seat's pieces, then the
// next seat's, then the last rotation, ties to the lowest symmetry. Every
// image of p has the same least image, so whatever reads only the
// canonical image (MapPosition(CanonicalSymmetry(&p), p)) answers every
// turn of the board alike. Allocates nothing.
func (v *Variant) CanonicalSymmetry(p *Position) int {
	best, key := 0, v.image(0, p)
	for i := 1; i < len(v.Board.syms); i++ {
		if img := v.image(i, p); slices.Compare(img[:v.Players+1], key[:v.Players+1]) < 0 {
			best, key = i, img
		}
	}
	return best
}

// image is what CanonicalSymmetry compares of p mapped by sym: each seat's
// pieces, then the last rotation.
func (v *Variant) image(sym int, p *Position) [MaxSeats + 1]uint32 {
	var img [MaxSeats + 1]uint32
	s := &v.Board.syms[sym]
	for seat := 0; seat < v.Players; seat++ {
		img[seat] = s.mapBits(p.Pieces[seat])
	}
	img[v.Players] = uint32(v.mapRotation(sym, p.LastRotation))
	return img
}

// mapRotation is the last rotation r (LastRotation's coding, -1 none) as
// symmetry sym maps it, shifted to be 0 or more.
func (v *Variant) mapRotation(sym int, r int8) int {
	if r < 0 {
		return 0
	}
	s := &v.Board.syms[sym]
	ring, dir := int(r)/2, int(r)%2
	if s.mirror {
		dir = 1 - dir
	}
	return 1 + 2*int(s.ring[ring]) + dir
}
