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
		if got := FeatureSize(v); got != c.want {
			t.Errorf("%s: FeatureSize %d, want %d", c.variant, got, c.want)
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
	a := make([]float32, FeatureSize(v))
	b := make([]float32, FeatureSize(v))
	Encode(v, &p, 0, a)
	Encode(v, &q, 0, b)
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
		a := make([]float32, FeatureSize(v))
		b := make([]float32, FeatureSize(v))
		for trial := 0; trial < 20; trial++ {
			p := randomPosition(v, rng, rng.IntN(40))
			sym := rng.IntN(v.NumSymmetries())
			q := v.MapPosition(sym, p)
			Encode(v, &p, 1, a)
			Encode(v, &q, 1, b)
			for plane := 0; plane <= v.Players; plane++ {
				for pt := 0; pt < pts; pt++ {
					if a[plane*pts+pt] != b[plane*pts+v.MapPoint(sym, pt)] {
						t.Fatalf("%s symmetry %d: plane %d point %d does not follow the map", name, sym, plane, pt)
					}
				}
			}
			o := (v.Players + 1) * pts
			for i := o; i < o+seatFeatures*v.Players+phaseFeatures+scalarFeatures; i++ {
				if a[i] != b[i] {
					t.Fatalf("%s symmetry %d: scalar feature %d changed from %v to %v", name, sym, i, a[i], b[i])
				}
			}
		}
	}
}

func TestEncodeAllocatesNothing(t *testing.T) {
	v := mustVariant(t, "moulin-rouge-4")
	p := randomPosition(v, rand.New(rand.NewPCG(1, 1)), 30)
	dst := make([]float32, FeatureSize(v))
	if n := testing.AllocsPerRun(100, func() { Encode(v, &p, 0, dst) }); n != 0 {
		t.Errorf("Encode allocates %v times", n)
	}
}

func TestOutcomeClassesRoundTrip(t *testing.T) {
	for players := 2; players <= 4; players++ {
		for side := 0; side < players; side++ {
			for class := 0; class <= players; class++ {
				r := RelativeOutcome(class, side, players)
				if AbsoluteOutcome(r, side, players) != class || (class == side) != (r == 0) || (class == players) != (r == players) {
					t.Errorf("players %d side %d class %d: relative %d", players, side, class, r)
				}
			}
		}
	}
}
