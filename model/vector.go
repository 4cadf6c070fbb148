package model

// The graph network's elementwise passes over its activations, on AVX
// kernels where the CPU has them (kernel_amd64.s).

// ReLU sets every value of x below zero to zero (NaN stays NaN), with the
// AVX kernel on all but the last len(x) mod 8 values where the CPU has
// it: vek32.MaximumNumber_Inplace, which keeps the NaN semantics of
// math.Max, takes several times as long.
func ReLU(x []float32) {
	n := 0
	if haveKernels() {
		if n = len(x) &^ 7; n > 0 {
			reluKernel(&x[0], n)
		}
	}
	for i := n; i < len(x); i++ {
		if x[i] < 0 {
			x[i] = 0
		}
	}
}

// ReLUBack sets d, the gradient of a loss by a ReLU's output y, to the
// gradient by its input: d where y > 0, else 0 (also where y is NaN),
// with the AVX kernel on all but the last len(d) mod 8 values where the
// CPU has it.
func ReLUBack(d, y []float32) {
	y = y[:len(d)]
	n := 0
	if haveKernels() {
		if n = len(d) &^ 7; n > 0 {
			reluBackKernel(&d[0], &y[0], n)
		}
	}
	for i := n; i < len(d); i++ {
		if !(y[i] > 0) {
			d[i] = 0
		}
	}
}

// MeanRows sets dst to the mean of the rows from of src (row q of
// len(dst) values at src[q·ld:]), zero when from is empty: one pass that
// reads each row once and writes dst once.
func MeanRows(dst, src []float32, from []int, ld int) {
	n := len(dst)
	if len(from) == 0 || n == 0 {
		clear(dst)
		return
	}
	for _, q := range from {
		_ = src[q*ld : q*ld+n] // the kernel reads within src
	}
	scale := 1 / float32(len(from))
	done := 0
	if haveKernels() {
		if done = n &^ 7; done > 0 {
			meanRowsKernel(&dst[0], &src[0], &from[0], len(from), ld, done, scale)
		}
	}
	for j := done; j < n; j++ {
		var s float32
		for _, q := range from {
			s += src[q*ld+j]
		}
		dst[j] = s * scale
	}
}

// AddWeightedRows adds to dst the rows from of src weighted by w: dst[j]
// += Σ_i w[i]·src[from[i]·ld + j], row q of len(dst) values at
// src[q·ld:], with the AVX kernel on all but the last len(dst) mod 8
// values where the CPU has it. A product by a sparse matrix is one call
// a row, at the cost of the rows it reads rather than of every row.
func AddWeightedRows(dst, src []float32, from []int, w []float32, ld int) {
	weightedRows(dst, src, from, w, ld, 0)
}

// SetWeightedRows sets dst to the rows from of src weighted by w, as
// AddWeightedRows adds them: dst is written, never read (no rows: zero).
func SetWeightedRows(dst, src []float32, from []int, w []float32, ld int) {
	if len(from) == 0 {
		clear(dst)
		return
	}
	weightedRows(dst, src, from, w, ld, 1)
}

// weightedRows is AddWeightedRows (set 0) and SetWeightedRows (set 1).
func weightedRows(dst, src []float32, from []int, w []float32, ld int, set int) {
	n := len(dst)
	if len(from) == 0 || n == 0 {
		return
	}
	if len(w) < len(from) {
		panic("model: AddWeightedRows: fewer weights than rows")
	}
	for _, q := range from {
		_ = src[q*ld : q*ld+n] // the kernel reads within src
	}
	done := 0
	if haveKernels() {
		if done = n &^ 7; done > 0 {
			weightedRowsKernel(&dst[0], &src[0], &from[0], &w[0], len(from), ld, done, set)
		}
	}
	for j := done; j < n; j++ {
		var s float32
		if set == 0 {
			s = dst[j]
		}
		for i, q := range from {
			s += w[i] * src[q*ld+j]
		}
		dst[j] = s
	}
}
