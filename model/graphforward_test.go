package model

import (
	"fmt"
	"math"
	"testing"

	"github.com/millzero/millzero/engine"
)

// graphReference evaluates graph network n, a network for v, on one
// position's features x straight from graph.go's specification, in
// float64 and with every matrix written out: the policy logits in the
// order of v's action space, the outcome logits and, with a score head
// (heads.go), the mean material difference of its softmax (NaN without).
func graphReference(v *engine.Variant, n *Network, x []float32) (policy, outcome []float64, score float64) {
	a := n.Arch
	P, W := a.Points, a.Width
	par := func(i int) []float32 { return n.Params[i].Data }
	// affine is X·w + bias for the rows of X, w in × out row-major.
	affine := func(X [][]float64, w, bias []float32, out int) [][]float64 {
		Y := make([][]float64, len(X))
		for r, row := range X {
			Y[r] = make([]float64, out)
			for c := range out {
				s := float64(bias[c])
				for i, xi := range row {
					s += xi * float64(w[i*out+c])
				}
				Y[r][c] = s
			}
		}
		return Y
	}
	relu := func(X [][]float64) [][]float64 {
		for _, row := range X {
			for c := range row {
				row[c] = math.Max(row[c], 0)
			}
		}
		return X
	}
	// matmul is the P×P relation r times X (P rows).
	nm, lm, mm := a.Relations()
	matmul := func(r []float32, X [][]float64) [][]float64 {
		Y := make([][]float64, P)
		for p := range P {
			Y[p] = make([]float64, len(X[0]))
			for q := range P {
				for c := range Y[p] {
					Y[p][c] += float64(r[p*P+q]) * X[q][c]
				}
			}
		}
		return Y
	}
	gather := func(H [][]float64) [][]float64 {
		N, L, M := matmul(nm, H), matmul(lm, H), matmul(mm, H)
		G := make([][]float64, P)
		for p := range P {
			G[p] = append(append(append(append([]float64(nil), H[p]...), N[p]...), L[p]...), M[p]...)
		}
		return G
	}
	// Inputs: each point's planes, the rest of the features broadcast.
	planes := FeaturePlanes(v, a.Encoder)
	isPlane := make([]bool, len(x))
	for _, o := range planes {
		for p := range P {
			isPlane[o+p] = true
		}
	}
	var xg []float64
	for f, in := range x {
		if !isPlane[f] {
			xg = append(xg, float64(in))
		}
	}
	X := make([][]float64, P)
	for p := range P {
		for _, o := range planes {
			X[p] = append(X[p], float64(x[o+p]))
		}
		X[p] = append(X[p], xg...)
	}
	inW := append(append([]float32(nil), par(GraphInputPoint)...), par(GraphInputGlobal)...)
	H := relu(affine(X, inW, par(GraphInputBias), W))
	for b := range a.Blocks {
		k := GraphBlock(b)
		U := relu(affine(gather(H), par(k), par(k+1), W))
		T := affine(gather(U), par(k+2), par(k+3), W)
		for p := range P {
			for c := range W {
				H[p][c] += T[p][c]
			}
		}
		H = relu(H)
	}
	pol, rot, val := a.GraphHeads()
	Q := affine(H, par(pol), par(pol+1), graphPointHeads+2*GraphRank)
	mean := make([]float64, W)
	for p := range P {
		for c := range W {
			mean[c] += H[p][c] / float64(P)
		}
	}
	var rots []float64
	if rot >= 0 {
		rots = affine([][]float64{mean}, par(rot), par(rot+1), a.Rotations())[0]
	}
	for k := range a.Actions {
		act := v.ActionAt(k)
		var l float64
		switch act.Kind() {
		case engine.Place:
			l = Q[act.To()][0]
		case engine.Remove:
			l = Q[act.To()][1]
		case engine.Move:
			f, t := Q[act.From()], Q[act.To()]
			l = f[2] + t[3]
			for j := range GraphRank {
				l += f[4+j] * t[4+GraphRank+j]
			}
		default:
			l = rots[k-2*P-P*P]
		}
		policy = append(policy, l)
	}
	hidden := relu(affine([][]float64{mean}, par(val), par(val+1), GraphValueHidden))
	outcome = affine(hidden, par(val+2), par(val+3), a.Outcomes)[0]
	score = math.NaN()
	if _, sc, _, _ := a.AuxHeads(); sc >= 0 {
		logits := affine(hidden, par(sc), par(sc+1), a.ScoreClasses())[0]
		var sum, mean float64
		for c, l := range logits {
			w := math.Exp(l)
			sum += w
			mean += w * float64(c-a.Topology.Pieces)
		}
		score = mean / sum
	}
	return policy, outcome, score
}

