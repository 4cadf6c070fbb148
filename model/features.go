package model

import (
	"fmt"
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// The feature encoders this build has, numbered as checkpoints record
// them (encoder_version). A network is trained and evaluated with one
// (Arch.Encoder); a new number comes with any change of meaning, so that a
// checkpoint trained on other features is refused, and the old numbers
// stay readable.
const (
	// EncoderBoard is the board, the counters and the phase (below).
	EncoderBoard = 1
	// EncoderMill is EncoderBoard's features followed by what a small
	// network finds costly to compute from the points alone: for each
	// relative seat, the empty points that would complete a line of its
	// pieces, its pieces that have an empty neighbour, and how many
	// moves along the lines it has.
	EncoderMill = 2
	// EncoderTactics is EncoderMill's features followed by what a mill
	// needs one move ahead, for each relative seat: its pieces in a mill
	// (which the removal rules protect), the empty points where it can
	// close a mill with its next move, its pieces that can close one by
	// moving, and the empty points where one piece would open two lines
	// at once (a fork).
	EncoderTactics = 3
	// EncoderVersion is the newest encoder.
	EncoderVersion = EncoderTactics
)

// CheckEncoder reports whether this build encodes features of version enc.
func CheckEncoder(enc int) error {
	if enc < EncoderBoard || enc > EncoderVersion {
		return fmt.Errorf("feature encoder %d: this build encodes %d to %d", enc, EncoderBoard, EncoderVersion)
	}
	return nil
}

// The features of a position, all from the point of view of the seat to
// move: relative seat r is absolute seat (side + r) mod players, so r = 0
// is the seat to move and the others follow in turn order. With P points,
// S players and R rings (rotating board only):
//
//	S·P   a piece of relative seat r on point i       [r*P + i]
//	P     point i is empty
//	per relative seat r, 6 features:
//	      pieces in hand / pieces
//	      pieces on the board / pieces
//	      removals the seat to move still owes from r (count / 2)
//	      r may fly
//	      r is eliminated
//	      r still has pieces in hand (its placing phase)
//	4     phase of the seat to move: placing, moving, flying, removing
//	4     no-capture counter, endgame counter, repetitions, ply, each
//	      scaled by the variant's limit (1 at the limit)
//	2R    the previous turn's rotation, one-hot by ring*2+dir
//	S     seat order: the absolute seat to move, one-hot
//
// EncoderMill adds, per relative seat r:
//
//	P     point i is empty and completes a line with two of r's pieces
//	P     point i has a piece of r with an empty neighbour
//	1     r's moves along the lines (piece, empty neighbour pairs) / (2·pieces)
//
// EncoderTactics adds, per relative seat r:
//
//	P     point i has a piece of r in a line of three of r's pieces (a mill)
//	P     point i is empty, completes a line with two of r's pieces, and r
//	      can put a piece on it in its next move: from its hand, by flying,
//	      or by sliding a piece from a neighbour off that line
//	P     point i has a piece of r that closes a mill by moving (sliding to
//	      a neighbour, or flying) to such a point
//	P     point i is empty and lies on two or more lines that each hold
//	      one piece of r and no other piece: a piece there threatens twice
const (
	seatFeatures   = 6
	phaseFeatures  = 4
	scalarFeatures = 4
)

// FeatureSize is the number of features encoder enc writes for a position
// of v (CheckEncoder tells which exist).
func FeatureSize(v *engine.Variant, enc int) int {
	n := (v.Players+1)*v.Board.Points + seatFeatures*v.Players + phaseFeatures + scalarFeatures + v.Players
	if v.Board.Rotating {
		n += 2 * v.Board.Rings
	}
	if enc >= EncoderMill {
		n += v.Players * (2*v.Board.Points + 1)
	}
	if enc >= EncoderTactics {
		n += v.Players * tacticsPlanes * v.Board.Points
	}
	return n
}

// tacticsPlanes is the number of EncoderTactics' planes per seat.
const tacticsPlanes = 4

// scaled is count/limit clamped to [0, 1]; with no limit (0) it is
// count/fallback clamped.
func scaled(count, limit, fallback int) float32 {
	if limit <= 0 {
		limit = fallback
	}
	x := float32(count) / float32(limit)
	if x > 1 {
		return 1
	}
	return x
}

// Encode writes the features of encoder enc (CheckEncoder) of position p
// of v into dst, which must hold FeatureSize(v, enc) values. repetitions is
// the number of earlier occurrences of p in its game
// (engine.Variant.Repetitions). It allocates nothing.
func Encode(v *engine.Variant, enc int, p *engine.Position, repetitions int, dst []float32) {
	n := FeatureSize(v, enc)
	dst = dst[:n]
	clear(dst)
	pts, players := v.Board.Points, v.Players
	side := int(p.Side)
	pieces := float32(v.Pieces)
	seat := func(r int) int { return (side + r) % players }
	for r := 0; r < players; r++ {
		plane := dst[r*pts : (r+1)*pts]
		for m := p.Pieces[seat(r)]; m != 0; m &= m - 1 {
			plane[bits.TrailingZeros32(m)] = 1
		}
	}
	empty := dst[players*pts : (players+1)*pts]
	for m := v.Board.All &^ p.Occupied(); m != 0; m &= m - 1 {
		empty[bits.TrailingZeros32(m)] = 1
	}
	o := (players + 1) * pts
	for r := 0; r < players; r++ {
		s := seat(r)
		f := dst[o+r*seatFeatures : o+(r+1)*seatFeatures]
		f[0] = float32(p.Hand[s]) / pieces
		f[1] = float32(bits.OnesCount32(p.Pieces[s])) / pieces
		f[2] = float32(p.Pending[s]) / 2
		if v.CanFly(p, s) {
			f[3] = 1
		}
		if p.Out>>s&1 != 0 {
			f[4] = 1
		}
		if p.Hand[s] > 0 {
			f[5] = 1
		}
	}
	o += seatFeatures * players
	switch {
	case p.Removing():
		dst[o+3] = 1
	case p.Hand[side] > 0:
		dst[o] = 1
	case v.CanFly(p, side):
		dst[o+2] = 1
	default:
		dst[o+1] = 1
	}
	o += phaseFeatures
	dst[o] = scaled(int(p.NoCapture), v.NoCaptureDraw, 200)
	dst[o+1] = scaled(int(p.Endgame), v.EndgameDraw, 200)
	dst[o+2] = scaled(repetitions, v.RepetitionDraw-1, 2)
	dst[o+3] = scaled(int(p.Ply), v.MaxPlies, 1000)
	o += scalarFeatures
	if v.Board.Rotating {
		if p.LastRotation >= 0 && int(p.LastRotation) < 2*v.Board.Rings {
			dst[o+int(p.LastRotation)] = 1
		}
		o += 2 * v.Board.Rings
	}
	if side < players {
		dst[o+side] = 1
	}
	o += players
	if enc >= EncoderMill {
		encodeMill(v, p, dst[o:])
		o += players * (2*pts + 1)
	}
	if enc >= EncoderTactics {
		encodeTactics(v, p, dst[o:])
	}
}

// encodeMill writes EncoderMill's features, per relative seat: the points
// that would complete one of its lines, its pieces that can move along
// the lines, and the count of such moves.
func encodeMill(v *engine.Variant, p *engine.Position, dst []float32) {
	b := v.Board
	pts, players, side := b.Points, v.Players, int(p.Side)
	empty := b.All &^ p.Occupied()
	for r := 0; r < players; r++ {
		f := dst[r*(2*pts+1) : (r+1)*(2*pts+1)]
		own := p.Pieces[(side+r)%players]
		var closing uint32
		for _, l := range b.Lines {
			if bits.OnesCount32(l&own) == 2 {
				closing |= l & empty
			}
		}
		for m := closing; m != 0; m &= m - 1 {
			f[bits.TrailingZeros32(m)] = 1
		}
		moves := 0
		for m := own; m != 0; m &= m - 1 {
			i := bits.TrailingZeros32(m)
			if k := bits.OnesCount32(b.Adjacent[i] & empty); k > 0 {
				f[pts+i] = 1
				moves += k
			}
		}
		f[2*pts] = scaled(moves, 2*v.Pieces, 1)
	}
}

// encodeTactics writes EncoderTactics' planes, per relative seat: its
// pieces in a mill, the points where it can close a mill with its next
// move, its pieces that can close one, and the empty points of a fork.
func encodeTactics(v *engine.Variant, p *engine.Position, dst []float32) {
	b := v.Board
	pts, players, side := b.Points, v.Players, int(p.Side)
	occupied := p.Occupied()
	empty := b.All &^ occupied
	for r := 0; r < players; r++ {
		s := (side + r) % players
		own := p.Pieces[s]
		placing, flying := p.Hand[s] > 0, v.CanFly(p, s) // never both: a seat flies with none in hand
		var inMill, closing, closers, once, twice uint32
		for _, l := range b.Lines {
			switch n := bits.OnesCount32(l & own); {
			case l&own == l:
				inMill |= l
			case n == 2 && l&empty != 0:
				c := l & empty // the line's third point
				if flying {
					closing |= c
					closers |= own &^ l
					break
				}
				if placing {
					closing |= c
				}
				if !placing || v.MoveWhilePlacing {
					if from := b.Adjacent[bits.TrailingZeros32(c)] & own &^ l; from != 0 {
						closing |= c
						closers |= from
					}
				}
			case n == 1 && l&occupied == l&own:
				e := l & empty
				twice |= once & e
				once |= e
			}
		}
		f := dst[r*tacticsPlanes*pts : (r+1)*tacticsPlanes*pts]
		for k, m := range [tacticsPlanes]uint32{inMill, closing, closers, twice} {
			for ; m != 0; m &= m - 1 {
				f[k*pts+bits.TrailingZeros32(m)] = 1
			}
		}
	}
}

// RelativeOutcome maps an absolute outcome class (the winning seat, or
// players for a draw) to the class the outcome head predicts for a
// position with side to move: the winner's relative seat, or players for
// a draw.
func RelativeOutcome(class, side, players int) int {
	if class >= players || class < 0 {
		return class
	}
	return (class - side + players) % players
}

// AbsoluteOutcome maps a relative outcome class back to the absolute one.
func AbsoluteOutcome(class, side, players int) int {
	if class >= players || class < 0 {
		return class
	}
	return (class + side) % players
}

// FeatureMap is where symmetry sym of v's board moves each feature of
// encoder enc: Encode(MapPosition(sym, p))[m[f]] == Encode(p)[f] for every
// position p. The point planes move with the points, the last rotation's
// one-hot with the rings, and every other feature stays.
func FeatureMap(v *engine.Variant, enc, sym int) []int {
	m := make([]int, FeatureSize(v, enc))
	for f := range m {
		m[f] = f
	}
	for _, o := range FeaturePlanes(v, enc) {
		for i := range v.Board.Points {
			m[o+i] = o + v.MapPoint(sym, i)
		}
	}
	if v.Board.Rotating {
		o := (v.Players+1)*v.Board.Points + seatFeatures*v.Players + phaseFeatures + scalarFeatures
		for k := range 2 * v.Board.Rings {
			q := v.MapPosition(sym, engine.Position{LastRotation: int8(k)})
			if q.LastRotation >= 0 {
				m[o+k] = o + int(q.LastRotation)
			}
		}
	}
	return m
}

// FeaturePlanes is where the features of encoder enc that belong to a
// point lie: each offset o begins a plane, feature o+i of point i, in the
// encoder's order. Every other feature is of the whole position.
func FeaturePlanes(v *engine.Variant, enc int) []int {
	rotations := 0
	if v.Board.Rotating {
		rotations = 2 * v.Board.Rings
	}
	return featurePlanes(v.Board.Points, v.Players, rotations, enc)
}

// featurePlanes is FeaturePlanes of a board of pts points, players seats
// and rotations rotation actions (2·rings on a rotating board, else 0):
// all the layout depends on, so that an architecture gives it too
// (Arch.featurePlanes).
func featurePlanes(pts, players, rotations, enc int) []int {
	var planes []int
	for r := 0; r <= players; r++ {
		planes = append(planes, r*pts)
	}
	o := (players+1)*pts + seatFeatures*players + phaseFeatures + scalarFeatures + players + rotations
	if enc >= EncoderMill {
		for r := range players {
			planes = append(planes, o+r*(2*pts+1), o+r*(2*pts+1)+pts)
		}
		o += players * (2*pts + 1)
	}
	if enc >= EncoderTactics {
		for k := range players * tacticsPlanes {
			planes = append(planes, o+k*pts)
		}
	}
	return planes
}
