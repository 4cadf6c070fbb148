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
// large. The kernels read A transposed in place; B transposed is first
// copied to row-major scratch, O(k·n) against the O(m·n·k) product.
// Every other routine is gonum's. It is safe for concurrent use.
type BLAS struct {
	gonum.Implementation
	threads int       // goroutines per product at most; 0: GOMAXPROCS
	scratch sync.Pool // *[]float32
}

// NewBLAS returns the kernel-backed BLAS, splitting large products over
// up to GOMAXPROCS goroutines.
func NewBLAS() *BLAS { return NewBLASThreads(0) }

// NewBLASThreads returns the kernel-backed BLAS splitting a product over
// at most threads goroutines (0: GOMAXPROCS; 1: each product on the
// calling goroutine, for callers that keep the cores busy themselves).
func NewBLASThreads(threads int) *BLAS {
	return &BLAS{threads: threads, scratch: sync.Pool{New: func() any { s := make([]float32, 0, 1<<16); return &s }}}
}

// UseFastBLAS makes Gorgonia and its tensor package multiply float32
// matrices with the kernel-backed BLAS. It changes a process-wide setting
// of Gorgonia, so call it once at start (the trainer does).
func UseFastBLAS() { gorgonia.Use(NewBLAS()) }

// UseFastBLASThreads is UseFastBLAS with NewBLASThreads(threads).
func UseFastBLASThreads(threads int) { gorgonia.Use(NewBLASThreads(threads)) }

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
	// A transposed is read in place by the kernels (rs = 1, ks = lda); B
	// transposed is copied.
	rs, ks := lda, 1
	if tA == blas.Trans {
		rs, ks = 1, lda
	}
	var ys *[]float32
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
		b.gemm(m, n, k, a, rs, ks, bm, ldb, c, ldc)
	} else {
		ps := b.get(m * n)
		p := *ps
		clear(p)
		b.gemm(m, n, k, a, rs, ks, bm, ldb, p, n)
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

// transpose copies xᵀ, rows×cols, from x (cols×rows, leading dimension
// ld) into pooled scratch.
func (b *BLAS) transpose(rows, cols int, x []float32, ld int) *[]float32 {
	s := b.get(rows * cols)
	Transpose(*s, x, rows, cols, ld)
	return s
}

// Transpose writes into dst, rows×cols row-major, the transpose of src
// (cols×rows, leading dimension ld), in tiles that stay in cache, eight
// rows by eight at a time with the AVX kernel where the CPU has it.
func Transpose(d, x []float32, rows, cols, ld int) {
	const tile = 32
	simd := haveKernels()
	for j0 := 0; j0 < cols; j0 += tile {
		j1 := min(j0+tile, cols)
		for i0 := 0; i0 < rows; i0 += tile {
			i1 := min(i0+tile, rows)
			if simd && j1-j0 == tile && i1-i0 == tile {
				_ = x[(j1-1)*ld+i1-1]
				_ = d[(i1-1)*cols+j1-1]
				for j := j0; j < j1; j += 8 {
					for i := i0; i < i1; i += 8 {
						transpose8x8(&x[j*ld+i], ld, &d[i*cols+j], cols)
					}
				}
				continue
			}
			for j := j0; j < j1; j++ {
				for i, v := range x[j*ld+i0 : j*ld+i1] {
					d[(i0+i)*cols+j] = v
				}
			}
		}
	}
}

// gemm is gemmParallel over at most b.threads goroutines.
func (b *BLAS) gemm(m, n, k int, a []float32, rs, ks int, bm []float32, ldb int, c []float32, ldc int) {
	procs := runtime.GOMAXPROCS(0)
	if b.threads > 0 {
		procs = min(procs, b.threads)
	}
	gemmParallel(procs, m, n, k, a, rs, ks, bm, ldb, c, ldc)
}

// gemmParallel is gemmAccStrided with the rows split over up to procs
// goroutines, in multiples of the kernel's 6 rows, when the product is
// large enough to pay for them.
func gemmParallel(procs, m, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int) {
	if procs < 2 || m < 12 || m*n*k < parallelMACs {
		gemmAccStrided(m, n, k, a, rs, ks, b, ldb, c, ldc)
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
			gemmAccStrided(hi-lo, n, k, a[lo*rs:], rs, ks, b, ldb, c[lo*ldc:], ldc)
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
