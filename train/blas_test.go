package train

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
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
			got := append([]float32(nil), want...)
			gonum.Implementation{}.Sgemm(c.tA, c.tB, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, want, ldc)
			fast.Sgemm(c.tA, c.tB, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, got, ldc)
			if d := maxRelDiff(got, want); d > 1e-4 {
				t.Errorf("max relative difference from gonum %g", d)
			}
		})
	}
}
