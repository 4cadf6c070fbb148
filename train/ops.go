package train

import (
	"errors"
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// opTable maps the ops of the training graph, which Gorgonia builds and
// differentiates, to the kernels that run them after the first run
// (kernel.go). An op is known by what Gorgonia's public API shows of it:
// each row builds, with Gorgonia's public functions and on nodes of a
// scratch graph typed and shaped like the node's inputs, the op Gorgonia
// makes for that computation (its prototype), and a node's op is the
// row's when it has the prototype's arity, hash and type. The hash
// (Op.Hashcode) is Gorgonia's own identity of an op: a graph merges two
// nodes of equal hash and inputs into one. Its type (Op.Type) tells what
// the hash of an element-wise op leaves out, whether a comparison gives 1
// or 0 of its inputs' type or booleans.
//
// One op cannot be told by hash and type alone: Gorgonia's softmax op
// hashes its axis only, so SoftMax and LogSoftMax hash alike (a graph
// holding both of one input merges them), have one type, and nothing
// public but their printed form says which is which.
// The derivative the op makes (SDOp.SymDiff) does hash whether it takes
// the logarithm, so the log-softmax's row also compares the derivative
// the node's op makes with the prototype's: the narrowest check there is.
//
// A node with no row, or with two, runs Gorgonia's own op after the first
// run too (slower, and allocating); TestOpTable_NamesEveryOpOfTheTrainingGraph
// names every op of the training graph and fails on any such node, and on any kernel that does
// not reproduce its op's value bit for bit (check).
var opTable = []opRow{
	{name: "A·B", arity: 2,
		proto: func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) {
			if !in[0].IsMatrix() || !in[1].IsMatrix() {
				return nil, errNotForRow
			}
			return opOf(G.Mul(in[0], in[1]))
		},
		kernels: func(m *machine, i int) []kernel {
			return one(m.matMulKernel(i, false, false, false))
		}},
	{name: "Aᵀ·B", arity: 2, // in the derivative of x·w by w: xᵀ·g
		proto: func(_ G.Op, in G.Nodes, out tensor.Shape) (G.Op, error) {
			if !in[0].IsMatrix() || !in[1].IsMatrix() || out.Dims() != 2 {
				return nil, errNotForRow
			}
			w := like(in[0].Graph(), in[0].Dtype(), out, "w")
			return productDerivative(in[0], w, in[1], 1)
		},
		kernels: func(m *machine, i int) []kernel {
			return one(m.matMulKernel(i, true, false, false))
		}},
	{name: "A·Bᵀ", arity: 2, // in the derivative of x·w by x: g·wᵀ
		proto: func(_ G.Op, in G.Nodes, out tensor.Shape) (G.Op, error) {
			if !in[0].IsMatrix() || !in[1].IsMatrix() || out.Dims() != 2 {
				return nil, errNotForRow
			}
			x := like(in[0].Graph(), in[0].Dtype(), out, "x")
			return productDerivative(x, in[1], in[0], 0)
		},
		// B copied to the kernel's own scratch first, as kernelBLAS does
		// itself into a pool (which a collection can empty), or B passed
		// transposed as Gorgonia does, for a BLAS whose product of a
		// transposed B is not the product of its copy (gonum's).
		kernels: func(m *machine, i int) []kernel {
			return append(one(m.matMulKernel(i, false, true, true)), one(m.matMulKernel(i, false, true, false))...)
		}},
	{name: "a·b", arity: 2, // the inner product of two vectors
		proto: func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) {
			if !in[0].IsVector() || !in[1].IsVector() {
				return nil, errNotForRow
			}
			return opOf(G.Mul(in[0], in[1]))
		},
		kernels: func(m *machine, i int) []kernel { return one(m.dotKernel(i)) }},
	{name: "+", arity: 2,
		proto:   func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.Add(in[0], in[1])) },
		kernels: func(m *machine, i int) []kernel { return one(m.elemKernel(i, '+')) }},
	{name: "⊙", arity: 2,
		proto:   func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.HadamardProd(in[0], in[1])) },
		kernels: func(m *machine, i int) []kernel { return one(m.elemKernel(i, '*')) }},
	{name: "≥ as 1 or 0", arity: 2,
		proto:   func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.Gte(in[0], in[1], true)) },
		kernels: func(m *machine, i int) []kernel { return one(m.elemKernel(i, '>')) }},
	{name: "reshape", arity: 1,
		proto:   func(_ G.Op, in G.Nodes, out tensor.Shape) (G.Op, error) { return opOf(G.Reshape(in[0], out.Clone())) },
		kernels: func(m *machine, i int) []kernel { return one(m.reshapeKernel(i, m.op[i])) }},
	{name: "log-softmax of rows", arity: 1,
		proto: func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.LogSoftMax(in[0], 1)) },
		same:  takesTheLogarithm,
		kernels: func(m *machine, i int) []kernel {
			return one(m.softmaxKernel(i, m.args[i][0], -1))
		}},
	{name: "log-softmax of rows, derivative", arity: 3, // of x, the log-softmax y and the gradient by y
		proto: func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) {
			y, err := G.LogSoftMax(in[0], 1)
			if err != nil {
				return nil, err
			}
			return derivative(y.Op(), G.Nodes{in[0]}, y, in[2], 0)
		},
		kernels: func(m *machine, i int) []kernel {
			return one(m.softmaxKernel(i, m.args[i][1], m.args[i][2]))
		}},
	// A graph network's: the products of each position's rows, and the
	// ops that only move values (graphnet.go).
	{name: "batched A·B", arity: 2, proto: batchedProto(false, false),
		kernels: func(m *machine, i int) []kernel { return m.batchedKernels(i, false, false) }},
	{name: "batched Aᵀ·B", arity: 2, proto: batchedProto(true, false),
		kernels: func(m *machine, i int) []kernel { return m.batchedKernels(i, true, false) }},
	{name: "batched A·Bᵀ", arity: 2, proto: batchedProto(false, true),
		kernels: func(m *machine, i int) []kernel { return m.batchedKernels(i, false, true) }},
	{name: "concatenate", arity: -1,
		proto: func(_ G.Op, in G.Nodes, out tensor.Shape) (G.Op, error) {
			axis := concatAxis(in, out)
			if axis < 0 {
				return nil, errNotForRow
			}
			return opOf(G.Concat(axis, in...))
		},
		kernels: func(m *machine, i int) []kernel {
			return one(m.concatKernel(i, concatAxis(m.children(i), m.nodes[i].Shape())))
		}},
	{name: "slice", arity: 1,
		proto: func(op G.Op, in G.Nodes, out tensor.Shape) (G.Op, error) {
			_, _, _, p, err := sliceOf(op, in[0], out)
			return p, err
		},
		kernels: func(m *machine, i int) []kernel {
			along, start, end, _, err := sliceOf(m.op[i], m.nodes[m.args[i][0]], m.nodes[i].Shape())
			if err != nil {
				return nil
			}
			return one(m.sliceKernel(i, along, start, end))
		}},
	{name: "transpose", arity: 1,
		proto: func(op G.Op, in G.Nodes, out tensor.Shape) (G.Op, error) {
			_, p, err := permutationOf(op, in[0], out)
			return p, err
		},
		kernels: func(m *machine, i int) []kernel {
			pattern, _, err := permutationOf(m.op[i], m.nodes[m.args[i][0]], m.nodes[i].Shape())
			if err != nil {
				return nil
			}
			return one(m.transposeKernel(i, pattern))
		}},
}

