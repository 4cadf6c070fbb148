package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/millzero/millzero/model"
)

func TestSgemmMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fast := newKernelBLAS()
	for _, c := range []struct {
		tA, tB      blas.Transpose
		m, n, k     int
		alpha, beta float32
		padA, padB  int
		padC        int
	}{
		{blas.NoTrans, blas.NoTrans, 7, 5, 3, 1, 0, 0, 0, 0},
		{blas.NoTrans, blas.NoTrans, 64, 256, 97, 1, 0, 0, 0, 0},
		{blas.Trans, blas.NoTrans, 97, 256, 64, 1, 0, 0, 0, 0},
		{blas.NoTrans, blas.Trans, 64, 97, 256, 1, 0, 0, 0, 0},
		{blas.Trans, blas.Trans, 33, 17, 9, 0.5, 2, 3, 1, 4},
		{blas.NoTrans, blas.NoTrans, 300, 300, 300, 1, 1, 0, 0, 0},
		{blas.NoTrans, blas.Trans, 1, 624, 256, -2, 0.25, 1, 2, 3},
		// A transposed in packed slices of packDepth rows (a stored A of
		// packMin values or more), k a multiple of them or not
		{blas.Trans, blas.NoTrans, 128, 64, 6144, 1, 0, 0, 0, 0},
		{blas.Trans, blas.NoTrans, 131, 70, 3100, 1, 1, 3, 1, 2},
		{blas.Trans, blas.Trans, 67, 33, 6000, 1, 0, 61, 2, 5},
	} {
		t.Run(fmt.Sprintf("%v%v_%dx%dx%d", c.tA, c.tB, c.m, c.n, c.k), func(t *testing.T) {
			ar, ac := c.m, c.k
			if c.tA == blas.Trans {
				ar, ac = c.k, c.m
			}
			br, bc := c.k, c.n
			if c.tB == blas.Trans {
				br, bc = c.n, c.k
			}
			lda, ldb, ldc := ac+c.padA, bc+c.padB, c.n+c.padC
			a := randomSlice(rng, ar*lda)
			b := randomSlice(rng, br*ldb)
			want := randomSlice(rng, c.m*ldc)
			if c.beta == 0 {
				nanProduct(want, c.m, c.n, ldc)
			}
			got := append([]float32(nil), want...)
			gonum.Implementation{}.Sgemm(c.tA, c.tB, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, want, ldc)
			fast.Sgemm(c.tA, c.tB, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, got, ldc)
			// Both sum in float32, in different orders: the rounding of
			// a sum of k terms grows about as the root of k.
			if d := maxRelDiff(got, want); d > 1e-4*math.Max(1, math.Sqrt(float64(c.k)/256)) {
				t.Errorf("max relative difference from gonum %g", d)
			}
		})
	}
}

// nanProduct fills the m×n cells of c (leading dimension ldc) with NaN:
// with beta 0 a BLAS sets them without reading them, and a NaN read shows.
func nanProduct(c []float32, m, n, ldc int) {
	for i := range m {
		for j := range n {
			c[i*ldc+j] = float32(math.NaN())
		}
	}
}

// TestSgemm_StructuredOperandsMatchGonum: a graph network's mixing
// matrices of nine (the neighbours' and the lines' means, sparse, and the
// board's, every row alike) and random matrices of those structures, as A
// and transposed, with any alpha and beta, padded, and widths around the
// kernels' blocks, against gonum's dense product. Each case is checked to
// take the structured path it is meant to.
func TestSgemm_StructuredOperandsMatchGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	v := mustVariant(t, "nine")
	arch := model.NewArch(v, model.Config{Kind: model.KindGraph, Width: 8, Blocks: 1, Features: 3})
	nm, lm, mm := arch.Relations()
	p := arch.Points
	sparse := randomSlice(rng, 20*30)
	for i := range sparse {
		if i%4 != 0 {
			sparse[i] = 0
		}
	}
	alike := make([]float32, 5*9)
	row := randomSlice(rng, 9)
	for i := range 5 {
		copy(alike[i*9:], row)
	}
	fast := newKernelBLAS()
	for _, c := range []struct {
		name       string
		a          []float32
		ar, ac     int
		tA         blas.Transpose
		n          int
		alpha      float32
		beta       float32
		padB, padC int
		structured bool
	}{
		{"neighbours", nm, p, p, blas.NoTrans, 256, 1, 0, 0, 0, true},
		{"neighbours transposed", nm, p, p, blas.Trans, 256, 1, 1, 0, 0, true},
		{"lines", lm, p, p, blas.NoTrans, 203, 1, 0, 3, 1, true},
		{"lines transposed", lm, p, p, blas.Trans, 75, -0.5, 0.25, 0, 2, true},
		{"board", mm, p, p, blas.NoTrans, 256, 1, 0, 0, 0, true},
		{"board transposed", mm, p, p, blas.Trans, 41, 2, 1, 1, 1, true},
		{"random sparse", sparse, 20, 30, blas.NoTrans, 100, 1, 0.5, 0, 0, true},
		{"random sparse transposed", sparse, 20, 30, blas.Trans, 100, 1, 0, 2, 0, true},
		{"rows alike", alike, 5, 9, blas.NoTrans, 64, 0.75, 0, 0, 0, true},
		{"dense", randomSlice(rng, 12*12), 12, 12, blas.NoTrans, 64, 1, 0, 0, 0, false},
		{"narrow", nm, p, p, blas.NoTrans, 16, 1, 0, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, k := c.ar, c.ac
			if c.tA == blas.Trans {
				m, k = c.ac, c.ar
			}
			ldb, ldc := c.n+c.padB, c.n+c.padC
			b := randomSlice(rng, k*ldb)
			want := randomSlice(rng, m*ldc)
			if c.beta == 0 {
				nanProduct(want, m, c.n, ldc)
			}
			got := append([]float32(nil), want...)
			gonum.Implementation{}.Sgemm(c.tA, blas.NoTrans, m, c.n, k, c.alpha, c.a, c.ac, b, ldb, c.beta, want, ldc)
			fast.Sgemm(c.tA, blas.NoTrans, m, c.n, k, c.alpha, c.a, c.ac, b, ldb, c.beta, got, ldc)
			if d := maxRelDiff(got, want); d > 1e-4 {
				t.Errorf("max relative difference from gonum %g", d)
			}
			rs, ks := c.ac, 1
			if c.tA == blas.Trans {
				rs, ks = 1, c.ac
			}
			scratch := make([]float32, m*ldc)
			if got := fast.structured(m, c.n, k, 1, c.a, rs, ks, b, ldb, scratch, ldc, false); got != c.structured {
				t.Errorf("structured path taken %v, want %v", got, c.structured)
			}
		})
	}
}
