package engine

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
	if p.LastRotation >= 0 {
		r, dir := int(p.LastRotation)/2, int(p.LastRotation)%2
		if s.mirror {
			dir = 1 - dir
		}
		p.LastRotation = int8(2*int(s.ring[r]) + dir)
	}
	p.Hash = v.hash(&p)
	return p
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