// errNotForRow is a prototype's error for inputs its row is not for:
// G.Mul makes a product of matrices, an inner product of vectors or an
// element-wise product of scalars alike, and so do their derivatives.
var errNotForRow = errors.New("not the inputs of the row's op")

// opRow is one row of the op table: an op of the training graph, how it
// is recognised, and the kernels that run it.
type opRow struct {
	name  string // the op in the table's words (the tests name ops by it)
	arity int    // -1: any number of inputs (a concatenation's)
	// proto is the op Gorgonia makes for inputs in, nodes of a scratch
	// graph typed and shaped like a node's inputs, and an output shaped
	// out; an error if it makes none for such inputs. op is the node's
	// op, for what its inputs and output do not tell (a slice's bounds,
	// through its public IsSlice; which of a transpose's permutations
	// fitting the shapes it is, told by hash); the prototype is made with
	// Gorgonia's functions all the same.
	proto func(op G.Op, in G.Nodes, out tensor.Shape) (G.Op, error)
	// same, if not nil, checks what the op's hash and type leave out.
	same func(op G.Op, in G.Nodes) bool
	// kernels are the candidate kernels for node i of m, the first that
	// passes check to be used.
	kernels func(m *machine, i int) []kernel
}

// identify is the rows of opTable that op, a node's op with inputs in and
// output shaped out, belongs to: exactly one for an op the kernels run.
func identify(op G.Op, in G.Nodes, out tensor.Shape) []*opRow {
	var rows []*opRow
	var sin G.Nodes // the scratch inputs, made for the first row of op's arity
	for r := range opTable {
		row := &opTable[r]
		if row.arity != op.Arity() || row.arity >= 0 && row.arity != len(in) {
			continue
		}
		if sin == nil {
			g := G.NewGraph()
			sin = make(G.Nodes, len(in))
			for k, n := range in {
				sin[k] = like(g, n.Dtype(), n.Shape(), fmt.Sprintf("in%d", k))
			}
		}
		if matches(row, op, sin, out) {
			rows = append(rows, row)
		}
	}
	return rows
}

