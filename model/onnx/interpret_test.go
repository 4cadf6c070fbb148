package onnx

import (
	"fmt"
	"slices"
)

// The operators of the test's interpreter (decoded.run), after the ONNX
// operator specification for opset 13, each as far as the export uses it:
// float32 tensors (int64 ones as indices, shapes and axes), numpy
// broadcasting where the operator has it, sums in float64.

// size is the number of values of a tensor of shape dims.
func size(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// strides is the row-major strides of shape dims.
func strides(dims []int) []int {
	s := make([]int, len(dims))
	n := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = n
		n *= dims[i]
	}
	return s
}

// broadcast is the numpy broadcast of shapes a and b.
func broadcast(a, b []int) ([]int, error) {
	out := make([]int, max(len(a), len(b)))
	for i := range out {
		da, db := 1, 1
		if j := len(a) - len(out) + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - len(out) + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// offset is the index into a tensor of shape dims (right-aligned with
// out, broadcast along its dimensions of 1) of the value at out's
// multi-index idx.
func offset(dims, out, idx []int) int {
	o, s := 0, 1
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] != 1 {
			o += idx[len(out)-len(dims)+i] * s
		}
		s *= dims[i]
	}
	return o
}

// unravel sets idx to the multi-index of flat index i in shape dims.
func unravel(idx, dims []int, i int) {
	for k := len(dims) - 1; k >= 0; k-- {
		idx[k] = i % dims[k]
		i /= dims[k]
	}
}

// opAdd is Add: a + b, broadcast.
func opAdd(a, b decodedTensor) (decodedTensor, error) {
	dims, err := broadcast(a.dims, b.dims)
	if err != nil {
		return decodedTensor{}, err
	}
	out := decodedTensor{dims: dims, data: make([]float32, size(dims))}
	idx := make([]int, len(dims))
	for i := range out.data {
		unravel(idx, dims, i)
		out.data[i] = a.data[offset(a.dims, dims, idx)] + b.data[offset(b.dims, dims, idx)]
	}
	return out, nil
}

// opMatMul is MatMul: the matrix products of a's and b's last two
// dimensions, their leading ones broadcast (each at least 2-D).
func opMatMul(a, b decodedTensor) (decodedTensor, error) {
	ra, rb := len(a.dims), len(b.dims)
	if ra < 2 || rb < 2 || a.dims[ra-1] != b.dims[rb-2] {
		return decodedTensor{}, fmt.Errorf("shapes %v and %v do not multiply", a.dims, b.dims)
	}
	m, k, n := a.dims[ra-2], a.dims[ra-1], b.dims[rb-1]
	lead, err := broadcast(a.dims[:ra-2], b.dims[:rb-2])
	if err != nil {
		return decodedTensor{}, err
	}
	dims := append(slices.Clone(lead), m, n)
	out := decodedTensor{dims: dims, data: make([]float32, size(dims))}
	idx := make([]int, len(lead))
	for l := range size(lead) {
		unravel(idx, lead, l)
		x := a.data[offset(a.dims[:ra-2], lead, idx)*m*k:]
		y := b.data[offset(b.dims[:rb-2], lead, idx)*k*n:]
		z := out.data[l*m*n:]
		for r := range m {
			for c := range n {
				s := 0.0
				for i := range k {
					s += float64(x[r*k+i]) * float64(y[i*n+c])
				}
				z[r*n+c] = float32(s)
			}
		}
	}
	return out, nil
}

// opGemm is Gemm without attributes: a·b + c, a and b 2-D, c a row.
func opGemm(a, b, c decodedTensor) (decodedTensor, error) {
	if len(a.dims) != 2 || len(b.dims) != 2 || b.dims[0] != a.dims[1] || len(c.dims) != 1 || c.dims[0] != b.dims[1] {
		return decodedTensor{}, fmt.Errorf("shapes %v %v %v", a.dims, b.dims, c.dims)
	}
	ab, err := opMatMul(a, b)
	if err != nil {
		return decodedTensor{}, err
	}
	return opAdd(ab, c)
}

// opGather is Gather along axis: data's slices at each of the indices.
func opGather(data, indices decodedTensor, axis int) (decodedTensor, error) {
	if axis < 0 || axis >= len(data.dims) || indices.ints == nil {
		return decodedTensor{}, fmt.Errorf("axis %d of shape %v, int64 indices %v", axis, data.dims, indices.ints != nil)
	}
	outer, n, inner := size(data.dims[:axis]), data.dims[axis], size(data.dims[axis+1:])
	dims := slices.Concat(data.dims[:axis], indices.dims, data.dims[axis+1:])
	out := decodedTensor{dims: dims, data: make([]float32, 0, size(dims))}
	for o := range outer {
		for _, i := range indices.ints {
			if i < 0 || int(i) >= n {
				return decodedTensor{}, fmt.Errorf("index %d out of 0..%d", i, n-1)
			}
			row := data.data[(o*n+int(i))*inner:]
			out.data = append(out.data, row[:inner]...)
		}
	}
	return out, nil
}