// closeTo reports whether got is want within 1e-4 relative (absolute
// below 1).
func closeTo(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= 1e-4*math.Max(1, math.Abs(want))
}

func TestGraphForward_MatchesTheSpecification(t *testing.T) {
	for _, c := range []struct {
		variant string
		cfg     Config
	}{
		{"nine", Config{Width: 24, Blocks: 2, Features: EncoderTactics}},
		{"three", Config{Width: 16, Blocks: 1, Features: EncoderBoard}},
		{"twelve", Config{Width: 20, Blocks: 2, Features: EncoderMill}}, // diagonal lines
		{"moulin-rouge", Config{Width: 32, Blocks: 1, Features: EncoderTactics}},
	} {
		v := mustVariant(t, c.variant)
		c.cfg.Kind = KindGraph
		a := NewArch(v, c.cfg)
		n := randomNetwork(t, a, 11)
		// A batch over graphChunk runs in two chunks, the last one short.
		for _, batch := range []int{1, 7, graphChunk + 9} {
			t.Run(fmt.Sprintf("%s/batch=%d", c.variant, batch), func(t *testing.T) {
				x := make([]float32, batch*a.Inputs)
				for i, p := range playedPositions(v, batch, uint64(batch)) {
					Encode(v, a.Encoder, &p, i%3, x[i*a.Inputs:(i+1)*a.Inputs])
				}
				f := NewForward(n, batch)
				pol, out := make([]float32, batch*a.Actions), make([]float32, batch*a.Outcomes)
				if err := f.Run(x, batch, pol, out); err != nil {
					t.Fatal(err)
				}
				g := NewForward(n, batch+3)
				tout := make([]float32, batch*a.Outcomes)
				if err := g.Trunk(x, batch, tout); err != nil {
					t.Fatal(err)
				}
				for r := range batch {
					wantP, wantO, _ := graphReference(v, n, x[r*a.Inputs:(r+1)*a.Inputs])
					for k, want := range wantO {
						if got := out[r*a.Outcomes+k]; !closeTo(got, want) {
							t.Fatalf("position %d: Run's outcome logit %d is %v, the specification's %v", r, k, got, want)
						}
						if got := tout[r*a.Outcomes+k]; !closeTo(got, want) {
							t.Fatalf("position %d: Trunk's outcome logit %d is %v, the specification's %v", r, k, got, want)
						}
					}
					for k, want := range wantP {
						if got := pol[r*a.Actions+k]; !closeTo(got, want) {
							t.Fatalf("position %d: Run's logit of action %d (%v) is %v, the specification's %v", r, k, v.ActionAt(k), got, want)
						}
						if got := g.Logit(r, k); !closeTo(got, want) {
							t.Fatalf("position %d: Logit of action %d (%v) is %v, the specification's %v", r, k, v.ActionAt(k), got, want)
						}
					}
				}
			})
		}
	}
}

