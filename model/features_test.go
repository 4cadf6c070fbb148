package model

import (
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/engine"
)

// randomPosition plays random legal actions from the start.
func randomPosition(v *engine.Variant, rng *rand.Rand, plies int) engine.Position {
	p := v.Start()
	buf := make([]engine.Action, 0, engine.MaxActions)
	for i := 0; i < plies; i++ {
		legal := v.Legal(&p, buf)
		if len(legal) == 0 {
			break
		}
		p = v.Apply(&p, legal[rng.IntN(len(legal))])
	}
	return p
}

func TestFeaturesAreSizedByTheBoard(t *testing.T) {
	for _, c := range []struct {
		variant string
		want    int
	}{
		{"nine", 3*24 + 12 + 4 + 4 + 2},           // 2 players, 24 points
		{"three", 3*9 + 12 + 4 + 4 + 2},           // 9 points
		{"twelve", 3*24 + 12 + 4 + 4 + 2},         // 24 points with diagonals
		{"moulin-rouge-4", 5*24 + 24 + 8 + 6 + 4}, // 4 players, 3 rotating rings
		{"moulin-rouge", 3*24 + 12 + 8 + 6 + 2},   // 2 players, rings
	} {
		v := mustVariant(t, c.variant)
		if got := FeatureSize(v, EncoderBoard); got != c.want {
			t.Errorf("%s: FeatureSize %d, want %d", c.variant, got, c.want)
		}
		// EncoderMill adds two planes and a count per seat, EncoderTactics
		// four planes more.
		if got, want := FeatureSize(v, EncoderMill), c.want+v.Players*(2*v.Board.Points+1); got != want {
			t.Errorf("%s: FeatureSize of EncoderMill %d, want %d", c.variant, got, want)
		}
		if got, want := FeatureSize(v, EncoderTactics), c.want+v.Players*(6*v.Board.Points+1); got != want {
			t.Errorf("%s: FeatureSize of EncoderTactics %d, want %d", c.variant, got, want)
		}
	}
}

func TestFeaturesAreFromTheSideToMove(t *testing.T) {
	v := mustVariant(t, "nine")
	p := v.Start()
	p.Pieces[0] = 1 << 3
	p.Pieces[1] = 1<<5 | 1<<7
	q := p
	q.Side = 1
	q.Pieces[0], q.Pieces[1] = p.Pieces[1], p.Pieces[0]
	q.Hand[0], q.Hand[1] = p.Hand[1], p.Hand[0]
	a := make([]float32, FeatureSize(v, EncoderBoard))
	b := make([]float32, FeatureSize(v, EncoderBoard))
	Encode(v, EncoderBoard, &p, 0, a)
	Encode(v, EncoderBoard, &q, 0, b)
	n := len(a) - v.Players // all but the seat-order one-hot agree
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			t.Errorf("feature %d: %v with seat 0 to move, %v after swapping the seats", i, a[i], b[i])
		}
	}
	if a[n] != 1 || b[n+1] != 1 {
		t.Errorf("seat order features %v and %v", a[n:], b[n:])
	}
	if a[3] != 1 || a[24+5] != 1 || a[24+7] != 1 || a[48+3] != 0 || a[48+0] != 1 {
		t.Errorf("piece planes wrong: own %v, other %v, empty %v", a[:24], a[24:48], a[48:72])
	}
}

func TestFeaturesPermuteWithTheBoardSymmetries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, name := range []string{"nine", "three", "moulin-rouge-3"} {
		v := mustVariant(t, name)
		pts := v.Board.Points
		a := make([]float32, FeatureSize(v, EncoderTactics))
		b := make([]float32, FeatureSize(v, EncoderTactics))
		board := FeatureSize(v, EncoderBoard) // where EncoderMill's own features start
		mill := FeatureSize(v, EncoderMill)   // where EncoderTactics' own features start
		for trial := 0; trial < 20; trial++ {
			p := randomPosition(v, rng, rng.IntN(40))
			sym := rng.IntN(v.NumSymmetries())
			q := v.MapPosition(sym, p)
			Encode(v, EncoderTactics, &p, 1, a)
			Encode(v, EncoderTactics, &q, 1, b)
			plane := func(at int) {
				for pt := 0; pt < pts; pt++ {
					if a[at+pt] != b[at+v.MapPoint(sym, pt)] {
						t.Fatalf("%s symmetry %d: the plane at %d, point %d, does not follow the map", name, sym, at, pt)
					}
				}
			}
			same := func(i int) {
				if a[i] != b[i] {
					t.Fatalf("%s symmetry %d: scalar feature %d changed from %v to %v", name, sym, i, a[i], b[i])
				}
			}
			for k := 0; k <= v.Players; k++ {
				plane(k * pts)
			}
			o := (v.Players + 1) * pts
			for i := o; i < o+seatFeatures*v.Players+phaseFeatures+scalarFeatures; i++ {
				same(i)
			}
			for r := 0; r < v.Players; r++ {
				at := board + r*(2*pts+1)
				plane(at)
				plane(at + pts)
				same(at + 2*pts)
			}
			for k := 0; k < v.Players*tacticsPlanes; k++ {
				plane(mill + k*pts)
			}
		}
	}
}

