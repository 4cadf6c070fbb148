package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomNetwork is a network of architecture a with random weights and
// biases (biases too, unlike New, so that the tests see them).
func randomNetwork(t testing.TB, a Arch, seed uint64) *Network {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	n, err := New("test", a, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range n.Params {
		if !p.IsWeight() {
			for i := range p.Data {
				p.Data[i] = float32(rng.NormFloat64() * 0.1)
			}
		}
	}
	return n
}

func randomSlice(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// maxRelDiff is the largest |a-b| / max(1, |b|).
func maxRelDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		e := math.Abs(float64(a[i]-b[i])) / math.Max(1, math.Abs(float64(b[i])))
		if math.IsNaN(e) {
			return math.Inf(1) // a NaN compares false with any bound
		}
		d = max(d, e)
	}
	return d
}