// opIndex is the op table's row of each op node of a graph, found once
// for the machines that evaluate the graph (nil: no row, or two).
type opIndex map[*G.Node]*opRow

// row is nd's row, nd an op node with inputs in.
func (x opIndex) row(nd *G.Node, in G.Nodes) *opRow {
	if r, ok := x[nd]; ok {
		return r
	}
	var r *opRow
	if rows := identify(nd.Op(), in, nd.Shape()); len(rows) == 1 {
		r = rows[0]
	}
	x[nd] = r
	return r
}

// matches reports whether op, of a node with inputs like in (nodes of a
// scratch graph) and output shaped out, is row's: the prototype's arity,
// hash and type, and row's own check. Where Gorgonia's functions panic on
// inputs unlike those the row is for, it does not match.
func matches(row *opRow, op G.Op, in G.Nodes, out tensor.Shape) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p, err := row.proto(op, in, out)
	if err != nil || p.Arity() != op.Arity() || p.Hashcode() != op.Hashcode() || !p.Type().Eq(op.Type()) {
		return false
	}
	return row.same == nil || row.same(op, in)
}

// like is a variable node of g of type dt with shape s (a scalar if s has
// no dimensions).
func like(g *G.ExprGraph, dt tensor.Dtype, s tensor.Shape, name string) *G.Node {
	return G.NewTensor(g, dt, s.Dims(), G.WithShape(s.Clone()...), G.WithName(name))
}

// opOf is the op of the node a Gorgonia function made.
func opOf(n *G.Node, err error) (G.Op, error) {
	if err != nil {
		return nil, err
	}
	return n.Op(), nil
}

// derivative is the op of the k-th input's derivative that op, the op of
// node out with inputs in, makes (SDOp.SymDiff) for the gradient grad by
// out.
func derivative(op G.Op, in G.Nodes, out, grad *G.Node, k int) (G.Op, error) {
	sd, ok := op.(G.SDOp)
	if !ok {
		return nil, fmt.Errorf("op %v is not symbolically differentiable", op)
	}
	d, err := sd.SymDiff(in, out, grad)
	if err != nil {
		return nil, err
	}
	if k >= len(d) || d[k] == nil {
		return nil, fmt.Errorf("op %v: no derivative by input %d", op, k)
	}
	return d[k].Op(), nil
}

// productDerivative is the op of the derivative of x·w by its k-th factor
// (0: x, 1: w) for the gradient grad by x·w.
func productDerivative(x, w, grad *G.Node, k int) (G.Op, error) {
	y, err := G.Mul(x, w)
	if err != nil {
		return nil, err
	}
	return derivative(y.Op(), G.Nodes{x, w}, y, grad, k)
}

// takesTheLogarithm reports whether op, a softmax op of the input in[0],
// is the log-softmax: whether the derivative it makes hashes as the
// derivative LogSoftMax's op makes.
func takesTheLogarithm(op G.Op, in G.Nodes) bool {
	x := in[0]
	y := like(x.Graph(), x.Dtype(), x.Shape(), "y")
	grad := like(x.Graph(), x.Dtype(), x.Shape(), "grad")
	got, err := derivative(op, G.Nodes{x}, y, grad, 0)
	if err != nil {
		return false
	}
	ly, err := G.LogSoftMax(x, 1)
	if err != nil {
		return false
	}
	want, err := derivative(ly.Op(), G.Nodes{x}, ly, grad, 0)
	return err == nil && got.Hashcode() == want.Hashcode()
}

