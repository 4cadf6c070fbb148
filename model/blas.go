package model

import (
	"sync"

	"github.com/viterin/vek/vek32"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gorgonia.org/gorgonia"

	// Gorgonia's dependency go4.org/unsafe/assume-no-moving-gc panics at
	// start on Go 1.26 unless this newer version is linked in.
	_ "go4.org/unsafe/assume-no-moving-gc"
)

// BLAS is a gonum BLAS whose single-precision matrix multiply (Sgemm), the
// one Gorgonia's float32 matrix products call, runs on vek's SIMD kernels
// (AVX2 FMA, no cgo). Transposed and strided operands are first copied to
// contiguous row-major scratch, which costs O(m·k + k·n) against the
// O(m·n·k) product. Every other routine is gonum's. It is safe for
// concurrent use.
type BLAS struct {
	gonum.Implementation
	scratch sync.Pool // *[]float32
}

// NewBLAS returns a vek-backed BLAS.
func NewBLAS() *BLAS {
	return &BLAS{scratch: sync.Pool{New: func() any { s := make([]float32, 0, 1<<16); return &s }}}
}

// UseFastBLAS makes Gorgonia and its tensor package multiply float32
// matrices with a vek-backed BLAS. It changes a process-wide setting of
// Gorgonia, so call it once at start (the trainer does).
func UseFastBLAS() { gorgonia.Use(NewBLAS()) }

func (b *BLAS) get(n int) *[]float32 {
	s := b.scratch.Get().(*[]float32)
	if cap(*s) < n {
		*s = make([]float32, n)
	}
	*s = (*s)[:n]
	return s
}

// contiguous returns op(x) as a dense row-major rows×cols matrix: x itself
// when it already is one, else a copy in scratch (which the caller must
// release when non-nil).
func (b *BLAS) contiguous(t blas.Transpose, rows, cols int, x []float32, ld int) ([]float32, *[]float32) {
	if t == blas.NoTrans {
		if ld == cols {
			return x[:rows*cols], nil
		}
		s := b.get(rows * cols)
		for i := 0; i < rows; i++ {
			copy((*s)[i*cols:(i+1)*cols], x[i*ld:i*ld+cols])
		}
		return *s, s
	}
	// op(x) = xᵀ: x is cols×rows with leading dimension ld.
	s := b.get(rows * cols)
	d := *s
	for j := 0; j < cols; j++ {
		row := x[j*ld : j*ld+rows]
		for i, v := range row {
			d[i*cols+j] = v
		}
	}
	return d, s
}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C, where op(A) is m×k and
// op(B) is k×n, all row-major.
func (b *BLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 || (tA != blas.NoTrans && tA != blas.Trans) || (tB != blas.NoTrans && tB != blas.Trans) {
		b.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
		return
	}
	checkGemm(tA, tB, m, n, k, a, lda, bm, ldb, c, ldc)
	x, xs := b.contiguous(tA, m, k, a, lda)
	y, ys := b.contiguous(tB, k, n, bm, ldb)
	if alpha == 1 && beta == 0 && ldc == n {
		vek32.MatMul_Into(c[:m*n], x, y, k)
	} else {
		ps := b.get(m * n)
		p := vek32.MatMul_Into(*ps, x, y, k)
		for i := 0; i < m; i++ {
			ci := c[i*ldc : i*ldc+n]
			pi := p[i*n : (i+1)*n]
			if beta == 0 {
				for j := range ci {
					ci[j] = alpha * pi[j]
				}
			} else {
				for j := range ci {
					ci[j] = alpha*pi[j] + beta*ci[j]
				}
			}
		}
		b.scratch.Put(ps)
	}
	if xs != nil {
		b.scratch.Put(xs)
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
		panic("model: Sgemm: operand shorter than its shape")
	}
}
