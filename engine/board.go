package engine

import (
	"fmt"
	"math/bits"
)

// BoardSpec describes a board; Board is built from it. It is the `board:`
// block of a variant file.
type BoardSpec struct {
	Kind      string `yaml:"kind"`      // square | grid3 | rings
	Squares   int    `yaml:"squares"`   // square: number of concentric squares (3 or 4)
	Spokes    string `yaml:"spokes"`    // square: midpoints | corners | both
	Diagonals bool   `yaml:"diagonals"` // grid3: the diagonals are lines and adjacencies
	Cross     bool   `yaml:"cross"`     // grid3: neighbouring midpoints are adjacent
}

// Board is a set of points, the lines that make mills, the adjacency along
// which pieces slide, and the board's symmetries, all as bitboards.
//
// Points are numbered ring-major (docs/rules.md, "Point numbering"): each
// ring of 8 points is one byte of the bitboard, numbered clockwise from the
// top-left corner. On the three-square board:
//
//	a7 ----------- d7 ----------- g7      0 ----------- 1 ----------- 2
//	|               |              |      |             |             |
//	|   b6 ------- d6 ------- f6   |      |  8 -------- 9 -------- 10 |
//	|   |           |          |   |      |  |          |           | |
//	|   |   c5 -- d5 -- e5     |   |      |  | 16 ---- 17 ---- 18   | |
//	|   |   |           |      |   |      |  | |                 |  | |
//	a4 - b4 - c4       e4 - f4 - g4       7 - 15 - 23           19 - 11 - 3
//	|   |   |           |      |   |      |  | |                 |  | |
//	|   |   c3 -- d3 -- e3     |   |      |  | 22 ---- 21 ---- 20   | |
//	|   |           |          |   |      |  |          |           | |
//	|   b2 ------- d2 ------- f2   |      |  14 ------ 13 ------ 12 |
//	|               |              |      |             |             |
//	a1 ----------- d1 ----------- g1      6 ----------- 5 ----------- 4
//
//	bit:  31..24 | 23..16 | 15..8  | 7..0
//	      ring 3 | ring 2 | ring 1 | ring 0 (outermost)
//
// The 3x3 board numbers its border the same way (0..7 from a3 clockwise)
// and its centre b2 is 8. The rotating-ring board has three rings of 8
// cells, cell k of every ring on spoke k (letters a..h), ring 0 outermost
// (named 1 in notation).
type Board struct {
	Spec     BoardSpec
	Points   int                  // number of points
	Rings    int                  // rings of 8 points (0 on the 3x3 board)
	Rotating bool                 // rings turn (the ring board)
	All      uint32               // every point
	Lines    []uint32             // every line of three points (mills, or winning lines)
	Adjacent [MaxPoints]uint32    // neighbours of each point
	Size     int                  // the drawing grid is Size x Size
	X, Y     [MaxPoints]int       // each point's place on the drawing grid, y = 0 at the bottom
	names    [MaxPoints]string    // coordinates: "d7", "b2", "g1"
	linesAt  [MaxPoints][4]uint64 // lines through each point, padded with noLine
	nLinesAt [MaxPoints]uint8
	syms     []symmetry
}

// symmetry is one automorphism of a board: a permutation of the points, and
// what it does to the rings and their direction of turning.
type symmetry struct {
	point  [MaxPoints]uint8
	ring   [4]uint8
	mirror bool // reverses clockwise and anticlockwise
}

// noLine pads the lines through a point that is on fewer than 4: its bit
// 32 is outside every bitboard, so no set of pieces ever fills it.
const noLine = uint64(1) << 32

// NewBoard builds a board from its description.
func NewBoard(spec BoardSpec) (*Board, error) {
	var b *Board
	var err error
	switch spec.Kind {
	case "square":
		b, err = squareBoard(spec)
	case "grid3":
		b, err = grid3Board(spec)
	case "rings":
		b, err = ringBoard(spec)
	default:
		return nil, fmt.Errorf("board kind %q: want square, grid3 or rings", spec.Kind)
	}
	if err != nil {
		return nil, err
	}
	b.Spec = spec
	b.All = uint32(1)<<b.Points - 1
	if b.Points == 32 {
		b.All = ^uint32(0)
	}
	for p := range b.linesAt {
		b.linesAt[p] = [4]uint64{noLine, noLine, noLine, noLine}
	}
	for _, l := range b.Lines {
		for m := l; m != 0; m &= m - 1 {
			p := bits.TrailingZeros32(m)
			if b.nLinesAt[p] == 4 {
				return nil, fmt.Errorf("board: point %s is on more than 4 lines", b.names[p])
			}
			b.linesAt[p][b.nLinesAt[p]] = uint64(l)
			b.nLinesAt[p]++
		}
	}
	if err := b.checkSymmetries(); err != nil {
		return nil, err
	}
	return b, nil
}

