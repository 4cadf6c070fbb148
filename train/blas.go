package train

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/millzero/millzero/model"
)

// blas32 is what a trainer asks of a BLAS: the float32 matrix product and
// inner product, for Gorgonia's ops on the first run (through the
// trainer's fastEngine) and for the kernels after it, so both compute
// alike. kernelBLAS is the trainer's own; gonum's Implementation is the
// reference it is measured against (BenchmarkTrainStepGonumBLAS).
type blas32 interface {
	Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	Sdot(n int, x []float32, incX int, y []float32, incY int) float32
}

// kernelBLAS is a gonum BLAS whose single-precision matrix multiply
// (Sgemm) runs on the AVX2 FMA kernels of inference
// (model.GemmAccStrided), on the calling goroutine: a trainer splits its
// products over the cores itself (splitter). The kernels read A
// transposed in place; B transposed is first copied to row-major scratch,
// O(k·n) against the O(m·n·k) product. Every other routine is gonum's. It
// is safe for concurrent use.
type kernelBLAS struct {
	gonum.Implementation
	scratch sync.Pool // *[]float32
}

// newKernelBLAS returns the kernel-backed BLAS.
func newKernelBLAS() *kernelBLAS {
	return &kernelBLAS{scratch: sync.Pool{New: func() any { s := make([]float32, 0, 1<<16); return &s }}}
}

