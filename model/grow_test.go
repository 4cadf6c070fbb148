package model

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func runForward(t *testing.T, n *Network, x []float32, batch int) (policy, outcome []float32) {
	t.Helper()
	policy = make([]float32, batch*n.Arch.Actions)
	outcome = make([]float32, batch*n.Arch.Outcomes)
	if err := NewForward(n, batch).Run(x, batch, policy, outcome); err != nil {
		t.Fatal(err)
	}
	return policy, outcome
}

func TestGrowComputesTheSameFunction(t *testing.T) {
	n := randomNetwork(t, Arch{Inputs: 13, Width: 7, Blocks: 1, Actions: 11, Outcomes: 3}, 4)
	checkGrowsAsTheSameFunction(t, n, 9, 1e-6, []Config{{Width: 7, Blocks: 1}, {Width: 12, Blocks: 1}, {Width: 7, Blocks: 3}, {Width: 20, Blocks: 2}})
}

// checkGrowsAsTheSameFunction grows n to each trunk of cs and checks that
// the grown network is valid, of that trunk and n's kind, and computes n's
// logits on a random batch to within tol.
func checkGrowsAsTheSameFunction(t *testing.T, n *Network, batch int, tol float64, cs []Config) {
	t.Helper()
	x := randomSlice(rand.New(rand.NewPCG(1, 2)), batch*n.Arch.Inputs)
	wantP, wantO := runForward(t, n, x, batch)
	for _, c := range cs {
		g, err := Grow(n, c, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("%s: grow to %+v: %v", n.Variant, c, err)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: grow to %+v: %v", n.Variant, c, err)
		}
		if g.Arch.Width != c.Width || g.Arch.Blocks != c.Blocks || g.Arch.Kind != n.Arch.Kind {
			t.Fatalf("%s: grow to %+v: arch %v", n.Variant, c, g.Arch)
		}
		gotP, gotO := runForward(t, g, x, batch)
		if d := maxRelDiff(gotP, wantP); d > tol {
			t.Errorf("%s: grow to %+v: policy logits moved by %g", n.Variant, c, d)
		}
		if d := maxRelDiff(gotO, wantO); d > tol {
			t.Errorf("%s: grow to %+v: outcome logits moved by %g", n.Variant, c, d)
		}
	}
}

