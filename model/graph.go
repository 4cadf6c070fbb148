package model

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
)

// A graph network (Arch.Kind KindGraph) keeps Width channels at each of
// the board's P points and mixes them along the board's structure, so
// that what it learns at one point holds at every point alike and every
// turn of the board is answered alike. With H the P×Width channels of a
// position, a layer reads the gathered
//
//	G(H) = [H | N·H | L·H | M·H]   (P × 4·Width)
//
// where N averages a point's neighbours, L the other points of its lines
// and M the whole board (Relations), and maps it by one 4·Width×Width
// weight shared by every point. The layers:
//
//	input:   H = relu(Xp·Wp + Xg·Wg + b)   Xp the point's planes (P × Planes), Xg the rest (broadcast)
//	block:   U = relu(G(H)·W1 + b1);  H = relu(H + G(U)·W2 + b2)
//	policy:  Q = H·Wq + bq             (P × 4+2·GraphRank)
//	         place p: Q[p,0]   remove p: Q[p,1]
//	         move p→q: Q[p,2] + Q[q,3] + Σ_j Q[p,4+j]·Q[q,4+GraphRank+j]
//	         rotations (a rotating board): mean(H)·Wr + br
//	outcome: relu(mean(H)·Wv1 + bv1)·Wv2 + bv2
//
// mean(H) is the mean over the points. The parameters, in order, are
// graphParams'.

// GraphRank is the rank of a graph network's move logits' product term:
// how a move's origin and destination interact beyond each on its own.
const GraphRank = 8

// GraphValueHidden is the width of a graph network's outcome head's hidden
// layer.
const GraphValueHidden = 64

// graphPointHeads is the per-point policy columns before the product
// terms: place, remove, a move's origin, a move's destination.
const graphPointHeads = 4

// maxLines is the most lines a board may have for a graph network.
const maxLines = 64

// Topology is a board's structure as a graph network reads it: each
// point's neighbours and the board's lines, as point sets; and the pieces
// a seat has (which size the score head, heads.go). It is comparable, so
// an Arch that holds it is.
type Topology struct {
	Adjacent [engine.MaxPoints]uint32
	Lines    [maxLines]uint32
	NLines   int
	Pieces   int
}

// TopologyOf is the topology of v's board.
func TopologyOf(v *engine.Variant) Topology {
	var t Topology
	t.Adjacent = v.Board.Adjacent
	t.NLines = copy(t.Lines[:], v.Board.Lines)
	t.Pieces = v.Pieces
	return t
}

// Relations is the three mixing matrices of a graph network over P
// points, each P×P row-major: N (row p is 1/deg(p) at each neighbour of
// p), L (1/k at each of the k other points sharing a line with p) and M
// (1/P everywhere). A row with nothing to average is zero.
func (a Arch) Relations() (n, l, m []float32) {
	p := a.Points
	n, l, m = make([]float32, p*p), make([]float32, p*p), make([]float32, p*p)
	t := &a.Topology
	for i := range p {
		if d := bits.OnesCount32(t.Adjacent[i]); d > 0 {
			for s := t.Adjacent[i]; s != 0; s &= s - 1 {
				n[i*p+bits.TrailingZeros32(s)] = 1 / float32(d)
			}
		}
		var mates uint32
		for _, line := range t.Lines[:t.NLines] {
			if line&(1<<i) != 0 {
				mates |= line
			}
		}
		mates &^= 1 << i
		if d := bits.OnesCount32(mates); d > 0 {
			for s := mates; s != 0; s &= s - 1 {
				l[i*p+bits.TrailingZeros32(s)] = 1 / float32(d)
			}
		}
		for j := range p {
			m[i*p+j] = 1 / float32(p)
		}
	}
	return n, l, m
}

// Globals is the number of a graph network's inputs that are of the whole
// position rather than of a point.
func (a Arch) Globals() int { return a.Inputs - a.Planes*a.Points }

// Rotations is the number of rotation actions (a rotating board's), the
// last policy logits.
func (a Arch) Rotations() int { return a.Actions - 2*a.Points - a.Points*a.Points }

func (a Arch) validateGraph() error {
	switch {
	case a.Points < 1 || a.Points > engine.MaxPoints:
		return fmt.Errorf("architecture: graph network of %d points: want 1..%d", a.Points, engine.MaxPoints)
	case a.Planes < 1 || a.Globals() < 0:
		return fmt.Errorf("architecture: graph network with %d planes of %d points and %d inputs", a.Planes, a.Points, a.Inputs)
	case a.Rotations() < 0:
		return fmt.Errorf("architecture: graph network of %d points with %d actions: want %d or more", a.Points, a.Actions, 2*a.Points+a.Points*a.Points)
	case a.Symmetric:
		return fmt.Errorf("architecture: a graph network is not tied (symmetric): its structure answers every turn alike")
	case a.Topology.NLines < 1 || a.Topology.NLines > maxLines:
		return fmt.Errorf("architecture: graph network with %d lines: want the board's topology (NewArch, or the checkpoint's variant, sets it)", a.Topology.NLines)
	}
	if planes := a.featurePlanes(); len(planes) != a.Planes || planes[len(planes)-1]+a.Points > a.Inputs {
		return fmt.Errorf("architecture: graph network with %d planes of %d points in %d inputs: feature encoder %d lays out %d planes",
			a.Planes, a.Points, a.Inputs, Config{Features: a.Encoder}.Encoder(), len(planes))
	}
	board := uint32(1)<<a.Points - 1 // 32 points: the shift gives 0, and 0-1 every bit
	for i, adj := range a.Topology.Adjacent {
		if adj&^board != 0 || (i >= a.Points && adj != 0) {
			return fmt.Errorf("architecture: graph network of %d points: point %d's neighbours %#x are not on the board", a.Points, i, adj)
		}
	}
	for _, line := range a.Topology.Lines[:a.Topology.NLines] {
		if line&^board != 0 {
			return fmt.Errorf("architecture: graph network of %d points: line %#x is not on the board", a.Points, line)
		}
	}
	return nil
}