// opConcat is Concat along axis.
func opConcat(ts []decodedTensor, axis int) (decodedTensor, error) {
	dims := slices.Clone(ts[0].dims)
	if axis < 0 || axis >= len(dims) {
		return decodedTensor{}, fmt.Errorf("axis %d of shape %v", axis, dims)
	}
	dims[axis] = 0
	for _, t := range ts {
		if len(t.dims) != len(dims) || fmt.Sprint(t.dims[:axis], t.dims[axis+1:]) != fmt.Sprint(ts[0].dims[:axis], ts[0].dims[axis+1:]) {
			return decodedTensor{}, fmt.Errorf("shapes %v and %v along axis %d", ts[0].dims, t.dims, axis)
		}
		dims[axis] += t.dims[axis]
	}
	out := decodedTensor{dims: dims, data: make([]float32, 0, size(dims))}
	for o := range size(dims[:axis]) {
		for _, t := range ts {
			n := size(t.dims[axis:])
			out.data = append(out.data, t.data[o*n:(o+1)*n]...)
		}
	}
	return out, nil
}

// opTranspose is Transpose: output dimension i is input dimension perm[i].
func opTranspose(t decodedTensor, perm []int64) (decodedTensor, error) {
	if len(perm) != len(t.dims) {
		return decodedTensor{}, fmt.Errorf("perm %v of shape %v", perm, t.dims)
	}
	dims := make([]int, len(perm))
	for i, p := range perm {
		dims[i] = t.dims[p]
	}
	in := strides(t.dims)
	out := decodedTensor{dims: dims, data: make([]float32, size(dims))}
	idx := make([]int, len(dims))
	for i := range out.data {
		unravel(idx, dims, i)
		o := 0
		for k, p := range perm {
			o += idx[k] * in[p]
		}
		out.data[i] = t.data[o]
	}
	return out, nil
}

// opPad is Pad of mode constant with zeros: pads is each dimension's
// zeros before, then each one's after.
func opPad(t decodedTensor, pads []int64) (decodedTensor, error) {
	r := len(t.dims)
	if len(pads) != 2*r {
		return decodedTensor{}, fmt.Errorf("pads %v of shape %v", pads, t.dims)
	}
	dims := make([]int, r)
	for i := range r {
		if pads[i] < 0 || pads[r+i] < 0 {
			return decodedTensor{}, fmt.Errorf("negative pads %v", pads)
		}
		dims[i] = t.dims[i] + int(pads[i]+pads[r+i])
	}
	st := strides(dims)
	out := decodedTensor{dims: dims, data: make([]float32, size(dims))}
	idx := make([]int, r)
	for i, x := range t.data {
		unravel(idx, t.dims, i)
		o := 0
		for k := range r {
			o += (idx[k] + int(pads[k])) * st[k]
		}
		out.data[o] = x
	}
	return out, nil
}

// opReshape is Reshape (opset 13): a 0 in shape copies the input's
// dimension, one -1 takes what is left.
func opReshape(t decodedTensor, shape []int64) (decodedTensor, error) {
	dims := make([]int, len(shape))
	infer := -1
	for i, s := range shape {
		switch {
		case s == 0 && i < len(t.dims):
			dims[i] = t.dims[i]
		case s == -1 && infer < 0:
			infer = i
		case s > 0:
			dims[i] = int(s)
		default:
			return decodedTensor{}, fmt.Errorf("shape %v of %v", shape, t.dims)
		}
	}
	if infer >= 0 {
		dims[infer] = 1
		if rest := size(dims); rest > 0 {
			dims[infer] = len(t.data) / rest
		}
	}
	if size(dims) != len(t.data) {
		return decodedTensor{}, fmt.Errorf("shape %v of %v: %d values, not %d", shape, t.dims, size(dims), len(t.data))
	}
	return decodedTensor{dims: dims, data: t.data}, nil
}

// opUnsqueeze is Unsqueeze (opset 13, axes an input): a dimension of 1
// inserted at each of the output's axes.
func opUnsqueeze(t decodedTensor, axes []int64) (decodedTensor, error) {
	r := len(t.dims) + len(axes)
	dims := make([]int, 0, r)
	in := t.dims
	for i := range r {
		if slices.Contains(axes, int64(i)) {
			dims = append(dims, 1)
			continue
		}
		if len(in) == 0 {
			return decodedTensor{}, fmt.Errorf("axes %v of shape %v", axes, t.dims)
		}
		dims, in = append(dims, in[0]), in[1:]
	}
	return decodedTensor{dims: dims, data: t.data}, nil
}

// opReduceMean is ReduceMean over axes (an attribute in opset 13), the
// reduced dimensions kept as 1 when keepdims.
func opReduceMean(t decodedTensor, axes []int64, keepdims bool) (decodedTensor, error) {
	kept := slices.Clone(t.dims)
	for _, a := range axes {
		if a < 0 || int(a) >= len(kept) {
			return decodedTensor{}, fmt.Errorf("axes %v of shape %v", axes, t.dims)
		}
		kept[a] = 1
	}
	sum := make([]float64, size(kept))
	idx := make([]int, len(t.dims))
	for i, x := range t.data {
		unravel(idx, t.dims, i)
		sum[offset(kept, t.dims, idx)] += float64(x)
	}
	n := float64(len(t.data) / len(sum))
	out := decodedTensor{dims: kept, data: make([]float32, len(sum))}
	for i, s := range sum {
		out.data[i] = float32(s / n)
	}
	if !keepdims {
		out.dims = nil
		for i, d := range t.dims {
			if !slices.Contains(axes, int64(i)) {
				out.dims = append(out.dims, d)
			}
		}
	}
	return out, nil
}
