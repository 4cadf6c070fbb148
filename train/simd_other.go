//go:build !amd64

package train

type adamConsts struct {
	b1, c1, b2, c2, a, e float32
	tiny, abs            uint32
}

// haveAVX2 is false off amd64: the Go loops run.
func haveAVX2() bool { return false }

func adamKernel(n int, p, g, m, v *float32, k *adamConsts) {
	panic("train: no Adam kernel on this architecture")
}

func addVV(n int, o, a, b *float32) { panic("train: no element-wise kernels on this architecture") }
func mulVV(n int, o, a, b *float32) { panic("train: no element-wise kernels on this architecture") }
func geqVV(n int, o, a, b *float32) { panic("train: no element-wise kernels on this architecture") }
func addVS(n int, o, a *float32, s float32) {
	panic("train: no element-wise kernels on this architecture")
}
func mulVS(n int, o, a *float32, s float32) {
	panic("train: no element-wise kernels on this architecture")
}
func geqVS(n int, o, a *float32, s float32) {
	panic("train: no element-wise kernels on this architecture")
}