// featurePlanes is the offsets of the point planes among the inputs of a
// graph network (FeaturePlanes of its variant and encoder).
func (a Arch) featurePlanes() []int {
	return featurePlanes(a.Points, a.Outcomes-1, a.Rotations(), Config{Features: a.Encoder}.Encoder())
}

// graphGlobals is the inputs of a graph network that are of the whole
// position (the Globals of them), in increasing order: every input that
// no plane holds.
func (a Arch) graphGlobals() []int {
	point := make([]bool, a.Inputs)
	for _, o := range a.featurePlanes() {
		for i := range a.Points {
			point[o+i] = true
		}
	}
	var g []int
	for f, p := range point {
		if !p {
			g = append(g, f)
		}
	}
	return g
}

// Graph parameter indices, in graphParams' order: the input layer's three
// tensors, then each block's four (fc1 weight and bias, fc2 weight and
// bias), then the heads'.
const (
	GraphInputPoint  = 0 // Planes × Width
	GraphInputGlobal = 1 // Globals × Width
	GraphInputBias   = 2 // Width
	graphBlockStart  = 3
)

// GraphBlock is the index of block b's first tensor (fc1's weight, 4·Width
// × Width); fc1's bias, fc2's weight and bias follow.
func GraphBlock(b int) int { return graphBlockStart + 4*b }

// GraphHeads is the index of the policy head's point weight (Width ×
// 4+2·GraphRank), followed by its bias; then, on a rotating board, the
// rotation weight (Width × Rotations) and bias; then the outcome head's
// hidden weight (Width × GraphValueHidden) and bias, and its output
// weight (GraphValueHidden × Outcomes) and bias. The auxiliary heads'
// follow (AuxHeads).
func (a Arch) GraphHeads() (policy, rotation, value int) {
	policy = GraphBlock(a.Blocks)
	value = policy + 2
	rotation = -1
	if a.Rotations() > 0 {
		rotation, value = value, value+2
	}
	return policy, rotation, value
}

// graphParams allocates a graph network's tensors, all zero.
func (a Arch) graphParams() []Param {
	w := a.Width
	var ps []Param
	add := func(name string, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		ps = append(ps, Param{Name: name, Shape: shape, Data: make([]float32, n)})
	}
	add("input.point.weight", a.Planes, w)
	add("input.global.weight", a.Globals(), w)
	add("input.bias", w)
	for b := range a.Blocks {
		for f := 1; f <= 2; f++ {
			add(fmt.Sprintf("block%d.fc%d.weight", b, f), 4*w, w)
			add(fmt.Sprintf("block%d.fc%d.bias", b, f), w)
		}
	}
	add("policy.point.weight", w, graphPointHeads+2*GraphRank)
	add("policy.point.bias", graphPointHeads+2*GraphRank)
	if r := a.Rotations(); r > 0 {
		add("policy.rotation.weight", w, r)
		add("policy.rotation.bias", r)
	}
	add("value.hidden.weight", w, GraphValueHidden)
	add("value.hidden.bias", GraphValueHidden)
	add("value.weight", GraphValueHidden, a.Outcomes)
	add("value.bias", a.Outcomes)
	a.auxParams(add)
	return ps
}

// initGraph draws a graph network's weights as New does an MLP's:
// He-normal before a ReLU, each block's second layer scaled down so that
// blocks start near the identity, the heads' output layers by their fan-in
// alone; biases zero.
func (n *Network) initGraph(rng *rand.Rand) {
	a := n.Arch
	fill := func(i int, std float64) {
		for j := range n.Params[i].Data {
			n.Params[i].Data[j] = float32(rng.NormFloat64() * std)
		}
	}
	in := float64(a.Planes + a.Globals())
	fill(GraphInputPoint, math.Sqrt(2/in))
	fill(GraphInputGlobal, math.Sqrt(2/in))
	g := float64(4 * a.Width)
	for b := range a.Blocks {
		fill(GraphBlock(b), math.Sqrt(2/g))
		fill(GraphBlock(b)+2, 0.25*math.Sqrt(2/g))
	}
	pol, rot, val := a.GraphHeads()
	fill(pol, math.Sqrt(1/float64(a.Width)))
	if rot >= 0 {
		fill(rot, math.Sqrt(1/float64(a.Width)))
	}
	fill(val, math.Sqrt(2/float64(a.Width)))
	fill(val+2, math.Sqrt(1/float64(GraphValueHidden)))
	n.drawHeads(a.Aux, rng) // last: the other weights are a network's without them
}

// graphMACs is the multiply-adds of a graph network's forward pass for one
// position: the products by the weights and the mixing of the points. The
// auxiliary heads are not in it: the forward pass computes none.
func (a Arch) graphMACs() int {
	p, w := a.Points, a.Width
	n := p*a.Planes*w + a.Globals()*w
	n += a.Blocks * 2 * (p*4*w*w + 3*p*p*w)
	q := graphPointHeads + 2*GraphRank
	n += p*w*q + p*p*GraphRank + w*a.Rotations() + w*GraphValueHidden + GraphValueHidden*a.Outcomes
	return n
}
