package train

import (
	"github.com/chewxy/math32"
	"gorgonia.org/tensor"
)

// fastEngine's log-softmax (engine.go), for Gorgonia's LogSoftMax op and
// the derivative op its symbolic differentiation adds: the standard
// engine's starts a goroutine per row, takes a logarithm per element,
// and takes every row's maximum from the matrix's first element instead
// of the row's (so a row far below the first one's values underflows to
// log 0). This one takes the row's maximum and one logarithm per row, on
// the calling goroutine, and skips the exponential of a value more than
// 104 below the row's maximum, which is 0 in float32: a masked action's
// logit (maskedLogit), nearly all of the policy head's.

// underflow is where float32's exp rounds to 0: exp(-104) is below half
// the smallest subnormal (exp(-103.28)).
const underflow = -104

// rows returns the data of x, of a reuse tensor in opts (or x itself if
// opts say unsafe, or else a new tensor) and the shape, if x is a row-major
// float32 matrix taken along its rows (axis 1 or -1).
func (e fastEngine) rows(x tensor.Tensor, axis int, opts []tensor.FuncOpt) (out tensor.Tensor, xs, os []float32, rows, cols int, ok bool) {
	d, isDense := x.(*tensor.Dense)
	if !isDense || d.Dtype() != tensor.Float32 || d.Dims() != 2 || (axis != 1 && axis != -1) || d.RequiresIterator() || !d.DataOrder().IsRowMajor() {
		return nil, nil, nil, 0, 0, false
	}
	var o tensor.OpOpt
	for _, f := range opts {
		f(&o)
	}
	rows, cols = d.Shape()[0], d.Shape()[1]
	switch {
	case o.Reuse() != nil:
		out = o.Reuse()
	case !o.Safe():
		out = d
	default:
		out = tensor.New(tensor.WithShape(rows, cols), tensor.Of(tensor.Float32), tensor.WithEngine(e))
	}
	r, isDense := out.(*tensor.Dense)
	if !isDense || r.Dtype() != tensor.Float32 || !r.Shape().Eq(d.Shape()) || r.RequiresIterator() || !r.DataOrder().IsRowMajor() {
		return nil, nil, nil, 0, 0, false
	}
	return out, d.Float32s(), r.Float32s(), rows, cols, true
}

// LogSoftMax is x[i,j] - log Σ_k exp(x[i,k]) for a float32 matrix along
// its rows, the standard engine's otherwise.
func (e fastEngine) LogSoftMax(x tensor.Tensor, axis int, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	out, xs, os, rows, cols, ok := e.rows(x, axis, opts)
	if !ok {
		return e.StandardEngine.LogSoftMax(x, axis, opts...)
	}
	logSoftMaxRows(xs, os, rows, cols)
	return out, nil
}

// LogSoftMaxB is the gradient of a loss with respect to the input of
// LogSoftMax, from its output y and the loss's gradient g with respect to
// y: g[i,j] - exp(y[i,j]) Σ_k g[i,k], along the rows of a float32
// matrix; the standard engine's otherwise.
func (e fastEngine) LogSoftMaxB(output, grad tensor.Tensor, axis int, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	out, ys, os, rows, cols, ok := e.rows(output, axis, opts)
	g, isDense := grad.(*tensor.Dense)
	if !ok || !isDense || g.Dtype() != tensor.Float32 || !g.Shape().Eq(output.Shape()) || g.RequiresIterator() || !g.DataOrder().IsRowMajor() {
		return e.StandardEngine.LogSoftMaxB(output, grad, axis, opts...)
	}
	logSoftMaxBRows(ys, g.Float32s(), os, rows, cols)
	return out, nil
}

// logSoftMaxRows writes the log-softmax of each row of xs, a rows×cols
// row-major matrix, into os (which may be xs).
func logSoftMaxRows(xs, os []float32, rows, cols int) {
	for r := 0; r < rows; r++ {
		xr, or := xs[r*cols:(r+1)*cols], os[r*cols:(r+1)*cols]
		mx := xr[0]
		for _, v := range xr[1:] {
			if v > mx {
				mx = v
			}
		}
		var sum float32
		for j, v := range xr {
			z := v - mx
			or[j] = z
			if !(z <= underflow) { // NaN included
				sum += math32.Exp(z)
			}
		}
		l := math32.Log(sum)
		for j := range or {
			or[j] -= l
		}
	}
}

// logSoftMaxBRows writes into os the gradient with respect to the input of
// a row-wise log-softmax from its output ys and the gradient gs with
// respect to ys, all rows×cols row-major.
func logSoftMaxBRows(ys, gs, os []float32, rows, cols int) {
	for r := 0; r < rows; r++ {
		yr, gr, or := ys[r*cols:(r+1)*cols], gs[r*cols:(r+1)*cols], os[r*cols:(r+1)*cols]
		var sum float32
		for _, v := range gr {
			sum += v
		}
		for j, y := range yr {
			if y <= underflow {
				or[j] = gr[j]
			} else {
				or[j] = gr[j] - math32.Exp(y)*sum
			}
		}
	}
}
