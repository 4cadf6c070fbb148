package train

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/model"
)

// A kernel runs one node's op on the machine's values, reading its inputs
// from m.vals and writing the node's value of the first run in place,
// without allocating. Gorgonia's ops allocate on every call even when they
// write into a preallocated tensor: functional options, the access pattern
// of a transposed view, the reshape's new header, a boxed scalar result
// (some 800 allocations a step for the 128x2 network). The kernels do the
// same arithmetic: the same BLAS routine with the same arguments for the
// products, the same loops for the element-wise ops and the log-softmax,
// and compile keeps a kernel only if it reproduces Gorgonia's value bit for
// bit. A node without a kernel runs Gorgonia's op, as on the first run.
type kernel func() error

// errKernelInput is a kernel's error when an input is no longer the
// float32 tensor or scalar of the shape it had on the first run.
var errKernelInput = errors.New("input changed type or size since the first run")

// compile gives each node whose op the op table knows (ops.go) the first
// of its row's kernels that passes check, after the first run: the
// values, shapes and buffers of every node are known then, and the
// inputs are those of that run, to check each kernel against.
func (m *machine) compile() {
	m.kern = make([]kernel, len(m.nodes))
	for i := range m.nodes {
		if m.row[i] == nil {
			continue
		}
		for _, k := range m.row[i].kernels(m, i) {
			if m.check(i, k) {
				m.kern[i] = k
				break
			}
		}
	}
}

// check runs k and reports whether it gave node i the value Gorgonia's op
// gave it, bit for bit; if not, it puts that value back.
func (m *machine) check(i int, k kernel) bool {
	old := m.vals[i]
	var want []float32
	switch v := old.(type) {
	case *tensor.Dense:
		if v.Dtype() != tensor.Float32 {
			return false
		}
		want = append([]float32(nil), v.Float32s()...)
	case *G.F32:
		want = []float32{float32(*v)}
	default:
		return false
	}
	var got []float32
	err := k()
	switch v := m.vals[i].(type) {
	case *tensor.Dense:
		if v.Dtype() == tensor.Float32 {
			got = v.Float32s()
		}
	case *G.F32:
		got = []float32{float32(*v)}
	}
	same := err == nil && len(got) == len(want)
	for j := 0; same && j < len(want); j++ {
		same = math.Float32bits(got[j]) == math.Float32bits(want[j])
	}
	if !same {
		if d, ok := old.(*tensor.Dense); ok {
			copy(d.Float32s(), want)
		}
		m.vals[i] = old
	}
	return same
}

// one is k as a list of candidates: none if k is nil.
func one(k kernel) []kernel {
	if k == nil {
		return nil
	}
	return []kernel{k}
}

// matrix32 is v's data and shape if it is a float32 row-major matrix
// backed by all of its data.
func matrix32(v G.Value) (data []float32, rows, cols int, ok bool) {
	d, isDense := v.(*tensor.Dense)
	if !isDense || d.Dtype() != tensor.Float32 || d.Dims() != 2 || d.RequiresIterator() || !d.DataOrder().IsRowMajor() {
		return nil, 0, 0, false
	}
	data, s := d.Float32s(), d.Shape()
	return data, s[0], s[1], len(data) == s[0]*s[1]
}

// vector32 is v's data if it is a float32 tensor backed by all of its
// data, of any shape.
func vector32(v G.Value) ([]float32, bool) {
	d, isDense := v.(*tensor.Dense)
	if !isDense || d.Dtype() != tensor.Float32 || d.RequiresIterator() || !d.DataOrder().IsRowMajor() {
		return nil, false
	}
	data := d.Float32s()
	return data, len(data) == d.Shape().TotalSize()
}

