package onnx

import (
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// testVariants are the variants the export is checked on: the square
// board, the 3x3 board, and the rotating ring board with three players.
var testVariants = []string{"nine", "three", "moulin-rouge-3"}

// smallNet is the trunk of the tests' networks.
var smallNet = model.Config{Width: 48, Blocks: 2}

// smallGraph is the trunk of the tests' graph networks: 20 channels a
// point, not a multiple of the forward pass's padding to 8.
var smallGraph = model.Config{Width: 20, Blocks: 2, Kind: model.KindGraph}

// testTrunks are the kinds of network the export is checked on, each at
// a small size.
var testTrunks = []struct {
	kind  string
	trunk model.Config
}{{model.KindMLP, smallNet}, {model.KindGraph, smallGraph}}

// graph32x2 is the graph network of configs/experiments/graph.yaml.
var graph32x2 = model.Config{Width: 32, Blocks: 2, Features: model.EncoderTactics, Kind: model.KindGraph}

// randomNet is a small network for variant name with random weights and
// random (not zero) biases, so that every tensor matters.
func randomNet(t testing.TB, name string, seed uint64) (*engine.Variant, *model.Network) {
	t.Helper()
	return randomNetOf(t, name, smallNet, seed)
}

// randomNetOf is randomNet with trunk c.
func randomNetOf(t testing.TB, name string, c model.Config, seed uint64) (*engine.Variant, *model.Network) {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	n, err := model.New(v.Name, model.NewArch(v, c), rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range n.Params {
		if !p.IsWeight() {
			for i := range p.Data {
				p.Data[i] = float32(rng.NormFloat64() * 0.2)
			}
		}
	}
	return v, n
}

// positionFeatures encodes batch positions of v met in random play from
// the start (a new game whenever one ends) with the encoder enc, rows of
// model.FeatureSize(v, enc).
func positionFeatures(t testing.TB, v *engine.Variant, enc, batch int, seed uint64) []float32 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	f := model.FeatureSize(v, enc)
	x := make([]float32, batch*f)
	buf := make([]engine.Action, 0, engine.MaxActions)
	p := v.Start()
	for i := 0; i < batch; i++ {
		model.Encode(v, enc, &p, i%3, x[i*f:(i+1)*f])
		for k := 0; k < 1+rng.IntN(4); k++ {
			legal := v.Legal(&p, buf)
			if len(legal) == 0 {
				p = v.Start()
				break
			}
			p = v.Apply(&p, legal[rng.IntN(len(legal))])
		}
	}
	return x
}

// goForward is model.Forward's answer for batch rows of x.
func goForward(t testing.TB, n *model.Network, x []float32, batch int) (policy, outcome []float32) {
	t.Helper()
	policy = make([]float32, batch*n.Arch.Actions)
	outcome = make([]float32, batch*n.Arch.Outcomes)
	if err := model.NewForward(n, batch).Run(x, batch, policy, outcome); err != nil {
		t.Fatal(err)
	}
	return policy, outcome
}

// maxAbsDiff is the largest |a[i]-b[i]|.
func maxAbsDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, float64(a[i]-b[i]), float64(b[i]-a[i]))
	}
	return d
}
