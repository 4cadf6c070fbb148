package train

// backend is what runs a trainer's arithmetic: the BLAS of its matrix and
// inner products (Gorgonia's ops of the first run and the kernels after
// it alike, so compile can check the one against the other) and whether
// the AVX2 element-wise and Adam kernels run. New trains on
// defaultBackend(); the tests and benchmarks pass others to compare.
type backend struct {
	blas blas32
	simd bool // the AVX2 kernels (only where the CPU has AVX2)
}

// defaultBackend is the trainer's own: kernelBLAS, and the AVX2 kernels
// where the CPU has them.
func defaultBackend() backend { return backend{blas: newKernelBLAS(), simd: haveAVX2()} }
