package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestGemmAccMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ m, n, k, pad int }{
		{1, 1, 1, 0}, {6, 16, 1, 0}, {7, 17, 3, 1}, {12, 64, 5, 0}, {5, 80, 9, 2},
		{1, 256, 256, 0}, {3, 32, 7, 0}, {8, 48, 10, 1}, {9, 16, 4, 0}, {2, 64, 3, 0}, {11, 144, 33, 2}, {13, 624, 256, 3}, {64, 256, 94, 0}, {256, 3, 256, 1}, {94, 256, 64, 5},
	} {
		matchesGonum(t, rng, c.m, c.n, c.k, c.pad, gemmAcc)
	}
}

// TestGemmNarrowMatchesGonum: the widths 8 more than a multiple of 16,
// whose last 8 columns run in kernel6x8, with rows left over from its
// blocks of 6, and the other widths, which gemmAcc takes whole.
func TestGemmNarrowMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ m, n, k, pad int }{
		{6, 8, 1, 0}, {6, 24, 24, 0}, {7, 24, 5, 1}, {13, 40, 72, 3}, {216, 24, 15, 0}, {5, 24, 8, 0}, {12, 28, 9, 2}, {18, 32, 24, 0}, {6, 20, 4, 1},
	} {
		matchesGonum(t, rng, c.m, c.n, c.k, c.pad, gemmNarrow)
	}
}

