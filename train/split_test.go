package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// A product split over the splitter's goroutines, in blocks of rows, is
// the unsplit product bit for bit, A transposed or not, for row counts
// that split evenly, unevenly, and not at all (too small), and where the
// transpose is packed (a stored A of packMin values or more).
func TestSplitProductIsTheUnsplitProduct(t *testing.T) {
	s := newSplitter(3)
	defer s.close()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		m, n, k int
		tA      blas.Transpose
	}{
		{256, 64, 96, blas.NoTrans}, {256, 64, 96, blas.Trans}, {131, 70, 100, blas.NoTrans},
		{131, 70, 100, blas.Trans}, {12, 8, 8, blas.NoTrans}, {1000, 300, 2, blas.Trans},
		{128, 64, 6144, blas.Trans}, {256, 40, 3100, blas.Trans}, // A transposed in packed slices
	} {
		t.Run(fmt.Sprintf("%dx%dx%d/%c", tc.m, tc.n, tc.k, tc.tA), func(t *testing.T) {
			a, b := make([]float32, tc.m*tc.k), make([]float32, tc.k*tc.n)
			for i := range a {
				a[i] = rng.Float32() - 0.5
			}
			for i := range b {
				b[i] = rng.Float32() - 0.5
			}
			lda := tc.k
			if tc.tA == blas.Trans {
				lda = tc.m
			}
			want, got := make([]float32, tc.m*tc.n), make([]float32, tc.m*tc.n)
			j := gemmJob{blas: newKernelBLAS(), tA: tc.tA, tB: blas.NoTrans, m: tc.m, n: tc.n, k: tc.k, a: a, lda: lda, b: b, ldb: tc.n, c: want}
			j.run()
			j.c = got
			s.gemm(j)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("C[%d] is %v split, %v unsplit", i, got[i], want[i])
				}
			}
		})
	}
}