// checkGrowsAlike checks that growing n to c again with rng seed (1, 1)
// draws g's weights: a network and its moving average grow alike.
func checkGrowsAlike(t *testing.T, n *Network, c Config, g *Network) {
	t.Helper()
	h, err := Grow(n, c, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range g.Params {
		for j := range p.Data {
			if p.Data[j] != h.Params[i].Data[j] {
				t.Fatalf("%s[%d]: two grows with the same seed differ", p.Name, j)
			}
		}
	}
}

// paramData is n's tensors' values, in the order of its Params.
func paramData(n *Network) [][]float32 {
	src := make([][]float32, len(n.Params))
	for i, p := range n.Params {
		src[i] = p.Data
	}
	return src
}

func TestGrowGivesTheAddedUnitsIncomingWeightsOnly(t *testing.T) {
	a := Arch{Inputs: 5, Width: 4, Blocks: 1, Actions: 6, Outcomes: 3}
	n := randomNetwork(t, a, 1)
	g, err := Grow(n, Config{Width: 6, Blocks: 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	p := g.Params
	col := func(w []float32, out, k int) (nonzero int) {
		for r := 0; r < len(w)/out; r++ {
			if w[r*out+k] != 0 {
				nonzero++
			}
		}
		return nonzero
	}
	row := func(w []float32, out, r int) (nonzero int) {
		for _, v := range w[r*out : (r+1)*out] {
			if v != 0 {
				nonzero++
			}
		}
		return nonzero
	}
	// Added unit 5 of the input layer and of block 0 takes weights from
	// every input.
	if c := col(p[0].Data, 6, 5); c != 5 {
		t.Errorf("input layer: added unit has %d of 5 incoming weights", c)
	}
	if c := col(p[2].Data, 6, 5); c != 6 {
		t.Errorf("block 0 fc1: added unit has %d of 6 incoming weights", c)
	}
	// ... and sends nothing to the old units, nor to the heads.
	for _, i := range []int{2, 4} {
		w := p[i].Data
		for k := 0; k < 4; k++ {
			if w[5*6+k] != 0 || w[4*6+k] != 0 {
				t.Errorf("%s: added unit feeds old unit %d", p[i].Name, k)
			}
		}
	}
	if r := row(p[10].Data, 6, 5); r != 0 {
		t.Errorf("policy head: added unit sends %d weights", r)
	}
	// The added block: a random first layer, a zero second one.
	if c := col(p[6].Data, 6, 0); c != 6 {
		t.Errorf("added block fc1: %d of 6 incoming weights of unit 0", c)
	}
	for _, v := range p[8].Data {
		if v != 0 {
			t.Fatal("added block fc2 is not zero")
		}
	}
	// The same rng, the same added weights: a network and its moving
	// average grow alike.
	checkGrowsAlike(t, n, Config{Width: 6, Blocks: 2}, g)
}

func TestGrowRefusesToShrink(t *testing.T) {
	n := randomNetwork(t, Arch{Inputs: 5, Width: 8, Blocks: 2, Actions: 6, Outcomes: 3}, 1)
	for _, c := range []Config{{Width: 4, Blocks: 2}, {Width: 8, Blocks: 1}, {Width: 9000, Blocks: 2}} {
		if _, err := Grow(n, c, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("grow to %+v: no error", c)
		}
	}
	a := n.Arch
	b := a
	b.Actions++
	if err := a.GrowsTo(b); err == nil || !strings.Contains(err.Error(), "only the trunk") {
		t.Errorf("another action space: %v", err)
	}
}

func TestEmbedParamsKeepsEveryValueInPlace(t *testing.T) {
	a := Arch{Inputs: 3, Width: 2, Blocks: 1, Actions: 4, Outcomes: 3}
	b := Arch{Inputs: 3, Width: 3, Blocks: 2, Actions: 4, Outcomes: 3}
	n := randomNetwork(t, a, 2)
	src := paramData(n)
	dst, err := EmbedParams(a, b, src)
	if err != nil {
		t.Fatal(err)
	}
	// The policy head (tensor 6 of a, 10 of b): 2x4 rows into 3x4.
	for r := 0; r < 3; r++ {
		for k := 0; k < 4; k++ {
			want := float32(0)
			if r < 2 {
				want = src[6][r*4+k]
			}
			if dst[10][r*4+k] != want {
				t.Errorf("policy head [%d,%d] = %v, want %v", r, k, dst[10][r*4+k], want)
			}
		}
	}
	if _, err := EmbedParams(a, b, src[:3]); err == nil {
		t.Error("too few tensors: no error")
	}
}

// A graph network grows as an MLP does: wider channels at every point and
// more blocks, computing the same function, on a board without rotations
// and on one with them (whose rotation head also reads the channels).
func TestGrow_GraphNetworkComputesTheSameFunction(t *testing.T) {
	for _, variant := range []string{"nine", "moulin-rouge-3"} {
		v := mustVariant(t, variant)
		n := randomNetwork(t, NewArch(v, Config{Width: 6, Blocks: 1, Kind: KindGraph, Features: EncoderTactics}), 4)
		n.Variant = variant
		checkGrowsAsTheSameFunction(t, n, 5, 1e-5, []Config{{Width: 6, Blocks: 1}, {Width: 11, Blocks: 1}, {Width: 6, Blocks: 3}, {Width: 16, Blocks: 2}})
	}
}

// The added channels of a grown graph network read every channel and feed
// only added ones; an added block starts as the identity; the same rng
// draws the same added weights.
func TestGrow_GraphNetworkAddedChannelsReadAllAndFeedOnlyTheAdded(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 4, Blocks: 1, Kind: KindGraph})
	n := randomNetwork(t, a, 1)
	g, err := Grow(n, Config{Width: 6, Blocks: 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	p := g.Params
	at := func(i, r, k int) float32 { return p[i].Data[r*6+k] }
	fc1, fc2 := GraphBlock(0), GraphBlock(0)+2
	for r := range 4 * 6 {
		for k := range 6 {
			old := k < 4 && r%6 < 4
			for _, i := range []int{fc1, fc2} {
				switch w := at(i, r, k); {
				case old && w != n.Params[i].Data[(r/6*4+r%6)*4+k]:
					t.Fatalf("%s[%d,%d] = %v: an old weight moved", p[i].Name, r, k, w)
				case k < 4 && r%6 >= 4 && w != 0:
					t.Fatalf("%s[%d,%d] = %v: an added channel feeds an old one", p[i].Name, r, k, w)
				case k >= 4 && w == 0:
					t.Fatalf("%s[%d,%d] = 0: an added channel does not read every channel", p[i].Name, r, k)
				}
			}
		}
	}
	for k := 4; k < 6; k++ {
		for r := range a.Planes {
			if at(GraphInputPoint, r, k) == 0 {
				t.Fatalf("input.point.weight[%d,%d] = 0: an added channel does not read every plane", r, k)
			}
		}
	}
	pol, _, val := g.Arch.GraphHeads()
	for _, i := range []int{pol, val} {
		cols := p[i].Shape[1]
		for r := 4; r < 6; r++ {
			for k := range cols {
				if p[i].Data[r*cols+k] != 0 {
					t.Fatalf("%s: added channel %d feeds a head", p[i].Name, r)
				}
			}
		}
	}
	for _, w := range p[GraphBlock(1)+2].Data {
		if w != 0 {
			t.Fatal("the added block's second layer is not zero")
		}
	}
	checkGrowsAlike(t, n, Config{Width: 6, Blocks: 2}, g)
	// EmbedParams places a graph network's moments as Grow its weights.
	src := paramData(n)
	dst, err := EmbedParams(a, g.Arch, src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range dst {
		for j, w := range dst[i] {
			if w != 0 && w != p[i].Data[j] {
				t.Fatalf("EmbedParams: %s[%d] = %v where Grow has %v", p[i].Name, j, w, p[i].Data[j])
			}
		}
	}
	if _, err := EmbedParams(a, g.Arch, src[:3]); err == nil {
		t.Error("too few tensors: no error")
	}
}
