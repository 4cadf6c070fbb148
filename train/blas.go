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
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(ci)
		case 1:
		default:
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
	if alpha == 1 {
		model.GemmAccStrided(m, n, k, a, rs, ks, bm, ldb, c, ldc)
	} else {
		ps := b.get(m * n)
		p := *ps
		clear(p)
		model.GemmAccStrided(m, n, k, a, rs, ks, bm, ldb, p, n)
		for i := 0; i < m; i++ {
			ci, pi := c[i*ldc:i*ldc+n], p[i*n:(i+1)*n]
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
