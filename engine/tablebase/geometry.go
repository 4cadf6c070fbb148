package tablebase

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// ErrUnsupported is returned (wrapped) for a variant whose rules the
// tables do not model.
var ErrUnsupported = errors.New("variant not supported by the tablebase")

// rules is what the generator and the probe need of a variant, as
// bitboards: the board's adjacency and lines, the rule options that decide
// a position's value once every piece is placed, and the board's
// symmetries as byte-wise lookup tables.
type rules struct {
	v        *engine.Variant
	points   int
	all      uint32
	adj      [engine.MaxPoints]uint32
	linesAt  [engine.MaxPoints][4]uint32
	nLinesAt [engine.MaxPoints]uint8
	lines    []uint32
	flyAt    int
	perMill  bool // remove_per_mill
	anyMill  bool // remove_from_mills_when_all_in_mills
	noCap    int  // no_capture_draw, 0 = off
	endgame  int  // endgame_draw, 0 = off
	symBytes [][4][256]uint32
	binom    [engine.MaxPoints + 1][engine.MaxPoints + 1]uint64
	hash     [32]byte

	// colex[ring][b][k] is the part of a set's colex rank from byte b of
	// ring ring when k points of the set lie in the rings below.
	colex [4][256][engine.MaxPoints + 1]uint32
	// pext[f][b] packs the bits of b that lie on the set bits of f into
	// the low bits (the PEXT instruction on one byte).
	pext [256][256]uint8
}

// newRules checks that v is a variant the tables model and precomputes its
// geometry: two players, a board that does not turn, mills that capture
// (not lines that win).
func newRules(v *engine.Variant) (*rules, error) {
	switch {
	case v == nil:
		return nil, fmt.Errorf("tablebase: no variant")
	case v.Players != 2:
		return nil, fmt.Errorf("tablebase %s: %d players: %w (want 2)", v.Name, v.Players, ErrUnsupported)
	case v.Board.Rotating:
		return nil, fmt.Errorf("tablebase %s: the rotating-ring board: %w", v.Name, ErrUnsupported)
	case v.LineWins:
		return nil, fmt.Errorf("tablebase %s: line_wins: %w (a line ends the game; there is no endgame of captures)", v.Name, ErrUnsupported)
	case v.RemoveFromMillsAlways:
		return nil, fmt.Errorf("tablebase %s: remove_from_mills_always: %w", v.Name, ErrUnsupported)
	}
	r := &rules{v: v, points: v.Board.Points, all: v.Board.All, lines: v.Board.Lines,
		flyAt: v.FlyAt, perMill: v.RemovePerMill, anyMill: v.RemoveFromMillsWhenAllInMills,
		noCap: v.NoCaptureDraw, endgame: v.EndgameDraw}
	r.adj = v.Board.Adjacent
	for _, l := range v.Board.Lines {
		for m := l; m != 0; m &= m - 1 {
			p := bits.TrailingZeros32(m)
			r.linesAt[p][r.nLinesAt[p]] = l
			r.nLinesAt[p]++
		}
	}
	for n := 0; n <= engine.MaxPoints; n++ {
		r.binom[n][0] = 1
		for k := 1; k <= n; k++ {
			r.binom[n][k] = r.binom[n-1][k-1] + r.binom[n-1][k]
		}
	}
	for ring := 0; ring < 4; ring++ {
		for b := 0; b < 256; b++ {
			for k := 0; k+bits.OnesCount8(uint8(b)) <= engine.MaxPoints; k++ {
				var sum uint64
				i := k
				for j := 0; j < 8; j++ {
					if b>>j&1 != 0 {
						i++
						sum += r.binom[8*ring+j][i]
					}
				}
				r.colex[ring][b][k] = uint32(sum)
			}
		}
	}
	for f := 0; f < 256; f++ {
		for b := 0; b < 256; b++ {
			var out uint8
			n := 0
			for j := 0; j < 8; j++ {
				if f>>j&1 != 0 {
					out |= uint8(b>>j&1) << n
					n++
				}
			}
			r.pext[f][b] = out
		}
	}
	r.symBytes = make([][4][256]uint32, v.NumSymmetries())
	for s := range r.symBytes {
		for ring := 0; ring < 4; ring++ {
			for b := 0; b < 256; b++ {
				var m uint32
				for k := 0; k < 8; k++ {
					pt := 8*ring + k
					if b>>k&1 != 0 && pt < r.points {
						m |= 1 << v.MapPoint(s, pt)
					}
				}
				r.symBytes[s][ring][b] = m
			}
		}
	}
	r.hash = rulesHash(v)
	return r, nil
}