// A network with a score head answers, beside the outcome, the mean
// material difference of the head's softmax, as the specification
// computes it, without allocating; one without the head answers NaN.
func TestGraphForward_ScoreIsTheScoreHeadsMean(t *testing.T) {
	for _, variant := range []string{"nine", "twelve"} {
		v := mustVariant(t, variant)
		a := NewArch(v, Config{Width: 24, Blocks: 2, Features: EncoderTactics, Kind: KindGraph})
		plain := NewForward(randomNetwork(t, a, 5), 1)
		if plain.HasScore() || !math.IsNaN(float64(plain.Score(0))) {
			t.Fatalf("%s: a network without a score head has one (%v)", variant, plain.Score(0))
		}
		a.Aux = AuxOwnership | AuxScore | AuxReply
		n := randomNetwork(t, a, 5)
		for _, batch := range []int{1, 7, graphChunk + 9} {
			x := make([]float32, batch*a.Inputs)
			for i, p := range playedPositions(v, batch, uint64(batch)) {
				Encode(v, a.Encoder, &p, i%3, x[i*a.Inputs:(i+1)*a.Inputs])
			}
			f := NewForward(n, batch)
			out := make([]float32, batch*a.Outcomes)
			if err := f.Trunk(x, batch, out); err != nil {
				t.Fatal(err)
			}
			if !f.HasScore() {
				t.Fatalf("%s: the score head is not read", variant)
			}
			spread := 0.0
			for r := range batch {
				_, _, want := graphReference(v, n, x[r*a.Inputs:(r+1)*a.Inputs])
				if got := f.Score(r); !closeTo(got, want) {
					t.Fatalf("%s, batch %d, position %d: score %v, the specification's %v", variant, batch, r, got, want)
				}
				spread = max(spread, math.Abs(want-float64(f.Score(0))))
			}
			if batch > 1 && spread == 0 {
				t.Fatalf("%s: every position scores %v: the test cannot tell positions apart", variant, f.Score(0))
			}
			if allocs := testing.AllocsPerRun(5, func() { _ = f.Trunk(x, batch, out) }); allocs != 0 {
				t.Fatalf("%s: Trunk with a score head allocates %v times", variant, allocs)
			}
		}
	}
}

func TestGraphForward_AllocatesNothing(t *testing.T) {
	v := mustVariant(t, "moulin-rouge")
	a := NewArch(v, Config{Width: 24, Blocks: 1, Features: EncoderTactics, Kind: KindGraph})
	f := NewForward(randomNetwork(t, a, 1), 40)
	x := make([]float32, 40*a.Inputs)
	p, o := make([]float32, 40*a.Actions), make([]float32, 40*a.Outcomes)
	if allocs := testing.AllocsPerRun(10, func() { f.Run(x, 40, p, o) }); allocs != 0 {
		t.Errorf("Run allocates %v times per call", allocs)
	}
	if allocs := testing.AllocsPerRun(10, func() { f.Trunk(x, 40, o); f.Logit(39, a.Actions-1); f.Logit(38, 30) }); allocs != 0 {
		t.Errorf("Trunk and Logit allocate %v times per call", allocs)
	}
	if err := f.Trunk(x, 41, o); err == nil {
		t.Error("Trunk of a batch over the capacity: no error")
	}
}

// TestGraphForward_AnswersEveryTurnOfTheBoardAlike: a graph network's
// structure commutes with the board's symmetries, so on nine men's
// morris, whatever its weights, the policy of a turned board is the
// turned policy and the outcome the same.
func TestGraphForward_AnswersEveryTurnOfTheBoardAlike(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 24, Blocks: 2, Features: EncoderTactics, Kind: KindGraph})
	n := randomNetwork(t, a, 5)
	if d := worstTurnedAnswer(t, v, n, true); d > 1e-4 {
		t.Errorf("the answers to turned boards differ by up to %g", d)
	}
	// The same comparison without mapping the actions: the turns do
	// move the policy, so the test above could fail.
	if d := worstTurnedAnswer(t, v, n, false); d < 1e-2 {
		t.Errorf("the policies of turned boards, unmapped, differ by only %g: the test cannot tell", d)
	}
}
