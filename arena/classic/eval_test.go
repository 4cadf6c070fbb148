package classic

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/engine"
)

// handSearches are searches to depth 8 with the hand-written weights of
// positions reached by seeded random games (seed, seed*4 random actions):
// the nodes, score and best action the engine gave before its evaluation
// was made of weighted features. The hand set must search the same tree.
var handSearches = []struct {
	variant string
	seed    uint64
	nodes   int64
	score   int
	best    string
}{
	{"nine", 1, 9255, 100, "d2"},
	{"nine", 2, 4606, 150, "e3"},
	{"nine", 3, 4279, 50, "a1"},
	{"nine", 4, 4763, 50, "xg4"},
	{"nine", 5, 3983, 450, "e3-e4"},
	{"nine", 6, 3172, -50, "g7-g4"},
	{"nine", 7, 3941, 200, "e3-e4"},
	{"nine", 8, 2396, 400, "d2-f2"},
	{"nine", 9, 3884, -200, "a7-a4"},
	{"nine", 10, 5631, 700, "d5-d6"},
	{"nine", 11, 3467, -200, "g1-d1"},
	{"nine", 12, 3651, 450, "c4-c5"},
	{"twelve", 1, 5721, 100, "d2"},
	{"twelve", 2, 6219, 0, "g7"},
	{"twelve", 3, 2592, 200, "a1"},
	{"twelve", 4, 3317, 0, "xe5"},
	{"twelve", 5, 1394, 0, "xf4"},
	{"twelve", 6, 3321, 200, "e3"},
	{"twelve", 8, 4189, -550, "e5-e4"},
	{"twelve", 9, 3932, 50, "f6-e5"},
	{"twelve", 11, 4306, -600, "xd3"},
	{"twelve", 12, 3518, 300, "d5-c5"},
	{"nine-noflying", 10, 5629, 700, "d5-d6"},
	{"moulin-rouge", 1, 15629, 100, "f1"},
	{"moulin-rouge", 2, 30519, 100, "a2"},
	{"moulin-rouge", 6, 22475, 450, "r1-"},
	{"moulin-rouge", 8, 47459, -200, "r2+"},
	{"moulin-rouge", 12, 49887, -31991, "g1-h1"},
	{"three", 3, 42, 31997, "a3-b2"},
	{"three", 4, 829, -10, "b1-b2"},
}

func TestHandWeights_SearchTheTreeOfTheFirstEvaluation(t *testing.T) {
	for _, c := range handSearches {
		v := load(t, c.variant)
		g := engine.NewGame(v)
		if ok, err := g.PlayRandom(int(c.seed*4), rand.New(rand.NewPCG(c.seed, 9))); !ok || err != nil {
			t.Fatalf("%s seed %d: the random game ended (%v)", c.variant, c.seed, err)
		}
		s := newSearcher(t, v, Options{HashMB: 2, Weights: handWeights()})
		res, err := s.Search(context.Background(), g, Limits{Depth: 8}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Nodes != c.nodes || res.Score != c.score || v.FormatAction(res.Best) != c.best {
			t.Errorf("%s seed %d: %d nodes, score %d, best %s; want %d, %d, %s",
				c.variant, c.seed, res.Nodes, res.Score, v.FormatAction(res.Best), c.nodes, c.score, c.best)
		}
	}
}

// gamePositions are positions of v met in seeded random games: every
// position of n games that does not owe a removal and is not over.
func gamePositions(t *testing.T, v *engine.Variant, n int, seed uint64) []engine.Position {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []engine.Position
	var buf [engine.MaxActions]engine.Action
	for range n {
		g := engine.NewGame(v)
		for int(g.Pos.Ply) < 300 {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			if !g.Pos.Removing() {
				out = append(out, g.Pos)
			}
			legal := v.Legal(&g.Pos, buf[:0])
			if len(legal) == 0 {
				break
			}
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func TestHandWeights_EvaluateAsTheFirstEvaluation(t *testing.T) {
	for _, name := range []string{"nine", "twelve", "nine-noflying", "moulin-rouge", "three", "four-square"} {
		v := load(t, name)
		s := newSearcher(t, v, Options{HashMB: 1, Weights: handWeights()})
		if !s.ev.hand {
			t.Fatal("the hand set is not evaluated by the first evaluation")
		}
		s.ev.hand = false // the weighted features
		for i, p := range gamePositions(t, v, 40, 7) {
			if got, want := s.ev.evaluate(&p, 3), s.ev.handEvaluate(&p, 3); got != want {
				t.Fatalf("%s position %d %s: %d, want %d", name, i, v.FormatPosition(&p), got, want)
			}
		}
	}
}

func TestEvaluate_SameForEitherColour(t *testing.T) {
	v := load(t, "nine")
	s := newSearcher(t, v, Options{HashMB: 1})
	for i, p := range gamePositions(t, v, 30, 3) {
		q := p
		q.Pieces[0], q.Pieces[1] = p.Pieces[1], p.Pieces[0]
		q.Hand[0], q.Hand[1] = p.Hand[1], p.Hand[0]
		q.Side = 1 - p.Side
		if got, want := s.ev.evaluate(&q, 0), s.ev.evaluate(&p, 0); got != want {
			t.Fatalf("position %d %s: %d with the colours swapped, %d before", i, v.FormatPosition(&p), got, want)
		}
	}
}

// The evaluation's written-out sum must name every positional feature
// once: weighing each alone gives that feature's value.
func TestEvaluate_SumsEveryPositionalFeature(t *testing.T) {
	v := load(t, "nine")
	ps := gamePositions(t, v, 20, 5)
	for f := FTempo; f < NumFeatures; f++ {
		w := &Weights{Name: f.String(), Grain: 1}
		for ph := range NumPhases {
			w.W[ph][f] = 1
		}
		e := newEvaluator(v, w)
		feat, err := NewFeaturizer(v)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			var pt Point
			feat.Point(&ps[i], &pt)
			if pt.Lost {
				continue
			}
			if got := e.evaluate(&ps[i], 0); got != pt.X[f] {
				t.Fatalf("%s alone: %d, want the feature's value %d", f, got, pt.X[f])
			}
		}
	}
}
