package engine

import (
	"fmt"
	"math/bits"
)

// Placed is the two-player position with pieces[s] on the board for each
// seat, nothing in hand and no removal owed, side to move, ply actions
// into the game: a game that starts in the moving phase (self-play's
// endgame starts). Its hash and any result the pieces alone decide are
// filled in as Apply would have; the counters of the draw rules start at
// zero. An error says which argument does not fit the variant.
func (v *Variant) Placed(pieces [2]uint32, side, ply int) (Position, error) {
	switch {
	case v.Players != 2:
		return Position{}, fmt.Errorf("placed position of %s: %d players, want 2", v.Name, v.Players)
	case pieces[0]&pieces[1] != 0:
		return Position{}, fmt.Errorf("placed position of %s: the seats share points %#x", v.Name, pieces[0]&pieces[1])
	case (pieces[0]|pieces[1])&^v.Board.All != 0:
		return Position{}, fmt.Errorf("placed position of %s: points %#x are off the board", v.Name, (pieces[0]|pieces[1])&^v.Board.All)
	case bits.OnesCount32(pieces[0]) > v.Pieces || bits.OnesCount32(pieces[1]) > v.Pieces:
		return Position{}, fmt.Errorf("placed position of %s: %d and %d pieces, a seat has %d", v.Name,
			bits.OnesCount32(pieces[0]), bits.OnesCount32(pieces[1]), v.Pieces)
	case side != 0 && side != 1:
		return Position{}, fmt.Errorf("placed position of %s: side %d, want 0 or 1", v.Name, side)
	case ply < 0 || ply >= v.MaxPlies:
		return Position{}, fmt.Errorf("placed position of %s: ply %d, want 0..%d", v.Name, ply, v.MaxPlies-1)
	}
	p := Position{LastRotation: NoRotation, Side: uint8(side), Ply: uint16(ply)}
	p.Pieces[0], p.Pieces[1] = pieces[0], pieces[1]
	v.settle(&p, false)
	return p, nil
}
