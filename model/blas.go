package model

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gorgonia.org/gorgonia"

	// Gorgonia's dependency go4.org/unsafe/assume-no-moving-gc panics at
	// start on Go 1.26 unless this newer version is linked in.
	_ "go4.org/unsafe/assume-no-moving-gc"
)

// BLAS is a gonum BLAS whose single-precision matrix multiply (Sgemm), the
// one Gorgonia's float32 matrix products call, runs on the AVX2 FMA
// kernels of gemmAcc, split by rows over up to GOMAXPROCS goroutines when
// large. A transposed operand is first copied to contiguous row-major
// scratch, which costs O(m·k) or O(k·n) against the O(m·n·k) product.
// Every other routine is gonum's. It is safe for concurrent use.
type BLAS struct {
	gonum.Implementation
	scratch sync.Pool // *[]float32
}

// NewBLAS returns the kernel-backed BLAS.
func NewBLAS() *BLAS {
	return &BLAS{scratch: sync.Pool{New: func() any { s := make([]float32, 0, 1<<16); return &s }}}
}

// UseFastBLAS makes Gorgonia and its tensor package multiply float32
// matrices with the kernel-backed BLAS. It changes a process-wide setting
// of Gorgonia, so call it once at start (the trainer does).
func UseFastBLAS() { gorgonia.Use(NewBLAS()) }

// parallelMACs is the size of product, in multiply-adds, from which Sgemm
// splits the rows over goroutines.
const parallelMACs = 1 << 18

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
	if k == 0 || alpha == 0 || alpha != alpha || (tA != blas.NoTrans && tA != blas.Trans) || (tB != blas.NoTrans && tB != blas.Trans) {
		b.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
		return
	}
	checkGemm(tA, tB, m, n, k, a, lda, bm, ldb, c, ldc)
	var xs, ys *[]float32
	if tA == blas.Trans {
		xs = b.transpose(m, k, a, lda)
		a, lda = *xs, k
	}
	if tB == blas.Trans {
		ys = b.transpose(k, n, bm, ldb)
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
		gemmParallel(m, n, k, a, lda, bm, ldb, c, ldc)
	} else {
		ps := b.get(m * n)
		p := *ps
		clear(p)
		gemmParallel(m, n, k, a, lda, bm, ldb, p, n)
		for i := 0; i < m; i++ {
			ci, pi := c[i*ldc:i*ldc+n], p[i*n:(i+1)*n]
			for j := range ci {
				ci[j] += alpha * pi[j]
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

// transpose copies xᵀ, rows×cols, from x (cols×rows, leading dimension
// ld) into pooled scratch.
func (b *BLAS) transpose(rows, cols int, x []float32, ld int) *[]float32 {
	s := b.get(rows * cols)
	d := *s
	for j := 0; j < cols; j++ {
		for i, v := range x[j*ld : j*ld+rows] {
			d[i*cols+j] = v
		}
	}
	return s
}

// gemmParallel is gemmAcc with the rows split over up to GOMAXPROCS
// goroutines, in multiples of the kernel's 6 rows, when the product is
// large enough to pay for them.
func gemmParallel(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 || m < 12 || m*n*k < parallelMACs {
		gemmAcc(m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	procs = min(procs, m/6)
	per := (m/procs + 5) / 6 * 6
	var wg sync.WaitGroup
	for lo := 0; lo < m; lo += per {
		hi := min(lo+per, m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			gemmAcc(hi-lo, n, k, a[lo*lda:], lda, b, ldb, c[lo*ldc:], ldc)
		}()
	}
	wg.Wait()
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
