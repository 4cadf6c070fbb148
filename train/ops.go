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
		proto: func(in G.Nodes, _ tensor.Shape) (G.Op, error) {
			if !in[0].IsMatrix() || !in[1].IsMatrix() {
				return nil, errNotForRow
			}
			return opOf(G.Mul(in[0], in[1]))
		},
		kernels: func(m *machine, i int) []kernel {
			return one(m.matMulKernel(i, false, false, false))
		}},
	{name: "Aᵀ·B", arity: 2, // in the derivative of x·w by w: xᵀ·g
		proto: func(in G.Nodes, out tensor.Shape) (G.Op, error) {
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
		proto: func(in G.Nodes, out tensor.Shape) (G.Op, error) {
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
		proto: func(in G.Nodes, _ tensor.Shape) (G.Op, error) {
			if !in[0].IsVector() || !in[1].IsVector() {
				return nil, errNotForRow
			}
			return opOf(G.Mul(in[0], in[1]))
		},
		kernels: func(m *machine, i int) []kernel { return one(m.dotKernel(i)) }},
	{name: "+", arity: 2,
		proto:   func(in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.Add(in[0], in[1])) },
		kernels: func(m *machine, i int) []kernel { return one(m.elemKernel(i, '+')) }},
	{name: "⊙", arity: 2,
		proto:   func(in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.HadamardProd(in[0], in[1])) },
		kernels: func(m *machine, i int) []kernel { return one(m.elemKernel(i, '*')) }},
	{name: "≥ as 1 or 0", arity: 2,
		proto:   func(in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.Gte(in[0], in[1], true)) },
		kernels: func(m *machine, i int) []kernel { return one(m.elemKernel(i, '>')) }},
	{name: "reshape", arity: 1,
		proto:   func(in G.Nodes, out tensor.Shape) (G.Op, error) { return opOf(G.Reshape(in[0], out.Clone())) },
		kernels: func(m *machine, i int) []kernel { return one(m.reshapeKernel(i, m.op[i])) }},
	{name: "log-softmax of rows", arity: 1,
		proto: func(in G.Nodes, _ tensor.Shape) (G.Op, error) { return opOf(G.LogSoftMax(in[0], 1)) },
		same:  takesTheLogarithm,
		kernels: func(m *machine, i int) []kernel {
			return one(m.softmaxKernel(i, m.args[i][0], -1))
		}},
	{name: "log-softmax of rows, derivative", arity: 3, // of x, the log-softmax y and the gradient by y
		proto: func(in G.Nodes, _ tensor.Shape) (G.Op, error) {
			y, err := G.LogSoftMax(in[0], 1)
			if err != nil {
				return nil, err
			}
			return derivative(y.Op(), G.Nodes{in[0]}, y, in[2], 0)
		},
		kernels: func(m *machine, i int) []kernel {
			return one(m.softmaxKernel(i, m.args[i][1], m.args[i][2]))
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
	arity int
	// proto is the op Gorgonia makes for inputs in, nodes of a scratch
	// graph typed and shaped like a node's inputs, and an output shaped
	// out; an error if it makes none for such inputs.
	proto func(in G.Nodes, out tensor.Shape) (G.Op, error)
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
		if row.arity != op.Arity() || row.arity != len(in) {
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
	p, err := row.proto(in, out)
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