// rulesHash is the SHA-256 of every rule that decides the value of a
// position with all pieces placed: the board and the options of the
// rules. The name, the piece count, the repetition rule (the tables are
// exact under it: see the package doc) and the ply cap are left out, so
// variants that differ only there share their tables.
func rulesHash(v *engine.Variant) [32]byte {
	key := struct {
		Board                      engine.BoardSpec
		Players, FlyAt             int
		RemovePerMill, AnyMill     bool
		LineWins, BoardFullDraw    bool
		ForbidOpponentMills        bool
		MoveWhilePlacing           bool
		NoCaptureDraw, EndgameDraw int
		Format                     string
	}{v.Board.Spec, v.Players, v.FlyAt, v.RemovePerMill, v.RemoveFromMillsWhenAllInMills,
		v.LineWins, v.BoardFullDraw, v.ForbidOpponentMills, v.MoveWhilePlacing,
		v.NoCaptureDraw, v.EndgameDraw, "millzero tablebase rules v1"}
	text, _ := json.Marshal(key) // a struct of plain fields always marshals
	return sha256.Sum256(text)
}

// mapBits maps a bitboard by symmetry s.
func (r *rules) mapBits(s int, m uint32) uint32 {
	t := &r.symBytes[s]
	return t[0][m&0xFF] | t[1][m>>8&0xFF] | t[2][m>>16&0xFF] | t[3][m>>24]
}

// millsAt counts the lines through point t that m fills.
func (r *rules) millsAt(m uint32, t int) int {
	n := 0
	for i := 0; i < int(r.nLinesAt[t]); i++ {
		if l := r.linesAt[t][i]; m&l == l {
			n++
		}
	}
	return n
}

// removable is the set of pieces of m that may be removed: those in no
// mill of m, or all of them when all are and the rules allow it.
func (r *rules) removable(m uint32) uint32 {
	var in uint32
	for _, l := range r.lines {
		if m&l == l {
			in |= l
		}
	}
	if rem := m &^ in; rem != 0 || !r.anyMill {
		return rem
	}
	return m
}

// flies reports whether a side with n pieces on the board (none in hand)
// moves to any empty point.
func (r *rules) flies(n int) bool { return r.flyAt > 0 && n <= r.flyAt }

// budget is the number of quiet plies that a material of a v b leaves
// after a capture: the no-capture rule's, or the 3 v 3 rule's when it is
// shorter. 0 means no limit.
func (r *rules) budget(a, b int) int {
	n := r.noCap
	if r.endgame > 0 && a == 3 && b == 3 && (n == 0 || r.endgame < n) {
		n = r.endgame
	}
	return n
}

// colexRank is the rank of the set m among the sets of its size, in
// colexicographic order (the order of their bitboards as numbers).
func (r *rules) colexRank(m uint32) uint64 {
	b0, b1, b2, b3 := m&0xFF, m>>8&0xFF, m>>16&0xFF, m>>24
	k1 := bits.OnesCount8(uint8(b0))
	k2 := k1 + bits.OnesCount8(uint8(b1))
	k3 := k2 + bits.OnesCount8(uint8(b2))
	return uint64(r.colex[0][b0][0]) + uint64(r.colex[1][b1][k1]) + uint64(r.colex[2][b2][k2]) + uint64(r.colex[3][b3][k3])
}

// rankAmong is the colex rank of m among the sets of its size of the
// points of free (m must lie inside free), counting points by their order
// within free.
func (r *rules) rankAmong(m, free uint32) uint64 {
	f0, f1, f2, f3 := free&0xFF, free>>8&0xFF, free>>16&0xFF, free>>24
	n1 := bits.OnesCount8(uint8(f0))
	n2 := n1 + bits.OnesCount8(uint8(f1))
	n3 := n2 + bits.OnesCount8(uint8(f2))
	c := uint32(r.pext[f0][m&0xFF]) | uint32(r.pext[f1][m>>8&0xFF])<<n1 |
		uint32(r.pext[f2][m>>16&0xFF])<<n2 | uint32(r.pext[f3][m>>24])<<n3
	return r.colexRank(c)
}

// unrankAmong is the inverse of rankAmong: the k-point subset of free of
// the given rank.
func (r *rules) unrankAmong(rank uint64, k int, free uint32) uint32 {
	var compact uint32
	n := bits.OnesCount32(free)
	for i := k; i > 0; i-- {
		c := n - 1
		for r.binom[c][i] > rank {
			c--
		}
		compact |= 1 << c
		rank -= r.binom[c][i]
		n = c
	}
	return deposit(compact, free)
}

// deposit spreads the low bits of compact over the set bits of free, in
// order (the PDEP instruction).
func deposit(compact, free uint32) uint32 {
	var out uint32
	for ; compact != 0 && free != 0; free &= free - 1 {
		if compact&1 != 0 {
			out |= free & -free
		}
		compact >>= 1
	}
	return out
}

// nextSubset is the next larger number with as many bits set (Gosper's
// hack): the next set in colex order.
func nextSubset(x uint32) uint32 {
	c := x & -x
	rr := x + c
	return (((rr ^ x) >> 2) / c) | rr
}
