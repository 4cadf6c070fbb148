package train

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// splitter runs the blocks of rows of a matrix product on assisting
// goroutines started once, for a trainer of one graph on several cores.
// The trainer's BLAS (kernelBLAS) multiplies on the calling goroutine:
// splitting a product there would start goroutines for every product,
// which allocates. The kernels' products are split here instead: blocks
// of a multiple of 6 rows (the GEMM kernel's), only for products of
// splitMACs multiply-adds or more. Each block is the BLAS's own product
// of those rows, so the result is the unsplit product's (compile checks
// it, bit for bit).
// A splitter serves one goroutine at a time.
type splitter struct {
	procs int
	jobs  chan gemmJob
	wg    sync.WaitGroup
}

// splitMACs is the size of product, in multiply-adds, from which a
// splitter splits it.
const splitMACs = 1 << 18

// gemmJob is C = op(A)·op(B) through blas, op(A) m×k, op(B) k×n, all
// row-major.
type gemmJob struct {
	blas    blas32
	tA, tB  blas.Transpose
	m, n, k int
	a       []float32
	lda     int
	b       []float32
	ldb     int
	c       []float32
}

func (j gemmJob) run() {
	j.blas.Sgemm(j.tA, j.tB, j.m, j.n, j.k, 1, j.a, j.lda, j.b, j.ldb, 0, j.c, j.n)
}

// newSplitter starts procs-1 assisting goroutines; close ends them.
func newSplitter(procs int) *splitter {
	s := &splitter{procs: procs, jobs: make(chan gemmJob, procs)}
	for range procs - 1 {
		go s.help()
	}
	return s
}

func (s *splitter) help() {
	for j := range s.jobs {
		j.run()
		s.wg.Done()
	}
}

func (s *splitter) close() { close(s.jobs) }

// gemm runs j, split over the assisting goroutines if s is not nil and j is large
// enough, and returns when it is done.
func (s *splitter) gemm(j gemmJob) {
	if s == nil || s.procs < 2 || j.m < 12 || j.m*j.n*j.k < splitMACs {
		j.run()
		return
	}
	procs := min(s.procs, j.m/6)
	per := (j.m/procs + 5) / 6 * 6
	for lo := per; lo < j.m; lo += per {
		part := j
		part.m = min(lo+per, j.m) - lo
		if j.tA == blas.Trans {
			part.a = j.a[lo:] // the columns of the stored A
		} else {
			part.a = j.a[lo*j.lda:]
		}
		part.c = j.c[lo*j.n:]
		s.wg.Add(1)
		s.jobs <- part
	}
	handedOff()
	j.m = min(per, j.m)
	j.run()
	s.wg.Wait()
}
