package train

// backend is what runs a trainer's arithmetic: the BLAS of its matrix and
// inner products (Gorgonia's ops of the first run and the kernels after
// it alike, so compile can check the one against the other), whether
// the AVX2 element-wise and Adam kernels run, and whether a graph
// network's step is graphStep's (graphstep.go) or its Gorgonia graph's.
// New trains on defaultBackend(); the tests and benchmarks pass others to
// compare.
type backend struct {
	blas      blas32
	simd      bool // the AVX2 kernels (only where the CPU has AVX2)
	graphStep bool // a graph network's step written out (graphStep), not run through its Gorgonia graph
}

// defaultBackend is the trainer's own: kernelBLAS, the AVX2 kernels
// where the CPU has them, and a graph network's step written out.
func defaultBackend() backend {
	return backend{blas: newKernelBLAS(), simd: haveAVX2(), graphStep: true}
}

// gorgoniaBackend is defaultBackend with a graph network's step run
// through its Gorgonia graph: the reference graphStep is checked against.
func gorgoniaBackend() backend {
	b := defaultBackend()
	b.graphStep = false
	return b
}