// Name is the coordinate of point p, such as "d7".
func (b *Board) Name(p int) string { return b.names[p] }

// Point is the index of the point with coordinate name, or -1.
func (b *Board) Point(name string) int {
	for p := 0; p < b.Points; p++ {
		if b.names[p] == name {
			return p
		}
	}
	return -1
}

// RingMask is the bitboard of ring r.
func RingMask(r int) uint32 { return 0xFF << (8 * r) }

func (b *Board) addEdge(p, q int) {
	b.Adjacent[p] |= 1 << q
	b.Adjacent[q] |= 1 << p
}

// ringXY is the place of point k of a square ring whose corners are at lo
// and hi on the drawing grid.
func ringXY(k, lo, hi int) (x, y int) {
	mid := (lo + hi) / 2
	xs := [8]int{lo, mid, hi, hi, hi, mid, lo, lo}
	ys := [8]int{hi, hi, hi, mid, lo, lo, lo, mid}
	return xs[k], ys[k]
}

func squareBoard(spec BoardSpec) (*Board, error) {
	n := spec.Squares
	if n != 3 && n != 4 {
		return nil, fmt.Errorf("board squares %d: want 3 or 4", n)
	}
	var spokeK []int
	switch spec.Spokes {
	case "midpoints":
		spokeK = []int{1, 3, 5, 7}
	case "corners":
		spokeK = []int{0, 2, 4, 6}
	case "both":
		spokeK = []int{0, 1, 2, 3, 4, 5, 6, 7}
	default:
		return nil, fmt.Errorf("board spokes %q: want midpoints, corners or both", spec.Spokes)
	}
	b := &Board{Points: 8 * n, Rings: n, Size: 2*n + 1}
	for r := 0; r < n; r++ {
		for k := 0; k < 8; k++ {
			p := 8*r + k
			b.X[p], b.Y[p] = ringXY(k, r, b.Size-1-r)
			b.names[p] = fmt.Sprintf("%c%d", 'a'+b.X[p], b.Y[p]+1)
			b.addEdge(p, 8*r+(k+1)%8)
			if k%2 == 0 {
				b.Lines = append(b.Lines, 1<<p|1<<(8*r+k+1)|1<<(8*r+(k+2)%8))
			}
		}
	}
	for _, k := range spokeK {
		for r := 0; r+1 < n; r++ {
			b.addEdge(8*r+k, 8*(r+1)+k)
		}
		for r := 0; r+2 < n; r++ {
			b.Lines = append(b.Lines, 1<<(8*r+k)|1<<(8*(r+1)+k)|1<<(8*(r+2)+k))
		}
	}
	// D4 on the ring positions, times the swap of inner and outer rings.
	for flip := 0; flip < 2; flip++ {
		for mirror := 0; mirror < 2; mirror++ {
			for rot := 0; rot < 4; rot++ {
				var s symmetry
				s.mirror = mirror == 1
				for r := 0; r < n; r++ {
					r2 := r
					if flip == 1 {
						r2 = n - 1 - r
					}
					s.ring[r] = uint8(r2)
					for k := 0; k < 8; k++ {
						k2 := k
						if s.mirror {
							k2 = (10 - k) % 8
						}
						k2 = (k2 + 2*rot) % 8
						s.point[8*r+k] = uint8(8*r2 + k2)
					}
				}
				b.syms = append(b.syms, s)
			}
		}
	}
	return b, nil
}