// f32 is the data of node j's value in this run if it is a float32 tensor
// of n values, else nil.
func (m *machine) f32(j, n int) []float32 {
	d, ok := m.vals[j].(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 {
		return nil
	}
	if s := d.Float32s(); len(s) == n {
		return s
	}
	return nil
}

// matMulKernel is C = op(A)·op(B) for node i, op transposing a factor
// where its flag says, through the machine's BLAS with the arguments
// fastEngine passes it (in blocks of rows over m.split's
// goroutines, if the machine has a splitter); with copyB a transposed B
// is first copied to row-major scratch of the kernel's own.
func (m *machine) matMulKernel(i int, transA, transB, copyB bool) kernel {
	if !m.pre[i] {
		return nil
	}
	ia, ib := m.args[i][0], m.args[i][1]
	a, ar, ac, okA := matrix32(m.vals[ia])
	b, br, bc, okB := matrix32(m.vals[ib])
	c, cr, cc, okC := matrix32(m.vals[i])
	if !okA || !okB || !okC {
		return nil
	}
	rows, k := ar, ac
	if transA {
		rows, k = ac, ar
	}
	k2, n := br, bc
	if transB {
		k2, n = bc, br
	}
	if k != k2 || cr != rows || cc != n {
		return nil
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	if transA {
		tA = blas.Trans
	}
	if transB && !copyB {
		tB = blas.Trans
	}
	na, nb, nc := len(a), len(b), len(c)
	var scratch []float32
	if transB && copyB {
		scratch = make([]float32, k*n)
	}
	return func() error {
		a, b, c := m.f32(ia, na), m.f32(ib, nb), m.f32(i, nc)
		if a == nil || b == nil || c == nil {
			return errKernelInput
		}
		ldb := bc
		if scratch != nil {
			model.Transpose(scratch, b, k, n, k)
			b, ldb = scratch, n
		}
		m.split.gemm(gemmJob{blas: m.blas, tA: tA, tB: tB, m: rows, n: n, k: k, a: a, lda: ac, b: b, ldb: ldb, c: c})
		return nil
	}
}

// dotKernel is the inner product of two float32 vectors with the
// machine's BLAS, into a scalar of the kernel's own.
func (m *machine) dotKernel(i int) kernel {
	ia, ib := m.args[i][0], m.args[i][1]
	a, okA := vector32(m.vals[ia])
	b, okB := vector32(m.vals[ib])
	if _, isF32 := m.vals[i].(*G.F32); !okA || !okB || !isF32 || len(a) != len(b) {
		return nil
	}
	n, out := len(a), new(G.F32)
	return func() error {
		a, b := m.f32(ia, n), m.f32(ib, n)
		if a == nil || b == nil {
			return errKernelInput
		}
		*out = G.F32(m.blas.Sdot(n, a, 1, b, 1))
		m.vals[i] = out
		return nil
	}
}

// elemKernel is the element-wise op ('+', '*' for ⊙, '>' for >= giving 1
// or 0) of two float32 tensors of one size, a tensor
// and a scalar either way round, or two scalars (into a scalar of the
// kernel's own).
func (m *machine) elemKernel(i int, op byte) kernel {
	ia, ib := m.args[i][0], m.args[i][1]
	_, aScalar := m.vals[ia].(*G.F32)
	_, bScalar := m.vals[ib].(*G.F32)
	if aScalar && bScalar {
		if _, ok := m.vals[i].(*G.F32); !ok {
			return nil
		}
		out := new(G.F32)
		return func() error {
			x, okX := m.vals[ia].(*G.F32)
			y, okY := m.vals[ib].(*G.F32)
			if !okX || !okY {
				return errKernelInput
			}
			*out = G.F32(elem(op, float32(*x), float32(*y)))
			m.vals[i] = out
			return nil
		}
	}
	if !m.pre[i] {
		return nil
	}
	out, ok := vector32(m.vals[i])
	if !ok {
		return nil
	}
	n := len(out)
	for _, s := range []struct {
		j      int
		scalar bool
	}{{ia, aScalar}, {ib, bScalar}} {
		if d, ok := vector32(m.vals[s.j]); !s.scalar && (!ok || len(d) != n) {
			return nil
		}
	}
	return func() error {
		o := m.f32(i, n)
		if o == nil {
			return errKernelInput
		}
		switch {
		case aScalar:
			x, okX := m.vals[ia].(*G.F32)
			b := m.f32(ib, n)
			if !okX || b == nil {
				return errKernelInput
			}
			elemSV(op, o, float32(*x), b)
		case bScalar:
			a := m.f32(ia, n)
			y, okY := m.vals[ib].(*G.F32)
			if a == nil || !okY {
				return errKernelInput
			}
			elemVS(op, o, a, float32(*y), m.simd)
		default:
			a, b := m.f32(ia, n), m.f32(ib, n)
			if a == nil || b == nil {
				return errKernelInput
			}
			elemVV(op, o, a, b, m.simd)
		}
		return nil
	}
}

// geq is 1 if a >= b, else 0 (NaN included).
func geq(a, b float32) float32 {
	if a >= b {
		return 1
	}
	return 0
}

// elem is a op b.
func elem(op byte, a, b float32) float32 {
	switch op {
	case '+':
		return a + b
	case '>':
		return geq(a, b)
	}
	return a * b
}

// The element-wise kernels (simd_amd64.go) of each op, in elemIndex's
// order: the first len(o) &^ 7 elements; the Go loops do the rest.
var (
	vvKernels = [...]func(n int, o, a, b *float32){addVV, mulVV, geqVV}
	vsKernels = [...]func(n int, o, a *float32, s float32){addVS, mulVS, geqVS}
)

// elemIndex is op's index in vvKernels and vsKernels ('*' for any other).
func elemIndex(op byte) int {
	switch op {
	case '+':
		return 0
	case '>':
		return 2
	}
	return 1
}

// elemVV is o = a op b element by element, on the AVX2 kernels if simd.
func elemVV(op byte, o, a, b []float32, simd bool) {
	a, b = a[:len(o)], b[:len(o)]
	if n := len(o) &^ 7; simd && n > 0 {
		vvKernels[elemIndex(op)](n, &o[0], &a[0], &b[0])
		o, a, b = o[n:], a[n:], b[n:]
	}
	switch op {
	case '+':
		for j := range o {
			o[j] = a[j] + b[j]
		}
	case '>':
		for j := range o {
			o[j] = geq(a[j], b[j])
		}
	default: // '*'
		for j := range o {
			o[j] = a[j] * b[j]
		}
	}
}

// elemVS is o = a op s element by element, on the AVX2 kernels if simd.
func elemVS(op byte, o, a []float32, s float32, simd bool) {
	a = a[:len(o)]
	if n := len(o) &^ 7; simd && n > 0 {
		vsKernels[elemIndex(op)](n, &o[0], &a[0], s)
		o, a = o[n:], a[n:]
	}
	switch op {
	case '+':
		for j := range o {
			o[j] = a[j] + s
		}
	case '>':
		for j := range o {
			o[j] = geq(a[j], s)
		}
	default:
		for j := range o {
			o[j] = a[j] * s
		}
	}
}

// elemSV is o = s op b element by element.
func elemSV(op byte, o []float32, s float32, b []float32) {
	b = b[:len(o)]
	switch op {
	case '+':
		for j := range o {
			o[j] = s + b[j]
		}
	case '>':
		for j := range o {
			o[j] = geq(s, b[j])
		}
	default:
		for j := range o {
			o[j] = s * b[j]
		}
	}
}

// softmaxKernel is the row-wise log-softmax of node x's matrix (grad < 0)
// or its derivative, from the log-softmax's output x and the gradient
// grad with respect to it, as fastEngine computes them.
func (m *machine) softmaxKernel(i, x, grad int) kernel {
	if !m.pre[i] {
		return nil
	}
	xs, rows, cols, okX := matrix32(m.vals[x])
	_, or, oc, okO := matrix32(m.vals[i])
	if !okX || !okO || or != rows || oc != cols || rows == 0 || cols == 0 {
		return nil
	}
	n := len(xs)
	if grad >= 0 {
		if gs, gr, gc, ok := matrix32(m.vals[grad]); !ok || gr != rows || gc != cols || len(gs) != n {
			return nil
		}
	}
	return func() error {
		xs, os := m.f32(x, n), m.f32(i, n)
		if xs == nil || os == nil {
			return errKernelInput
		}
		if grad < 0 {
			logSoftMaxRows(xs, os, rows, cols)
			return nil
		}
		gs := m.f32(grad, n)
		if gs == nil {
			return errKernelInput
		}
		logSoftMaxBRows(xs, gs, os, rows, cols)
		return nil
	}
}

// reshapeKernel gives node i, a reshape, the view of its input it made on
// the first run, as long as the input is the tensor it was then (a
// node's own buffer, or a leaf's bound value); Gorgonia's op otherwise.
func (m *machine) reshapeKernel(i int, op G.Op) kernel {
	ia := m.args[i][0]
	in, out := m.vals[ia], m.vals[i]
	if _, ok := in.(*tensor.Dense); !ok || m.pre[i] || !sharesMemory(out, []G.Value{in}) {
		return nil
	}
	return func() error {
		if m.vals[ia] == in {
			m.vals[i] = out
			return nil
		}
		v, err := op.Do(m.vals[ia])
		if err != nil {
			return err
		}
		m.vals[i] = v
		return nil
	}
}

// batchedKernels are the candidate kernels of node i, a batched product
// (Gorgonia's BatchedMatMul of three-dimensional tensors): with the BLAS
// of Gorgonia's standard engine, which its op multiplies each position's
// views with (the machine's fastEngine takes no views), and with the
// machine's own.
func (m *machine) batchedKernels(i int, transA, transB bool) []kernel {
	return append(one(m.batchedKernel(i, transA, transB, tensor.WhichBLAS())), one(m.batchedKernel(i, transA, transB, m.blas))...)
}

// batchedKernel is C[s] = op(A[s])·op(B[s]) for every index s of the
// leading axis of node i's float32 tensors, op transposing a factor where
// its flag says, through bl with the arguments Gorgonia's standard engine
// passes its BLAS for each index's views.
func (m *machine) batchedKernel(i int, transA, transB bool, bl blas32) kernel {
	if !m.pre[i] || bl == nil {
		return nil
	}
	ia, ib := m.args[i][0], m.args[i][1]
	a, sa, okA := tensor3(m.vals[ia])
	b, sb, okB := tensor3(m.vals[ib])
	c, sc, okC := tensor3(m.vals[i])
	if !okA || !okB || !okC || sa[0] != sb[0] || sa[0] != sc[0] {
		return nil
	}
	rows, k := sa[1], sa[2]
	if transA {
		rows, k = k, rows
	}
	k2, n := sb[1], sb[2]
	if transB {
		k2, n = n, k2
	}
	if k != k2 || sc[1] != rows || sc[2] != n {
		return nil
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	if transA {
		tA = blas.Trans
	}
	if transB {
		tB = blas.Trans
	}
	na, nb, nc := len(a), len(b), len(c)
	pa, pb, pc := sa[1]*sa[2], sb[1]*sb[2], rows*n
	return func() error {
		a, b, c := m.f32(ia, na), m.f32(ib, nb), m.f32(i, nc)
		if a == nil || b == nil || c == nil {
			return errKernelInput
		}
		for s := range sc[0] {
			bl.Sgemm(tA, tB, rows, n, k, 1, a[s*pa:(s+1)*pa], sa[2], b[s*pb:(s+1)*pb], sb[2], 0, c[s*pc:(s+1)*pc], n)
		}
		return nil
	}
}

// tensor3 is v's data and shape if it is a three-dimensional float32
// row-major tensor backed by all of its data.
func tensor3(v G.Value) (data []float32, shape [3]int, ok bool) {
	d, isDense := v.(*tensor.Dense)
	if !isDense || d.Dims() != 3 {
		return nil, shape, false
	}
	data, ok = vector32(v)
	copy(shape[:], d.Shape())
	return data, shape, ok
}

// moveKernel is node i's value written by move from its inputs' data:
// the kernel of an op that only moves values (a concatenation, a slice, a
// transpose), whose Gorgonia op makes a new tensor every run. The kernel
// writes into the first run's, which no input shares.
func (m *machine) moveKernel(i int, move func(out []float32, in [][]float32)) kernel {
	out, ok := vector32(m.vals[i])
	in := make([]G.Value, len(m.args[i]))
	for k, j := range m.args[i] {
		in[k] = m.vals[j]
	}
	if !ok || sharesMemory(m.vals[i], in) {
		return nil
	}
	sizes := make([]int, len(in))
	for k := range in {
		d, ok := vector32(in[k])
		if !ok {
			return nil
		}
		sizes[k] = len(d)
	}
	n, data := len(out), make([][]float32, len(in))
	return func() error {
		o := m.f32(i, n)
		if o == nil {
			return errKernelInput
		}
		for k, j := range m.args[i] {
			if data[k] = m.f32(j, sizes[k]); data[k] == nil {
				return errKernelInput
			}
		}
		move(o, data)
		return nil
	}
}

// concatKernel is node i, the concatenation of its inputs along axis.
func (m *machine) concatKernel(i, axis int) kernel {
	out := m.nodes[i].Shape()
	if axis < 0 || axis >= out.Dims() {
		return nil
	}
	outer := out[:axis].TotalSize()
	if axis == 0 {
		outer = 1
	}
	blocks := make([]int, len(m.args[i]))
	sum := 0
	for k, j := range m.args[i] {
		s := m.nodes[j].Shape()
		if s.Dims() != out.Dims() {
			return nil
		}
		blocks[k] = s[axis:].TotalSize()
		sum += blocks[k]
	}
	if outer*sum != out.TotalSize() {
		return nil
	}
	return m.moveKernel(i, func(o []float32, in [][]float32) {
		at := 0
		for r := range outer {
			for k, x := range in {
				at += copy(o[at:at+blocks[k]], x[r*blocks[k]:(r+1)*blocks[k]])
			}
		}
	})
}

// sliceKernel is node i, the indices start to end-1 along axis along of
// its input.
func (m *machine) sliceKernel(i, along, start, end int) kernel {
	in := m.nodes[m.args[i][0]].Shape()
	if along >= in.Dims() || end > in[along] {
		return nil
	}
	outer, inner := 1, 1
	for _, d := range in[:along] {
		outer *= d
	}
	for _, d := range in[along+1:] {
		inner *= d
	}
	dim, width := in[along], (end-start)*inner
	if outer*width != m.nodes[i].Shape().TotalSize() {
		return nil
	}
	return m.moveKernel(i, func(o []float32, x [][]float32) {
		for r := range outer {
			copy(o[r*width:(r+1)*width], x[0][(r*dim+start)*inner:(r*dim+end)*inner])
		}
	})
}

// transposeKernel is node i, its input with its axes permuted: the
// output's axis k is the input's pattern[k].
func (m *machine) transposeKernel(i int, pattern []int) kernel {
	in := m.nodes[m.args[i][0]].Shape()
	if len(pattern) != in.Dims() || len(pattern) < 2 {
		return nil
	}
	d := len(pattern)
	stride := make([]int, d)
	for k, s := d-1, 1; k >= 0; k-- {
		stride[k] = s
		s *= in[k]
	}
	shape, step, idx := make([]int, d), make([]int, d), make([]int, d)
	for k, ax := range pattern {
		if ax < 0 || ax >= d {
			return nil
		}
		shape[k], step[k] = in[ax], stride[ax]
	}
	last, st := shape[d-1], step[d-1]
	return m.moveKernel(i, func(o []float32, x [][]float32) {
		clear(idx)
		src := 0
		for at := 0; at < len(o); at += last {
			if st == 1 {
				copy(o[at:at+last], x[0][src:src+last])
			} else {
				for j := range last {
					o[at+j] = x[0][src+j*st]
				}
			}
			for k := d - 2; k >= 0; k-- { // the next index of the output's other axes
				idx[k]++
				src += step[k]
				if idx[k] < shape[k] {
					break
				}
				src -= idx[k] * step[k]
				idx[k] = 0
			}
		}
	})
}