// batchedProto is the prototype of the batched product of two
// three-dimensional tensors, a factor transposed where its flag says.
func batchedProto(transA, transB bool) func(G.Op, G.Nodes, tensor.Shape) (G.Op, error) {
	return func(_ G.Op, in G.Nodes, _ tensor.Shape) (G.Op, error) {
		if in[0].Dims() != 3 || in[1].Dims() != 3 {
			return nil, errNotForRow
		}
		return opOf(G.BatchedMatMul(in[0], in[1], transA, transB))
	}
}

// concatAxis is the axis along which inputs in make out by
// concatenation: the first whose length differs from in[0]'s; -1 if
// none does.
func concatAxis(in G.Nodes, out tensor.Shape) int {
	if len(in) < 2 {
		return -1
	}
	s := in[0].Shape()
	if s.Dims() != out.Dims() {
		return -1
	}
	for k := range s {
		if s[k] != out[k] {
			return k
		}
	}
	return -1
}

// sliceOf is the axis, start and end of op, a slice with step 1 (or one
// index) of a tensor typed and shaped like in whose output is shaped out, and its
// prototype. The bounds are op's public IsSlice; the axis is the one
// whose slice by them Gorgonia makes with op's hash.
func sliceOf(op G.Op, in *G.Node, out tensor.Shape) (along, start, end int, proto G.Op, err error) {
	sl, ok := op.(interface{ IsSlice() tensor.Slice })
	if !ok || sl.IsSlice() == nil {
		return 0, 0, 0, nil, errNotForRow
	}
	s := sl.IsSlice()
	start, end = s.Start(), s.End()
	if end <= start || s.Step() != 1 && (s.Step() != 0 || end != start+1) { // G.S(i, i+1) has step 0: index i
		return 0, 0, 0, nil, errNotForRow
	}
	x := like(G.NewGraph(), in.Dtype(), in.Shape(), "x")
	for along := range in.Dims() {
		if end > in.Shape()[along] {
			continue
		}
		slices := make([]tensor.Slice, along+1)
		slices[along] = G.S(start, end)
		if p, err := tryOp(func() (*G.Node, error) { return G.Slice(x, slices...) }); err == nil && p.Hashcode() == op.Hashcode() {
			return along, start, end, p, nil
		}
	}
	return 0, 0, 0, nil, errNotForRow
}

// permutationOf is the axes of op, a transpose of a tensor typed and
// shaped like in whose output is shaped out, and its prototype: of the
// permutations that fit the shapes, the one whose transpose Gorgonia
// makes with op's hash.
func permutationOf(op G.Op, in *G.Node, out tensor.Shape) (pattern []int, proto G.Op, err error) {
	s := in.Shape()
	if s.Dims() < 2 || s.Dims() > 4 || out.Dims() != s.Dims() {
		return nil, nil, errNotForRow
	}
	x := like(G.NewGraph(), in.Dtype(), s, "x")
	for _, p := range permutations(s.Dims()) {
		fits, identity := true, true
		for k, ax := range p {
			fits = fits && s[ax] == out[k]
			identity = identity && ax == k
		}
		if !fits || identity {
			continue
		}
		if t, err := tryOp(func() (*G.Node, error) { return G.Transpose(x, p...) }); err == nil && t.Hashcode() == op.Hashcode() {
			return p, t, nil
		}
	}
	return nil, nil, errNotForRow
}

// permutations is every ordering of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for k := 0; k <= len(p); k++ {
			q := append(append(append([]int(nil), p[:k]...), n-1), p[k:]...)
			out = append(out, q)
		}
	}
	return out
}

// tryOp is the op of the node f makes, an error where Gorgonia's
// function fails or panics (as it does on inputs unlike those it is for).
func tryOp(f func() (*G.Node, error)) (op G.Op, err error) {
	defer func() {
		if recover() != nil {
			op, err = nil, errNotForRow
		}
	}()
	if op, err = opOf(f()); err == nil && op == nil {
		err = errNotForRow // the input itself, as a transpose by the identity is
	}
	return op, err
}
