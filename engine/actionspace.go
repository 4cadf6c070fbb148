package engine

// The action space of the policy head: every action the variant could ever
// play, numbered densely by kind:
//
//	place p        p                      N of them
//	move f-t       N + f*N + t            N*N (flying reaches any point)
//	remove p       N + N*N + p            N
//	rotate r,dir   2N + N*N + 2r + dir    2*rings, ring board only

// NumActions is the size of the variant's action space.
func (v *Variant) NumActions() int {
	n := v.Board.Points
	size := 2*n + n*n
	if v.Board.Rotating {
		size += 2 * v.Board.Rings
	}
	return size
}

// ActionIndex is a's number in the action space.
func (v *Variant) ActionIndex(a Action) int {
	n := v.Board.Points
	switch a.Kind() {
	case Place:
		return a.To()
	case Move:
		return n + a.From()*n + a.To()
	case Remove:
		return n + n*n + a.To()
	}
	return 2*n + n*n + 2*a.To() + a.From()
}

// ActionAt is the action numbered i in the action space (0 <= i <
// NumActions).
func (v *Variant) ActionAt(i int) Action {
	n := v.Board.Points
	switch {
	case i < n:
		return PlaceAt(i)
	case i < n+n*n:
		i -= n
		return MoveFromTo(i/n, i%n)
	case i < 2*n+n*n:
		return RemoveAt(i - n - n*n)
	}
	i -= 2*n + n*n
	return RotateRing(i/2, i%2 == 0)
}