func (b *kernelBLAS) get(n int) *[]float32 {
	s := b.scratch.Get().(*[]float32)
	if cap(*s) < n {
		*s = make([]float32, n)
	}
	*s = (*s)[:n]
	return s
}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C, where op(A) is m×k and
// op(B) is k×n, all row-major.
func (b *kernelBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 || alpha != alpha || (tA != blas.NoTrans && tA != blas.Trans) || (tB != blas.NoTrans && tB != blas.Trans) {
		b.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
		return
	}
	checkGemm(tA, tB, m, n, k, a, lda, bm, ldb, c, ldc)
	// A transposed is read in place by the kernels (rs = 1, ks = lda); B
	// transposed is copied.
	rs, ks := lda, 1
	if tA == blas.Trans {
		rs, ks = 1, lda
	}
	var ys *[]float32
	if tB == blas.Trans {
		ys = b.get(k * n)
		model.Transpose(*ys, bm, k, n, ldb)
		bm, ldb = *ys, n
	}
	// beta 0: C is set, never read (BLAS's rule, and no pass to clear it
	// first: with a graph network's small k that cost as much as the
	// product).
	set := beta == 0
	if !set && beta != 1 {
		for i := 0; i < m; i++ {
			ci := c[i*ldc : i*ldc+n]
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
	switch {
	case b.structured(m, n, k, alpha, a, rs, ks, bm, ldb, c, ldc, set):
	case alpha == 1 && tA == blas.Trans && lda*k >= packMin:
		b.packed(m, n, k, a, lda, bm, ldb, c, ldc, set)
	case alpha == 1 && set:
		model.GemmSetStrided(m, n, k, a, rs, ks, bm, ldb, c, ldc)
	case alpha == 1:
		model.GemmAccStrided(m, n, k, a, rs, ks, bm, ldb, c, ldc)
	default:
		ps := b.get(m * n)
		p := *ps
		model.GemmSetStrided(m, n, k, a, rs, ks, bm, ldb, p, n)
		for i := 0; i < m; i++ {
			ci, pi := c[i*ldc:i*ldc+n], p[i*n:(i+1)*n]
			if set {
				for j := range ci {
					ci[j] = alpha * pi[j]
				}
				continue
			}
			for j := range ci {
				ci[j] += alpha * pi[j]
			}
		}
		b.scratch.Put(ps)
	}
	if ys != nil {
		b.scratch.Put(ys)
	}
}

// packMin is the size, in values, of a stored A (k rows of lda) from
// which Sgemm multiplies its transpose in packed slices (kernelBLAS.packed).
// The size rather than op(A)'s rows decides, so that a product split over
// goroutines by rows (splitter), whose parts keep A's lda, takes the path
// the whole product takes and sums in the same order, bit for bit.
const packMin = 3 << 17

// packDepth is the rows of A that kernelBLAS.packed transposes at a time.
const packDepth = 256

// packed adds op(A)·B to C (set: sets C to it), op(A) = Aᵀ m×k, A stored
// k×lda, B k×n row-major: packDepth rows of A at a time transposed into
// row-major scratch, then multiplied. Read in place, A's transpose costs a
// cache line a row of A for every six of op(A)'s rows; with a graph
// network's weight gradient (k the points times the batch, 6,144; A 3 MB
// at 32x2, 6 MB at 64x2) that ran at a third of the kernels' speed, and
// the slices of 256 rows, in cache with B's, run at their speed. (Below
// packMin the lines stay in cache and packing cost more than it gained,
// as with an MLP's batch-long k of 256 to 1,024.) The slices' sums are
// added in turn, so the result differs from the unpacked product's in
// rounding.
func (b *kernelBLAS) packed(m, n, k int, a []float32, lda int, bm []float32, ldb int, c []float32, ldc int, set bool) {
	ps := b.get(m * packDepth)
	p := *ps
	for p0 := 0; p0 < k; p0 += packDepth {
		d := min(packDepth, k-p0)
		model.Transpose(p, a[p0*lda:], m, d, lda)
		if set && p0 == 0 {
			model.GemmSetStrided(m, n, d, p, d, 1, bm[p0*ldb:], ldb, c, ldc)
		} else {
			model.GemmAccStrided(m, n, d, p, d, 1, bm[p0*ldb:], ldb, c, ldc)
		}
	}
	b.scratch.Put(ps)
}

// structuredMax is the most rows and columns of an op(A) that
// kernelBLAS.structured looks into.
const structuredMax = 64

// structured adds alpha·op(A)·B to C (set: sets C to it), op(A) m×k at
// a[i·rs + p·ks] and B k×n row-major, and reports true, when op(A) is a small matrix of one of
// two structures, as a graph network's mixing matrices and their
// transposes are (train/graphnet.go): at most a third of it nonzero (the
// neighbours' and the lines' means), each row of C then the weighted sum
// of the few rows of B its nonzeros pick; or every row alike (the board's
// mean), one such row computed and added to every row of C. Either costs
// the rows of B read rather than m·k·n multiply-adds: the dense kernels
// spent a third of a graph network's training step on these products.
// Else it does nothing and reports false. (A zero of A skipped is not
// multiplied by B, so an infinite or NaN value of B reaches only the
// rows whose weights read it.)
func (b *kernelBLAS) structured(m, n, k int, alpha float32, a []float32, rs, ks int, bm []float32, ldb int, c []float32, ldc int, set bool) bool {
	if m > structuredMax || k > structuredMax || n < 32 {
		return false
	}
	nonzero, alike := 0, m > 1
	for i := range m {
		for p := range k {
			v := a[i*rs+p*ks]
			if v != 0 {
				nonzero++
			}
			if alike && v != a[p*ks] {
				alike = false
			}
		}
	}
	var from [structuredMax]int
	var w [structuredMax]float32
	row := func(i int) []int {
		cnt := 0
		for p := range k {
			if v := a[i*rs+p*ks]; v != 0 {
				from[cnt], w[cnt] = p, alpha*v
				cnt++
			}
		}
		return from[:cnt]
	}
	switch {
	case 3*nonzero <= m*k:
		for i := range m {
			if set {
				model.SetWeightedRows(c[i*ldc:i*ldc+n], bm, row(i), w[:], ldb)
			} else {
				model.AddWeightedRows(c[i*ldc:i*ldc+n], bm, row(i), w[:], ldb)
			}
		}
	case alike:
		ps := b.get(n)
		p := *ps
		model.SetWeightedRows(p, bm, row(0), w[:], ldb)
		from[0], w[0] = 0, 1
		for i := range m {
			if set {
				copy(c[i*ldc:i*ldc+n], p)
			} else {
				model.AddWeightedRows(c[i*ldc:i*ldc+n], p, from[:1], w[:1], n)
			}
		}
		b.scratch.Put(ps)
	default:
		return false
	}
	return true
}

// checkGemm panics, as gonum does, on operands too short for their shapes:
// the BLAS interface has no error return.
func checkGemm(tA, tB blas.Transpose, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ar, ac := m, k
	if tA == blas.Trans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB == blas.Trans {
		br, bc = n, k
	}
	if lda < ac || ldb < bc || ldc < n || len(a) < (ar-1)*lda+ac || len(b) < (br-1)*ldb+bc || len(c) < (m-1)*ldc+n {
		panic("train: Sgemm: operand shorter than its shape")
	}
}
