package onnx

import (
	"fmt"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// A graph network (model.KindGraph, specified in model/graph.go) is
// written with its channels as a [batch, P, Width] tensor H, P the
// board's points:
//
//	input:   H = Relu(MatMul(Gather(features, point_index), Wp)
//	                  + Unsqueeze(Gemm(Gather(features, global_index), Wg, b)))
//	gather:  G(X) = Concat(X, N·X, L·X, M·X)    each a MatMul by a constant P×P
//	block:   U = Relu(MatMul(G(H), W1) + b1);  H = Relu(H + MatMul(G(U), W2) + b2)
//	policy:  Q = MatMul(H, Wq) + bq                              [batch, P, 20]
//	         O = Pad(MatMul(Q, So)) + Co                          [batch, P+2, 12]
//	         D = MatMul(Q, Sd) + Cd                               [batch, P, 12]
//	         Reshape(MatMul(O, Transpose(D)))                     [batch, (P+2)·P]
//	         then, on a rotating board, Concat Gemm(mean, Wr, br)
//	outcome: Gemm(Relu(Gemm(mean, Wv1, bv1)), Wv2, bv2), mean = ReduceMean(H) over the points
//
// The rows of O and D are those of the training graph (train/graphnet.go):
// with k = model.GraphRank, point p's origin row is [Q[p,4:4+k] Q[p,2] 1 0 0]
// and its destination row [Q[p,4+k:4+2k] 1 Q[p,3] Q[p,0] Q[p,1]], and O
// has a fixed row more before the points' ([0…0 0 0 1 0]) and one after
// ([0…0 0 0 0 1]). Their products, row by row, are the logits of placing
// at q, of every move p→q (Q[p,2] + Q[q,3] + the product term) and of
// removing at q: the first 2P+P² actions in the action space's order.

// The graph network's policy columns of Q (model/graph.go): place,
// remove, a move's origin, its destination, then the two product terms.
const (
	qPlace, qRemove, qFrom, qTo = 0, 1, 2, 3
	qTerms                      = 4
	qCols                       = qTerms + 2*model.GraphRank
	pairCols                    = model.GraphRank + 4 // an origin or destination row
)

// graphBuilder collects the nodes and the initializers of a graph
// network's graph.
type graphBuilder struct {
	nodes, inits message // GraphProto fields node and initializer
}

// op appends a node of opType reading inputs, named for its one output
// out, and returns out.
func (b *graphBuilder) op(opType, out string, inputs []string, attrs ...message) string {
	b.nodes = b.nodes.sub(graphNode, node(opType, out, inputs, []string{out}, attrs...))
	return out
}

// constant appends the float32 initializer name and returns name.
func (b *graphBuilder) constant(name string, dims []int, data []float32) string {
	b.inits = b.inits.sub(graphInitializer, tensor(name, dims, data))
	return name
}

// ints appends the int64 initializer name and returns name.
func (b *graphBuilder) ints(name string, dims []int, data []int64) string {
	b.inits = b.inits.sub(graphInitializer, int64Tensor(name, dims, data))
	return name
}

// graphNodes appends to g the nodes of graph network n, a network for v,
// from InputFeatures to OutputPolicy and OutputOutcome, and its weights
// and constants as initializers.
func graphNodes(g message, v *engine.Variant, n *model.Network) message {
	a := n.Arch
	P, k := a.Points, model.GraphRank
	par := func(i int) string { return n.Params[i].Name }
	b := &graphBuilder{}

	// The features of a point, [batch, P, planes], and the rest, [batch, G]
	// (what model/graphforward.go reads: every input no plane holds).
	planes := model.FeaturePlanes(v, a.Encoder)
	pointIndex := make([]int64, 0, P*len(planes))
	onPlane := make([]bool, a.Inputs)
	for p := range P {
		for _, o := range planes {
			pointIndex = append(pointIndex, int64(o+p))
			onPlane[o+p] = true
		}
	}
	var globalIndex []int64
	for f, on := range onPlane {
		if !on {
			globalIndex = append(globalIndex, int64(f))
		}
	}
	axis1 := intAttr("axis", 1)
	xp := b.op("Gather", "input.points", []string{InputFeatures, b.ints("features.point_index", []int{P, len(planes)}, pointIndex)}, axis1)
	xg := b.op("Gather", "input.globals", []string{InputFeatures, b.ints("features.global_index", []int{len(globalIndex)}, globalIndex)}, axis1)
	hp := b.op("MatMul", "input.point.matmul", []string{xp, par(model.GraphInputPoint)})
	z := b.op("Gemm", "input.global.gemm", []string{xg, par(model.GraphInputGlobal), par(model.GraphInputBias)})
	z = b.op("Unsqueeze", "input.global.unsqueeze", []string{z, b.ints("unsqueeze.axes", []int{1}, []int64{1})})
	h := b.op("Relu", "input.relu", []string{b.op("Add", "input.add", []string{hp, z})})

	// The board's relations, and a layer of a block.
	nm, lm, mm := a.Relations()
	rel := []string{
		b.constant("relation.neighbours", []int{P, P}, nm),
		b.constant("relation.lines", []int{P, P}, lm),
		b.constant("relation.board", []int{P, P}, mm),
	}
	layer := func(x, prefix string, weight int, skip string) string {
		cat := []string{x}
		for i, what := range []string{"neighbours", "lines", "board"} {
			cat = append(cat, b.op("MatMul", prefix+what, []string{rel[i], x}))
		}
		y := b.op("MatMul", prefix+"matmul", []string{b.op("Concat", prefix+"gather", cat, intAttr("axis", 2)), par(weight)})
		y = b.op("Add", prefix+"add", []string{y, par(weight + 1)})
		if skip != "" {
			y = b.op("Add", prefix+"skip", []string{skip, y})
		}
		return b.op("Relu", prefix+"relu", []string{y})
	}
	for blk := range a.Blocks {
		p := fmt.Sprintf("block%d.", blk)
		u := layer(h, p+"fc1.", model.GraphBlock(blk), "")
		h = layer(u, p+"fc2.", model.GraphBlock(blk)+2, h)
	}

	// The policy over placing, moving and removing: the origin rows times
	// the destination rows.
	pol, rot, val := a.GraphHeads()
	q := b.op("MatMul", "policy.point.matmul", []string{h, par(pol)})
	q = b.op("Add", "policy.point.add", []string{q, par(pol + 1)})
	so, co := make([]float32, qCols*pairCols), make([]float32, (P+2)*pairCols)
	sd, cd := make([]float32, qCols*pairCols), make([]float32, pairCols)
	for j := range k {
		so[(qTerms+j)*pairCols+j] = 1
		sd[(qTerms+k+j)*pairCols+j] = 1
	}
	so[qFrom*pairCols+k] = 1
	sd[qTo*pairCols+k+1] = 1
	sd[qPlace*pairCols+k+2] = 1
	sd[qRemove*pairCols+k+3] = 1
	cd[k] = 1
	co[k+2] = 1 // the row of placing
	for p := range P {
		co[(1+p)*pairCols+k+1] = 1
	}
	co[(P+1)*pairCols+k+3] = 1 // the row of removing
	o := b.op("MatMul", "policy.origin.matmul", []string{q, b.constant("policy.origin.select", []int{qCols, pairCols}, so)})
	o = b.op("Pad", "policy.origin.pad", []string{o, b.ints("policy.origin.pads", []int{6}, []int64{0, 1, 0, 0, 1, 0})})
	o = b.op("Add", "policy.origin", []string{o, b.constant("policy.origin.const", []int{P + 2, pairCols}, co)})
	d := b.op("MatMul", "policy.destination.matmul", []string{q, b.constant("policy.destination.select", []int{qCols, pairCols}, sd)})
	d = b.op("Add", "policy.destination", []string{d, b.constant("policy.destination.const", []int{pairCols}, cd)})
	d = b.op("Transpose", "policy.destination.transpose", []string{d}, intsAttr("perm", 0, 2, 1))
	pairs := b.op("MatMul", "policy.pairs", []string{o, d})
	flat := OutputPolicy
	if rot >= 0 {
		flat = "policy.pairs.flat"
	}
	b.op("Reshape", flat, []string{pairs, b.ints("policy.shape", []int{2}, []int64{0, int64((P + 2) * P)})})

	// The heads of the board's mean: rotations and the outcome.
	mean := b.op("ReduceMean", "board.mean", []string{h}, intsAttr("axes", 1), intAttr("keepdims", 0))
	if rot >= 0 {
		r := b.op("Gemm", "policy.rotation.gemm", []string{mean, par(rot), par(rot + 1)})
		b.op("Concat", OutputPolicy, []string{flat, r}, intAttr("axis", 1))
	}
	hid := b.op("Relu", "value.hidden.relu", []string{b.op("Gemm", "value.hidden.gemm", []string{mean, par(val), par(val + 1)})})
	b.op("Gemm", OutputOutcome, []string{hid, par(val + 2), par(val + 3)})

	for _, p := range n.Params {
		b.constant(p.Name, p.Shape, p.Data)
	}
	return append(append(g, b.nodes...), b.inits...)
}
