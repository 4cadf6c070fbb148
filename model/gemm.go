package model

// gemmAcc adds A·B to C: C (m×n) += A (m×k) · B (k×n), all row-major with
// leading dimensions lda, ldb, ldc. The caller guarantees the slices hold
// their shapes. It runs on the calling goroutine and allocates nothing.
func gemmAcc(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	GemmAccStrided(m, n, k, a, lda, 1, b, ldb, c, ldc)
}

// GemmAccStrided adds A·B to C as gemmAcc does, with A[i, p] at
// a[i·rs + p·ks]: rs = lda, ks = 1 for a row-major A, rs = 1, ks = lda for
// the transpose of a row-major k×m matrix. It is the product of inference
// and of the trainer's BLAS, on the calling goroutine, allocating nothing.
// On AVX2 FMA CPUs blocks of 6 rows × 16 columns run in the assembly
// kernel (twelve 8-wide accumulators, about 6 cycles per 192
// multiply-adds), or of 6 rows × 32 columns with AVX-512F (twelve 16-wide
// accumulators), the rows left over in 4-, 2- and 1-row kernels, and the
// last n mod 16 columns in Go.
func GemmAccStrided(m, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int) {
	gemmStrided(m, n, k, a, rs, ks, b, ldb, c, ldc, 0, false)
}

// GemmSetStrided sets C to A·B, the operands as GemmAccStrided's: C's m×n
// values are written and never read, so a product into a fresh buffer
// needs no clearing first (with a small k, clearing C cost as much as the
// product).
func GemmSetStrided(m, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int) {
	if k == 0 {
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	gemmStrided(m, n, k, a, rs, ks, b, ldb, c, ldc, 1, false)
}

// GemmNarrowStrided is GemmAccStrided, or GemmSetStrided if set, for the
// products of a graph network, whose widths are often 8 more than a
// multiple of 16 (24 points, 24 policy columns): those last 8 columns of
// every block of 6 rows run in the 6×8 kernel where the others leave them
// to plain Go. (The others keep their arithmetic: plain Go's products are
// not fused multiply-adds, so the kernel's sums differ in rounding.)
func GemmNarrowStrided(m, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int, set bool) {
	s := 0
	if set {
		s = 1
		if k == 0 {
			for i := range m {
				clear(c[i*ldc : i*ldc+n])
			}
			return
		}
	}
	gemmStrided(m, n, k, a, rs, ks, b, ldb, c, ldc, s, true)
}

// gemmStrided is GemmAccStrided (set 0) and GemmSetStrided (set 1); with
// narrow, GemmNarrowStrided.
func gemmStrided(m, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int, set int, narrow bool) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	n16 := 0
	if haveKernels() {
		n16 = n &^ 15
		n32 := 0 // columns whose 6-row blocks run in kernel6x32
		if haveKernels512() {
			n32 = n &^ 31
		}
		m6 := m - m%6
		for j := 0; j < n16; j += 16 {
			i := 0
			switch {
			case j >= n32:
				for ; i < m6; i += 6 {
					kernel6x16(k, &a[i*rs], rs, ks, &b[j], ldb, &c[i*ldc+j], ldc, set)
				}
			case j%32 == 0:
				for ; i < m6; i += 6 {
					kernel6x32(k, &a[i*rs], rs, ks, &b[j], ldb, &c[i*ldc+j], ldc, set)
				}
			default: // the second half of a kernel6x32 block
				i = m6
			}
			if m-i >= 4 {
				kernel4x16(k, &a[i*rs], rs, ks, &b[j], ldb, &c[i*ldc+j], ldc, set)
				i += 4
			}
			if m-i >= 2 {
				kernel2x16(k, &a[i*rs], rs, ks, &b[j], ldb, &c[i*ldc+j], ldc, set)
			}
		}
		if m%2 == 1 { // the last row, when m is odd
			i := m - 1
			j := 0
			for ; j+64 <= n16; j += 64 {
				kernel1x64(k, &a[i*rs], ks, &b[j], ldb, &c[i*ldc+j], set)
			}
			for ; j < n16; j += 16 {
				kernel1x16(k, &a[i*rs], ks, &b[j], ldb, &c[i*ldc+j], set)
			}
		}
		if narrow && n-n16 >= 8 {
			m6 := m - m%6
			for i := 0; i < m6; i += 6 {
				kernel6x8(k, &a[i*rs], rs, ks, &b[n16], ldb, &c[i*ldc+n16], ldc, set)
			}
			// The rows past the last block of 6, of those 8 columns.
			if set != 0 {
				for i := m6; i < m; i++ {
					clear(c[i*ldc+n16 : i*ldc+n16+8])
				}
			}
			if m6 < m {
				gemmAccGo(m-m6, n16, n16+8, k, a[m6*rs:], rs, ks, b, ldb, c[m6*ldc:], ldc)
			}
			n16 += 8
		}
	}
	if set != 0 && n16 < n {
		for i := range m {
			clear(c[i*ldc+n16 : i*ldc+n])
		}
	}
	gemmAccGo(m, n16, n, k, a, rs, ks, b, ldb, c, ldc)
}

// gemmNarrow is gemmAcc for the graph network's products, whose width is
// often 8 more than a multiple of 16 (24 channels a point): those last 8
// columns run in kernel6x8 where gemmAcc would leave them to plain Go.
func gemmNarrow(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	gemmStrided(m, n, k, a, lda, 1, b, ldb, c, ldc, 0, true)
}

// gemmAccGo is GemmAccStrided in plain Go for the columns n0..n-1 of C
// only: the kernels' leftovers, or everything without AVX2 FMA.
func gemmAccGo(m, n0, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int) {
	if n0 >= n {
		return
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc+n0 : i*ldc+n]
		for p := 0; p < k; p++ {
			x := a[i*rs+p*ks]
			bp := b[p*ldb+n0 : p*ldb+n]
			for j := range ci {
				ci[j] += x * bp[j]
			}
		}
	}
}