func grid3Board(spec BoardSpec) (*Board, error) {
	if spec.Diagonals && spec.Cross {
		return nil, fmt.Errorf("board grid3: diagonals and cross together is not one of the 3x3 boards")
	}
	b := &Board{Points: 9, Size: 3}
	for k := 0; k < 8; k++ {
		b.X[k], b.Y[k] = ringXY(k, 0, 2)
		b.addEdge(k, (k+1)%8)
	}
	b.X[8], b.Y[8] = 1, 1
	for p := 0; p < 9; p++ {
		b.names[p] = fmt.Sprintf("%c%d", 'a'+b.X[p], b.Y[p]+1)
	}
	b.Lines = []uint32{
		1<<0 | 1<<1 | 1<<2, 1<<7 | 1<<8 | 1<<3, 1<<6 | 1<<5 | 1<<4, // rows
		1<<0 | 1<<7 | 1<<6, 1<<1 | 1<<8 | 1<<5, 1<<2 | 1<<3 | 1<<4, // columns
	}
	for k := 1; k < 8; k += 2 {
		b.addEdge(8, k)
	}
	if spec.Diagonals {
		b.Lines = append(b.Lines, 1<<0|1<<8|1<<4, 1<<2|1<<8|1<<6)
		for k := 0; k < 8; k += 2 {
			b.addEdge(8, k)
		}
	}
	if spec.Cross {
		for k := 1; k < 8; k += 2 {
			b.addEdge(k, (k+2)%8)
		}
	}
	for mirror := 0; mirror < 2; mirror++ {
		for rot := 0; rot < 4; rot++ {
			var s symmetry
			s.mirror = mirror == 1
			for k := 0; k < 8; k++ {
				k2 := k
				if s.mirror {
					k2 = (10 - k) % 8
				}
				s.point[k] = uint8((k2 + 2*rot) % 8)
			}
			s.point[8] = 8
			b.syms = append(b.syms, s)
		}
	}
	return b, nil
}

func ringBoard(spec BoardSpec) (*Board, error) {
	b := &Board{Points: 24, Rings: 3, Rotating: true, Size: 7}
	for r := 0; r < 3; r++ {
		for k := 0; k < 8; k++ {
			p := 8*r + k
			b.X[p], b.Y[p] = ringXY(k, r, 6-r)
			b.names[p] = fmt.Sprintf("%c%d", 'a'+k, r+1)
			b.addEdge(p, 8*r+(k+1)%8)
			if r < 2 {
				b.addEdge(p, p+8)
			}
		}
	}
	for k := 0; k < 8; k++ {
		b.Lines = append(b.Lines, 1<<k|1<<(8+k)|1<<(16+k))
	}
	// D8 on the spokes, times the swap of inner and outer rings.
	for flip := 0; flip < 2; flip++ {
		for mirror := 0; mirror < 2; mirror++ {
			for rot := 0; rot < 8; rot++ {
				var s symmetry
				s.mirror = mirror == 1
				for r := 0; r < 3; r++ {
					r2 := r
					if flip == 1 {
						r2 = 2 - r
					}
					s.ring[r] = uint8(r2)
					for k := 0; k < 8; k++ {
						k2 := k
						if s.mirror {
							k2 = (8 - k) % 8
						}
						s.point[8*r+k] = uint8(8*r2 + (k2+rot)%8)
					}
				}
				b.syms = append(b.syms, s)
			}
		}
	}
	return b, nil
}

// mapBits maps a bitboard through a point permutation.
func (s *symmetry) mapBits(m uint32) uint32 {
	var out uint32
	for ; m != 0; m &= m - 1 {
		out |= 1 << s.point[bits.TrailingZeros32(m)]
	}
	return out
}

// checkSymmetries verifies that every symmetry maps lines to lines and
// adjacency to adjacency, so a wrong table fails at build time.
func (b *Board) checkSymmetries() error {
	lines := make(map[uint32]bool, len(b.Lines))
	for _, l := range b.Lines {
		lines[l] = true
	}
	for i := range b.syms {
		s := &b.syms[i]
		if s.mapBits(b.All) != b.All {
			return fmt.Errorf("board symmetry %d is not a permutation", i)
		}
		for _, l := range b.Lines {
			if !lines[s.mapBits(l)] {
				return fmt.Errorf("board symmetry %d does not map lines to lines", i)
			}
		}
		for p := 0; p < b.Points; p++ {
			if s.mapBits(b.Adjacent[p]) != b.Adjacent[s.point[p]] {
				return fmt.Errorf("board symmetry %d does not keep adjacency", i)
			}
		}
	}
	return nil
}
