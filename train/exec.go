package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// machine evaluates a Gorgonia expression graph, forward and symbolic
// backward nodes alike, by calling each node's op in topological order,
// like Gorgonia's TapeMachine but keeping every node's output from one run
// to the next: an op that can write into a preallocated value
// (G.UsePreallocDoer) writes into its output of the previous run, so after
// the first run the large tensors are never allocated again. The
// TapeMachine instead drops all its values on Reset, which it needs before
// every run, and allocates them again (some 24 MB a step for the default
// network). The ops, and so the forward values and the gradients, are
// Gorgonia's own; only the scheduling is ours. Gorgonia's ops still
// allocate small things on every call (options, views, boxed scalars), so
// after the first run each op runs as a kernel of ours doing the same
// arithmetic on the same tensors, checked bit for bit against the op's
// value of the first run (kernel.go): a run after the first allocates
// nothing. Which kernel runs which op is the op table's (ops.go), which
// knows Gorgonia's ops through its public API; the products of the ops
// and the kernels alike are those of the machine's BLAS (backend).
//
// A machine is not safe for concurrent use. Machines of different graphs
// may run concurrently, also when those graphs share their weight tensors
// (the ops only read their inputs).
type machine struct {
	nodes []*G.Node // in evaluation order: every child before its parents
	op    []G.Op    // nodes[i].Op(), nil for a leaf (input, weight, constant)
	args  [][]int   // indices in nodes of the children of nodes[i], in order
	vals  []G.Value // the output of nodes[i] in the last run
	pre   []bool    // vals[i] is nodes[i]'s own buffer: reuse it
	index map[*G.Node]int
	buf   []G.Value     // the inputs of the op being run
	eng   tensor.Engine // set on the tensors the ops allocate, and on the leaves
	row   []*opRow      // the op table's row of nodes[i]'s op; nil for a leaf and for an op the table lacks
	kern  []kernel      // after the first run: kern[i], if not nil, runs nodes[i]'s op without allocating
	blas  blas32        // the products of the ops (through eng) and of the kernels
	simd  bool          // the element-wise kernels run on AVX2
	split *splitter     // if not nil, splits the kernels' matrix products over goroutines
}

// newMachine prepares to evaluate, with the BLAS and kernels of b, the
// nodes of g that outputs depend on, their ops' rows of the op table
// looked up in ops (and added to it). Only those: Gorgonia's symbolic differentiation of a matrix product
// adds the gradients of both factors, also where one is the features or a
// constant, and the TapeMachine computes them all. Every leaf must have a
// value (G.Let for inputs, G.WithValue for weights) before the first run;
// a leaf's value is read at each run, so rebinding or rewriting it is
// seen.
func newMachine(g *G.ExprGraph, b backend, ops opIndex, outputs ...*G.Node) (*machine, error) {
	sorted, err := G.Sort(g) // roots first
	if err != nil {
		return nil, fmt.Errorf("sort graph: %w", err)
	}
	need := make(map[*G.Node]bool, len(sorted))
	for _, o := range outputs {
		need[o] = true
	}
	var order []*G.Node
	for _, nd := range sorted { // a node's parents come before it
		if !need[nd] {
			continue
		}
		order = append(order, nd)
		it := g.From(nd.ID())
		for it.Next() {
			if c, ok := it.Node().(*G.Node); ok {
				need[c] = true
			}
		}
	}
	n := len(order)
	m := &machine{nodes: make([]*G.Node, n), op: make([]G.Op, n), args: make([][]int, n), row: make([]*opRow, n),
		vals: make([]G.Value, n), pre: make([]bool, n), index: make(map[*G.Node]int, n),
		eng: fastEngine{blas: b.blas}, blas: b.blas, simd: b.simd}
	for i, nd := range order {
		m.nodes[n-1-i] = nd
	}
	maxArgs := 0
	for i, nd := range m.nodes {
		m.index[nd] = i
		it := g.From(nd.ID())
		for it.Next() {
			c, ok := it.Node().(*G.Node)
			if !ok {
				return nil, fmt.Errorf("graph node %v: child of type %T", nd, it.Node())
			}
			j, ok := m.index[c]
			if !ok {
				return nil, fmt.Errorf("graph node %v: child %v not evaluated before it", nd, c)
			}
			m.args[i] = append(m.args[i], j)
		}
		if len(m.args[i]) > 0 {
			m.op[i] = nd.Op()
			m.row[i] = ops.row(nd, m.children(i))
		} else if t, ok := nd.Value().(tensor.Tensor); ok {
			tensor.WithEngine(m.eng)(t)
		}
		maxArgs = max(maxArgs, len(m.args[i]))
	}
	m.buf = make([]G.Value, maxArgs)
	return m, nil
}

