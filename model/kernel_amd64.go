package model

import "golang.org/x/sys/cpu"

// haveKernels reports whether the AVX2 FMA kernels of kernel_amd64.s run
// on this CPU.
func haveKernels() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// haveKernels512 reports whether kernel6x32 (AVX-512F) runs on this CPU
// and system.
func haveKernels512() bool { return haveKernels() && cpu.X86.HasAVX512F }

//go:noescape
func kernel6x32(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int)

//go:noescape
func kernel6x16(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int)

//go:noescape
func kernel1x64(k int, a *float32, ks int, b *float32, ldb int, c *float32, set int)

//go:noescape
func kernel1x16(k int, a *float32, ks int, b *float32, ldb int, c *float32, set int)

//go:noescape
func kernel4x16(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int)

//go:noescape
func kernel2x16(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int)

//go:noescape
func kernel6x8(k int, a *float32, lda, ks int, b *float32, ldb int, c *float32, ldc int, set int)

//go:noescape
func meanRowsKernel(dst, src *float32, from *int, cnt, ld, n int, scale float32)

//go:noescape
func weightedRowsKernel(dst, src *float32, from *int, w *float32, cnt, ld, n, set int)

//go:noescape
func reluKernel(x *float32, n int)

//go:noescape
func reluBackKernel(d, y *float32, n int)

//go:noescape
func transpose8x8(src *float32, lds int, dst *float32, ldd int)

//go:noescape
func fmaLoop512(n int)

//go:noescape
func fmaLoop256(n int)