func BenchmarkGemmAcc(b *testing.B) {
	for _, c := range []struct{ m, n, k int }{{1, 256, 256}, {16, 256, 256}, {64, 256, 256}, {256, 256, 256}, {256, 624, 256}} {
		b.Run(fmt.Sprintf("%dx%dx%d", c.m, c.n, c.k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x, y, z := randomSlice(rng, c.m*c.k), randomSlice(rng, c.k*c.n), make([]float32, c.m*c.n)
			for b.Loop() {
				gemmAcc(c.m, c.n, c.k, x, c.k, y, c.n, z, c.n)
			}
			b.ReportMetric(float64(2*c.m*c.n*c.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkFMAPeak is the core's fp32 peak measured: a loop of twelve
// independent fused multiply-adds, 16-wide (AVX-512F) and 8-wide (AVX2
// FMA), where the CPU has them. PeakGFLOPSPerCore states the peak the
// benchmarks divide by; a core that splits a 512-bit multiply-add into
// two 256-bit halves (AMD's Zen 4) runs both loops at one rate.
func BenchmarkFMAPeak(b *testing.B) {
	for _, k := range []struct {
		name  string
		have  bool
		width int
		loop  func(n int)
	}{{"avx512", haveKernels512(), 16, fmaLoop512}, {"avx2", haveKernels(), 8, fmaLoop256}} {
		b.Run(k.name, func(b *testing.B) {
			if !k.have {
				b.Skip("not on this CPU")
			}
			const n = 1 << 20
			for b.Loop() {
				k.loop(n)
			}
			b.ReportMetric(float64(n)*12*2*float64(k.width)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func TestGemmAccStridedReadsATransposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ m, n, k, pad int }{{1, 16, 3, 0}, {7, 33, 5, 2}, {94, 256, 64, 1}, {13, 80, 256, 0}, {26, 24, 16, 1}, {32, 24, 768, 0}} {
		for _, narrow := range []bool{false, true} {
			lda := c.m + c.pad // A is stored k×m: op(A) = Aᵀ
			a := randomSlice(rng, (c.k-1)*lda+c.m)
			b := randomSlice(rng, c.k*c.n)
			want := randomSlice(rng, c.m*c.n)
			got := append([]float32(nil), want...)
			gonum.Implementation{}.Sgemm(blas.Trans, blas.NoTrans, c.m, c.n, c.k, 1, a, lda, b, c.n, 1, want, c.n)
			if narrow {
				GemmNarrowStrided(c.m, c.n, c.k, a, 1, lda, b, c.n, got, c.n, false)
			} else {
				GemmAccStrided(c.m, c.n, c.k, a, 1, lda, b, c.n, got, c.n)
			}
			if d := maxRelDiff(got, want); d > 1e-4 {
				t.Errorf("%dx%dx%d narrow %v: max relative difference from gonum %g", c.m, c.n, c.k, narrow, d)
			}
		}
	}
}

func TestGemmAccGoMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ m, n, k int }{{1, 1, 1}, {5, 17, 9}, {16, 40, 33}} {
		a := randomSlice(rng, c.m*c.k)
		b := randomSlice(rng, c.k*c.n)
		want := randomSlice(rng, c.m*c.n)
		got := append([]float32(nil), want...)
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, c.m, c.n, c.k, 1, a, c.k, b, c.n, 1, want, c.n)
		gemmAccGo(c.m, 0, c.n, c.k, a, c.k, 1, b, c.n, got, c.n)
		if d := maxRelDiff(got, want); d > 1e-4 {
			t.Errorf("%dx%dx%d: max relative difference from gonum %g", c.m, c.n, c.k, d)
		}
	}
}

// matchesGonum checks gemm, an accumulating m×k by k×n product whose rows
// are pad values longer than their shapes, against gonum's Sgemm on
// random operands.
func matchesGonum(t *testing.T, rng *rand.Rand, m, n, k, pad int, gemm func(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int)) {
	t.Helper()
	t.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(t *testing.T) {
		lda, ldb, ldc := k+pad, n+pad, n+pad
		a := randomSlice(rng, (m-1)*lda+k)
		b := randomSlice(rng, (k-1)*ldb+n)
		want := randomSlice(rng, (m-1)*ldc+n)
		got := append([]float32(nil), want...)
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, b, ldb, 1, want, ldc)
		gemm(m, n, k, a, lda, b, ldb, got, ldc)
		if d := maxRelDiff(got, want); d > 1e-4 {
			t.Errorf("max relative difference from gonum %g", d)
		}
	})
}

// TestGemmSetStridedOverwritesC: C = op(A)·B whatever C held (NaN in
// every cell of the product, so a cell read rather than written shows),
// A row-major and transposed, through every kernel (rows left over from
// the blocks of 6, columns from the blocks of 16 and 32, and of 8 with
// GemmNarrowStrided) and k = 0; the padding between C's rows is left as
// it was.
func TestGemmSetStridedOverwritesC(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	nan := float32(math.NaN())
	for _, c := range []struct{ m, n, k, pad int }{
		{1, 1, 1, 0}, {6, 16, 1, 0}, {7, 17, 3, 1}, {12, 64, 5, 0}, {5, 80, 9, 2}, {1, 256, 32, 0},
		{13, 48, 7, 3}, {3072 / 64, 128, 32, 0}, {24, 100, 24, 1}, {9, 33, 0, 2},
		{26, 24, 16, 0}, {11, 24, 5, 2}, {7, 40, 9, 1}, {24, 12, 24, 0},
	} {
		for _, v := range []struct{ trans, narrow bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			trans := v.trans
			lda, rs, ks := c.k+c.pad, c.k+c.pad, 1
			rows, cols := c.m, c.k
			tA := blas.NoTrans
			if trans {
				lda, rs, ks, rows, cols, tA = c.m+c.pad, 1, c.m+c.pad, c.k, c.m, blas.Trans
			}
			a := randomSlice(rng, max(rows-1, 0)*lda+cols+1)
			ldc := c.n + c.pad
			b := randomSlice(rng, c.k*c.n+1)
			want := make([]float32, (c.m-1)*ldc+c.n)
			got := randomSlice(rng, len(want))
			for i := range c.m {
				for j := range c.n {
					got[i*ldc+j] = nan
				}
			}
			pads := append([]float32(nil), got...)
			if c.k > 0 {
				gonum.Implementation{}.Sgemm(tA, blas.NoTrans, c.m, c.n, c.k, 1, a, lda, b, c.n, 0, want, ldc)
			}
			if v.narrow {
				GemmNarrowStrided(c.m, c.n, c.k, a, rs, ks, b, c.n, got, ldc, true)
			} else {
				GemmSetStrided(c.m, c.n, c.k, a, rs, ks, b, c.n, got, ldc)
			}
			for i := range c.m {
				for j := range ldc {
					x := i*ldc + j
					if x >= len(got) {
						break
					}
					if j >= c.n {
						if got[x] != pads[x] {
							t.Fatalf("%dx%dx%d %+v: padding at row %d column %d changed", c.m, c.n, c.k, v, i, j)
						}
						continue
					}
					if d := math.Abs(float64(got[x] - want[x])); !(d <= 1e-4*(1+math.Abs(float64(want[x])))) {
						t.Fatalf("%dx%dx%d %+v: C[%d,%d] = %v, want %v", c.m, c.n, c.k, v, i, j, got[x], want[x])
					}
				}
			}
		}
	}
}