// children is the input nodes of node i, in order.
func (m *machine) children(i int) G.Nodes {
	in := make(G.Nodes, len(m.args[i]))
	for k, j := range m.args[i] {
		in[k] = m.nodes[j]
	}
	return in
}

// run evaluates every node once: with Gorgonia's ops on the first run,
// which then compiles the kernels, and with the kernels after it.
func (m *machine) run() error {
	for i, nd := range m.nodes {
		op := m.op[i]
		if op == nil {
			v := nd.Value()
			if v == nil {
				return fmt.Errorf("graph input %s has no value", nd.Name())
			}
			m.vals[i] = v
			continue
		}
		if m.kern != nil && m.kern[i] != nil {
			if err := m.kern[i](); err != nil {
				return fmt.Errorf("graph node %s: %w", nd.Name(), err)
			}
			continue
		}
		in := m.buf[:len(m.args[i])]
		for k, j := range m.args[i] {
			in[k] = m.vals[j]
		}
		var v G.Value
		var err error
		if m.pre[i] {
			v, err = op.(G.UsePreallocDoer).UsePreallocDo(m.vals[i], in...)
		} else {
			v, err = op.Do(in...)
			// A tensor the op made, not a view of an input, computes with
			// the machine's engine (the ops that read it would otherwise
			// multiply with Gorgonia's process-wide BLAS, where the op
			// made it with the standard engine, as a concatenation does),
			// and an op that can write into it does so from the next run
			// (scalars are not reused: some ops take only tensors to
			// write into).
			if t, isTensor := v.(tensor.Tensor); err == nil && isTensor && !sharesMemory(v, in) {
				if _, ok := op.(G.UsePreallocDoer); ok {
					m.pre[i] = true
				}
				tensor.WithEngine(m.eng)(t)
			}
		}
		if err != nil {
			return fmt.Errorf("graph node %s: %w", nd.Name(), err)
		}
		m.vals[i] = v
	}
	clear(m.buf)
	if m.kern == nil {
		m.compile()
	}
	return nil
}

// value is n's output in the last run; n's own value if it is not in the
// graph (a constant used by no op).
func (m *machine) value(n *G.Node) G.Value {
	i, ok := m.index[n]
	if !ok {
		return n.Value()
	}
	return m.vals[i]
}

// float32s is n's output in the last run as a slice, nil if it is not a
// float32 tensor.
func (m *machine) float32s(n *G.Node) []float32 {
	t, ok := m.value(n).(*tensor.Dense)
	if !ok || t.Dtype() != tensor.Float32 {
		return nil
	}
	return t.Float32s()
}

// scalar is n's output in the last run as a number.
func (m *machine) scalar(n *G.Node) (float64, error) {
	switch v := m.value(n).(type) {
	case *G.F32:
		return float64(*v), nil
	case *tensor.Dense:
		if v.Dtype() == tensor.Float32 && v.Shape().TotalSize() == 1 {
			return float64(v.Float32s()[0]), nil
		}
	case tensor.Tensor:
		if d, ok := v.Data().(float32); ok {
			return float64(d), nil
		}
		if d, ok := v.Data().([]float32); ok && len(d) == 1 {
			return float64(d[0]), nil
		}
	}
	return 0, fmt.Errorf("graph node %s: value %T is not a float32 scalar", n.Name(), m.value(n))
}

// sharesMemory reports whether v is backed by the memory of one of in: a
// view (as a reshape returns) must not be written into as a buffer of its
// own.
func sharesMemory(v G.Value, in []G.Value) bool {
	if v == nil {
		return true
	}
	p, size := v.Uintptr(), v.MemSize()
	for _, x := range in {
		if x == nil {
			continue
		}
		q, qs := x.Uintptr(), x.MemSize()
		if p < q+qs && q < p+size {
			return true
		}
	}
	return false
}
