package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	// Gorgonia's dependency go4.org/unsafe/assume-no-moving-gc panics at
	// start on Go 1.26 unless this newer version is linked in.
	_ "go4.org/unsafe/assume-no-moving-gc"

	"github.com/millzero/millzero/model"
)

// maskedLogit is the mask value of an illegal action: added to its logit,
// it leaves the action no probability after the softmax (exp underflows to
// exactly 0 in float32) while staying finite.
const maskedLogit float32 = -1e9

// netGraph is the network as a Gorgonia expression graph for one batch
// size, for training. Its weight nodes are backed by the Network's own
// slices: writing Network.Params[i].Data changes what the graph computes,
// and the graph never writes them.
type netGraph struct {
	G       *G.ExprGraph
	Batch   int
	X       *G.Node   // input: Batch × Inputs features (an MLP's; nil for a graph network)
	XP, XG  *G.Node   // a graph network's inputs (nil for an MLP): its features split by pointFeatures
	Mask    *G.Node   // input: Batch × Actions, 0 for a legal action, maskedLogit otherwise
	Logits  *G.Node   // Batch × Actions policy logits, unmasked
	Policy  *G.Node   // Batch × Actions masked policy logits: Logits + Mask
	Outcome *G.Node   // Batch × Outcomes outcome logits
	Params  []*G.Node // the weights, in Network.Params order

	// A graph network's auxiliary heads (model.Aux), nil for a head it
	// lacks: ownership logits (Points·Batch) × OwnershipClasses,
	// point-major as the channels are; score logits Batch ×
	// ScoreClasses; reply logits Batch × Actions, unmasked.
	Ownership, Score, Reply *G.Node
}

// newNetGraph builds the graph of n for batches of batch positions, layer
// by layer as n.Arch lays them out (model.Arch.Trunk, model.Arch.Heads; a
// graph network's as graphnet.go builds it).
func newNetGraph(n *model.Network, batch int) (*netGraph, error) {
	a := n.Arch
	if batch < 1 {
		return nil, fmt.Errorf("graph of %v: batch %d: want 1 or more", a, batch)
	}
	if err := n.Validate(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	if a.Kind == model.KindGraph && a.Globals() < 1 {
		return nil, fmt.Errorf("graph of %v: a graph network without features of the whole position", a)
	}
	g := G.NewGraph()
	gr := &netGraph{G: g, Batch: batch}
	gr.Mask = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, a.Actions), G.WithName("mask"))
	for _, p := range n.Params {
		shape := p.Shape
		if len(shape) == 1 {
			shape = []int{1, shape[0]} // a bias is a row, broadcast down the batch
		}
		if len(p.Data) != shape[0]*shape[1] {
			return nil, fmt.Errorf("graph of %v: %s has %d values for shape %v", a, p.Name, len(p.Data), p.Shape)
		}
		t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(p.Data))
		gr.Params = append(gr.Params, G.NewMatrix(g, tensor.Float32, G.WithShape(shape...), G.WithName(p.Name), G.WithValue(t)))
	}
	if a.Kind == model.KindGraph {
		if err := gr.buildGraphNet(n); err != nil {
			return nil, fmt.Errorf("graph of %v: %w", a, err)
		}
		return gr.masked()
	}
	gr.X = G.NewMatrix(g, tensor.Float32, G.WithShape(batch, a.Inputs), G.WithName("x"))
	// A bias row is broadcast down the batch as the outer product of a
	// column of ones with it: one small matrix product each way, cheaper in
	// Gorgonia than its broadcasting Add, which copies the row batch times
	// and sums them back for the gradient element by element.
	one := constant(g, "ones", batch, 1, 1)
	aff := func(x *G.Node, l model.Layer) (*G.Node, error) {
		xw, err := G.Mul(x, gr.Params[l.W])
		if err != nil {
			return nil, fmt.Errorf("graph: %s: %w", n.Params[l.W].Name, err)
		}
		bias, err := G.Mul(one, gr.Params[l.W+1])
		if err != nil {
			return nil, fmt.Errorf("graph: %s: %w", n.Params[l.W+1].Name, err)
		}
		y, err := G.Add(xw, bias)
		if err != nil {
			return nil, fmt.Errorf("graph: %s: %w", n.Params[l.W+1].Name, err)
		}
		return y, nil
	}
	h := gr.X
	block := h // the input of the current residual block
	var err error
	for _, l := range a.Trunk() {
		if !l.Residual {
			block = h
		}
		if h, err = aff(h, l); err != nil {
			return nil, err
		}
		if l.Residual {
			if h, err = G.Add(h, block); err != nil {
				return nil, fmt.Errorf("graph: skip connection: %w", err)
			}
		}
		if l.ReLU {
			if h, err = G.Rectify(h); err != nil {
				return nil, fmt.Errorf("graph: relu: %w", err)
			}
		}
	}
	policy, outcome := a.Heads()
	if gr.Logits, err = aff(h, policy); err != nil {
		return nil, err
	}
	if gr.Outcome, err = aff(h, outcome); err != nil {
		return nil, err
	}
	return gr.masked()
}

// masked adds the masked policy logits to gr, which has its logits.
func (gr *netGraph) masked() (*netGraph, error) {
	var err error
	if gr.Policy, err = G.Add(gr.Logits, gr.Mask); err != nil {
		return nil, fmt.Errorf("graph: mask: %w", err)
	}
	return gr, nil
}

// constant is a rows × cols constant matrix of g whose every value is x.
func constant(g *G.ExprGraph, name string, rows, cols int, x float32) *G.Node {
	d := make([]float32, rows*cols)
	for i := range d {
		d[i] = x
	}
	return G.NewConstant(tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(d)), G.WithName(name))
}

// fixed is the rows × cols matrix d (row-major) as an input of g named
// name, with its value, which nothing changes: a constant of other values
// than one. Gorgonia hashes a constant by its printed form, which elides
// the middle of a large matrix, and merges two nodes of one hash: two
// constants of one shape that print alike would be one node. An input
// hashes by its name.
func fixed(g *G.ExprGraph, name string, rows, cols int, d []float32) *G.Node {
	t := tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(d))
	return G.NewMatrix(g, tensor.Float32, G.WithShape(rows, cols), G.WithName(name), G.WithValue(t))
}
