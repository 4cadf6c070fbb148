package train

import "golang.org/x/sys/cpu"

// adamConsts are adamKernel's constants, in the order it reads them.
type adamConsts struct {
	b1, c1, b2, c2, a, e float32 // c1 = 1-b1, c2 = 1-b2
	tiny, abs            uint32  // tinyBits, and the mask of a float32's magnitude
}

// haveAVX2 reports whether adamKernel and the element-wise kernels (AVX2)
// run on this CPU.
func haveAVX2() bool { return cpu.X86.HasAVX2 }

//go:noescape
func adamKernel(n int, p, grad, mom, vel *float32, k *adamConsts)

// The element-wise kernels of elem_amd64.s (AVX2, like adamKernel): o = a
// op b or a op s on the first n elements, n a multiple of 8.

//go:noescape
func addVV(n int, o, a, b *float32)

//go:noescape
func mulVV(n int, o, a, b *float32)

//go:noescape
func geqVV(n int, o, a, b *float32)

//go:noescape
func addVS(n int, o, a *float32, s float32)

//go:noescape
func mulVS(n int, o, a *float32, s float32)

//go:noescape
func geqVS(n int, o, a *float32, s float32)