func TestEncodeAllocatesNothing(t *testing.T) {
	v := mustVariant(t, "moulin-rouge-4")
	p := randomPosition(v, rand.New(rand.NewPCG(1, 1)), 30)
	dst := make([]float32, FeatureSize(v, EncoderTactics))
	if n := testing.AllocsPerRun(100, func() { Encode(v, EncoderTactics, &p, 0, dst) }); n != 0 {
		t.Errorf("Encode allocates %v times", n)
	}
}

// addedFeatures encodes p with encoders enc and its successor next, checks
// that next's features begin with enc's, and returns the ones next adds.
func addedFeatures(t *testing.T, name string, v *engine.Variant, p *engine.Position, enc, next int) []float32 {
	t.Helper()
	a := make([]float32, FeatureSize(v, enc))
	b := make([]float32, FeatureSize(v, next))
	Encode(v, enc, p, 0, a)
	Encode(v, next, p, 0, b)
	for i, x := range a {
		if b[i] != x {
			t.Fatalf("%s: feature %d: %v with encoder %d, %v with encoder %d", name, i, b[i], next, x, enc)
		}
	}
	return b[len(a):]
}

// EncoderMill's features begin with EncoderBoard's, and say from each
// seat's side which empty points would complete one of its lines, which of
// its pieces can slide, and how many slides it has (the board's numbering
// is drawn in engine/board.go).
func TestEncoderMill_MillPointsAndMobility(t *testing.T) {
	v := mustVariant(t, "nine")
	pts := v.Board.Points
	for _, c := range []struct {
		name         string
		own, other   uint32  // pieces of the seat to move and of the other
		closing      uint32  // points that complete a line of the seat to move
		otherClosing uint32  // of the other
		ownMobile    uint32  // its pieces with an empty neighbour
		otherMobile  uint32  // the other's
		ownMoves     float32 // its slides
		otherMoves   float32
	}{
		// a7 and d7 of the seat to move: g7 completes the top line. a7
		// slides to a4, d7 to g7 and d6; the other's g4 to g7, g1, f4.
		{"open line", 1<<0 | 1<<1, 1 << 3, 1 << 2, 0, 1<<0 | 1<<1, 1 << 3, 3, 3},
		// The other seat on g7 blocks the line and opens its own, g7-g4,
		// to g1; on a4 it shuts a7 in. g7's neighbours are d7 and g4, both
		// held: it cannot slide either.
		{"blocked line, a piece shut in", 1<<0 | 1<<1, 1<<2 | 1<<3 | 1<<7, 0, 1 << 4, 1 << 1, 1<<3 | 1<<7, 1, 4},
	} {
		p := v.Start()
		p.Hand[0], p.Hand[1] = 0, 0
		p.Pieces[0], p.Pieces[1] = c.own, c.other
		f := addedFeatures(t, c.name, v, &p, EncoderBoard, EncoderMill)
		seat := func(r int) []float32 { return f[r*(2*pts+1) : (r+1)*(2*pts+1)] }
		for i := 0; i < pts; i++ {
			for _, w := range []struct {
				what string
				got  float32
				set  uint32
			}{
				{"completes a line of the seat to move", seat(0)[i], c.closing},
				{"completes a line of the other seat", seat(1)[i], c.otherClosing},
				{"a piece of the seat to move can slide", seat(0)[pts+i], c.ownMobile},
				{"a piece of the other seat can slide", seat(1)[pts+i], c.otherMobile},
			} {
				if want := float32(w.set >> i & 1); w.got != want {
					t.Errorf("%s: point %d %s: %v, want %v", c.name, i, w.what, w.got, want)
				}
			}
		}
		if got, want := seat(0)[2*pts], c.ownMoves/18; got != want {
			t.Errorf("%s: slides of the seat to move %v, want %v", c.name, got, want)
		}
		if got, want := seat(1)[2*pts], c.otherMoves/18; got != want {
			t.Errorf("%s: slides of the other seat %v, want %v", c.name, got, want)
		}
	}
}

