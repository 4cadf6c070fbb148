package engine

// zobrist holds the random keys of the position hash. Piece keys are kept
// per byte of the bitboard (one ring), so a whole ring hashes in one lookup.
type zobrist struct {
	ring    [MaxSeats][4][256]uint64 // XOR of the piece keys of a byte of pieces
	hand    [MaxSeats][MaxPoints + 1]uint64
	pending [MaxSeats][MaxPoints + 1]uint64 // [s][0] is 0
	side    [MaxSeats]uint64
	out     [MaxSeats]uint64
	rot     [8]uint64 // ring*2+dir

	// Derived keys, so that a make looks up one key per change.
	point    [MaxSeats][MaxPoints]uint64     // the key of one piece: ring[s][pt/8][1<<(pt%8)]
	handStep [MaxSeats][MaxPoints + 1]uint64 // hand[s][h] ^ hand[s][h-1]: placing a piece from a hand of h
	pendStep [MaxSeats][MaxPoints + 1]uint64 // pending[s][n] ^ pending[s][n-1]: taking one of n removals
	sideStep [MaxSeats]uint64                // side[s] ^ side[s^1]: the turn passing in a two-player game
}

// newZobrist makes the keys from a fixed seed, so hashes are the same in
// every process.
func newZobrist() zobrist {
	var z zobrist
	x := uint64(0x6d696c6c7a65726f) // "millzero"
	next := func() uint64 {         // splitmix64
		x += 0x9e3779b97f4a7c15
		r := x
		r = (r ^ r>>30) * 0xbf58476d1ce4e5b9
		r = (r ^ r>>27) * 0x94d049bb133111eb
		return r ^ r>>31
	}
	for s := 0; s < MaxSeats; s++ {
		for b := 0; b < 4; b++ {
			var keys [8]uint64
			for i := range keys {
				keys[i] = next()
			}
			for m := 1; m < 256; m++ {
				low := m & -m
				i := 0
				for low>>i != 1 {
					i++
				}
				z.ring[s][b][m] = z.ring[s][b][m&(m-1)] ^ keys[i]
			}
		}
		for i := range z.hand[s] {
			z.hand[s][i] = next()
		}
		for i := 1; i < len(z.pending[s]); i++ {
			z.pending[s][i] = next()
		}
		z.side[s] = next()
		z.out[s] = next()
	}
	for i := range z.rot {
		z.rot[i] = next()
	}
	for s := 0; s < MaxSeats; s++ {
		for pt := 0; pt < MaxPoints; pt++ {
			z.point[s][pt] = z.ring[s][pt>>3][1<<(pt&7)]
		}
		for h := 1; h <= MaxPoints; h++ {
			z.handStep[s][h] = z.hand[s][h] ^ z.hand[s][h-1]
			z.pendStep[s][h] = z.pending[s][h] ^ z.pending[s][h-1]
		}
		z.sideStep[s] = z.side[s] ^ z.side[s^1]
	}
	return z
}

func (z *zobrist) pieces(s int, m uint32) uint64 {
	return z.ring[s][0][m&0xFF] ^ z.ring[s][1][m>>8&0xFF] ^ z.ring[s][2][m>>16&0xFF] ^ z.ring[s][3][m>>24]
}

// hash computes a position's hash from scratch.
func (v *Variant) hash(p *Position) uint64 {
	var h uint64
	for s := 0; s < v.Players; s++ {
		h ^= v.z.pieces(s, p.Pieces[s]) ^ v.z.hand[s][p.Hand[s]] ^ v.z.pending[s][p.Pending[s]]
		if p.Out>>s&1 != 0 {
			h ^= v.z.out[s]
		}
	}
	h ^= v.z.side[p.Side]
	if p.LastRotation >= 0 {
		h ^= v.z.rot[p.LastRotation]
	}
	return h
}
