package train

import (
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// fastEngine is the tensor engine of a trainer's graphs: Gorgonia's
// standard CPU engine (what the TapeMachine uses) with the trainer's own
// BLAS for the float32 matrix and inner products, and its own
// log-softmax along the rows of a float32 matrix and that log-softmax's
// derivative (softmax.go). The machine sets it on every tensor of the
// graph, so Gorgonia's ops of the first run compute with the BLAS the
// kernels then use (and compile checks them against), whatever BLAS
// Gorgonia's process-wide setting (gorgonia.Use) names: the trainer never
// changes that setting. Every other operation is the standard engine's.
type fastEngine struct {
	G.StandardEngine
	blas blas32 // nil: the standard engine's products, with Gorgonia's process-wide BLAS
}

// MatMul is prealloc = a·b with e's BLAS, for row-major float32 matrices
// each stored as it is or transposed in place (tensor.Dense.T, as
// Gorgonia's product ops transpose a factor), called with the arguments
// the standard engine passes its BLAS; the standard engine's otherwise.
func (e fastEngine) MatMul(a, b, prealloc tensor.Tensor) error {
	ad, aT, okA := matMulOperand(a)
	bd, bT, okB := matMulOperand(b)
	cd, cT, okC := matMulOperand(prealloc)
	if e.blas == nil || !okA || !okB || !okC || cT {
		return e.StandardEngine.MatMul(a, b, prealloc)
	}
	m, k, n := ad.Shape()[0], ad.Shape()[1], bd.Shape()[1]
	if bd.Shape()[0] != k || !cd.Shape().Eq(tensor.Shape{m, n}) {
		return e.StandardEngine.MatMul(a, b, prealloc)
	}
	tA, lda := blas.NoTrans, k
	if aT {
		tA, lda = blas.Trans, m // a is the transpose of the k×m matrix stored
	}
	tB, ldb := blas.NoTrans, n
	if bT {
		tB, ldb = blas.Trans, k
	}
	e.blas.Sgemm(tA, tB, m, n, k, 1, ad.Float32s(), lda, bd.Float32s(), ldb, 0, cd.Float32s(), n)
	return nil
}

// matMulOperand is t as a float32 matrix stored row-major (a view of its
// own data, not a slice of another tensor's), and whether it is that
// matrix transposed in place: as the standard engine tells it, by the
// layout from before the transpose, which such a tensor keeps. A
// transpose that moved the data (tensor.Transpose, Gorgonia's transpose
// op) keeps the transposed flag of its data order but no layout from
// before: it is the plain matrix of its shape.
func matMulOperand(t tensor.Tensor) (d *tensor.Dense, transposed, ok bool) {
	d, ok = t.(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 || d.Dims() != 2 || d.IsView() || !d.DataOrder().IsRowMajor() || d.IsMasked() {
		return nil, false, false
	}
	transposed = d.IsMaterializable() // not a view: a layout from before a transpose
	return d, transposed, !transposed || d.DataOrder().IsTransposed()
}

// Inner is the inner product of two float32 vectors with e's BLAS, as the
// standard engine computes it with its own; the standard engine's
// otherwise.
func (e fastEngine) Inner(a, b tensor.Tensor) (any, error) {
	ad, okA := a.(*tensor.Dense)
	bd, okB := b.(*tensor.Dense)
	if e.blas == nil || !okA || !okB || ad.Dtype() != tensor.Float32 || bd.Dtype() != tensor.Float32 || ad.RequiresIterator() || bd.RequiresIterator() {
		return e.StandardEngine.Inner(a, b)
	}
	x, y := ad.Float32s(), bd.Float32s()
	if len(x) != len(y) {
		return e.StandardEngine.Inner(a, b)
	}
	return e.blas.Sdot(len(x), x, 1, y, 1), nil
}