// EncoderTactics' features begin with EncoderMill's, and say from each
// seat's side which of its pieces stand in a mill, where it can close a
// mill with its next move and with which pieces, and where one piece
// would open two of its lines (the numbering is drawn in engine/board.go:
// the outer ring is 0..7 clockwise from a7, the middle 8..15).
func TestEncoderTactics_MillsThreatsAndForks(t *testing.T) {
	v := mustVariant(t, "nine")
	pts := v.Board.Points
	type planes struct{ inMill, closing, closers, forks uint32 }
	for _, c := range []struct {
		name       string
		own, other uint32 // pieces of the seat to move and of the other
		hand       uint8  // in each seat's hand
		want       [2]planes
		// the variant lets a seat with pieces in hand slide them too
		moveWhilePlacing bool
	}{
		// The seat to move has a7, d7, g4, d6: g4 slides to g7 to close
		// the top line; d5 would close d7-d6-d5 but no piece of its own
		// off that line stands beside it. The other's four inner corners
		// each leave a middle point open that only the line's own pieces
		// touch.
		{"sliding", 1<<0 | 1<<1 | 1<<3 | 1<<9, 1<<16 | 1<<18 | 1<<20 | 1<<22, 0,
			[2]planes{{closing: 1 << 2, closers: 1 << 3}, {}}, false},
		// Three pieces fly: a7, d7 and g1 close the top line at g7 with
		// g1, the one piece off it, and a1 opens a7-a4-a1 and g1-d1-a1 at
		// once. The other has the mill b6-d6-f6, closes f6-f4-f2 at f2 by
		// sliding d2 over, and b2 opens b6-b4-b2 and f2-d2-b2 at once.
		{"flying", 1<<0 | 1<<1 | 1<<4, 1<<8 | 1<<9 | 1<<10 | 1<<11 | 1<<13, 0,
			[2]planes{{closing: 1 << 2, closers: 1 << 4, forks: 1 << 6}, {inMill: 1<<8 | 1<<9 | 1<<10, closing: 1 << 12, closers: 1 << 13, forks: 1 << 14}}, false},
		// In the placing phase any closing point can be filled from the
		// hand, and no piece on the board closes it...
		{"placing", 1<<0 | 1<<1 | 1<<4, 0, 5,
			[2]planes{{closing: 1 << 2, forks: 1 << 6}, {}}, false},
		// ...unless the variant lets pieces slide while placing: then g4
		// sliding to g7 closes the top line too.
		{"sliding while placing", 1<<0 | 1<<1 | 1<<3, 0, 5,
			[2]planes{{closing: 1 << 2, closers: 1 << 3}, {}}, true},
	} {
		v := v
		if c.moveWhilePlacing {
			w := *v
			w.MoveWhilePlacing = true
			v = &w
		}
		p := v.Start()
		p.Hand[0], p.Hand[1] = c.hand, c.hand
		p.Pieces[0], p.Pieces[1] = c.own, c.other
		f := addedFeatures(t, c.name, v, &p, EncoderMill, EncoderTactics)
		for r, w := range c.want {
			seat := f[r*4*pts : (r+1)*4*pts]
			for k, plane := range []struct {
				what string
				set  uint32
			}{{"in a mill", w.inMill}, {"closes a mill next move", w.closing}, {"a piece that closes a mill", w.closers}, {"a fork", w.forks}} {
				for i := 0; i < pts; i++ {
					if got, want := seat[k*pts+i], float32(plane.set>>i&1); got != want {
						t.Errorf("%s: relative seat %d, point %d, %s: %v, want %v", c.name, r, i, plane.what, got, want)
					}
				}
			}
		}
	}
}
