//go:build !amd64

package model

// haveKernels is false off amd64: gemmAcc runs in plain Go.
func haveKernels() bool { return false }

// haveKernels512 is false off amd64.
func haveKernels512() bool { return false }

func kernel6x32(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func kernel6x16(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func kernel1x64(k int, a *float32, ks int, b *float32, ldb int, c *float32, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func kernel1x16(k int, a *float32, ks int, b *float32, ldb int, c *float32, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func kernel4x16(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func kernel2x16(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func kernel6x8(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func meanRowsKernel(dst, src *float32, from *int, cnt, ld, n int, scale float32) {
	panic("model: no SIMD kernels on this architecture")
}

func weightedRowsKernel(dst, src *float32, from *int, w *float32, cnt, ld, n, set int) {
	panic("model: no SIMD kernels on this architecture")
}

func reluKernel(x *float32, n int) {
	panic("model: no SIMD kernels on this architecture")
}

func reluBackKernel(d, y *float32, n int) {
	panic("model: no SIMD kernels on this architecture")
}

func transpose8x8(src *float32, lds int, dst *float32, ldd int) {
	panic("model: no SIMD kernels on this architecture")
}

func fmaLoop512(n int) {
	panic("model: no SIMD kernels on this architecture")
}

func fmaLoop256(n int) {
	panic("model: no SIMD kernels on this architecture")
}
