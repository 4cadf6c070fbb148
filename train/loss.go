package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/model"
)

// lossGraph is the training loss on a netGraph, with the inputs that
// carry the targets.
type lossGraph struct {
	Pi      *G.Node // input: Batch × Actions, the search's visit distribution (a zero row: no target)
	Z       *G.Node // input: Batch × Outcomes, the game's result one-hot (relative seats)
	Policy  *G.Node // policy cross-entropy summed over the rows, divided by Batch
	Outcome *G.Node // mean outcome cross-entropy
	L2      *G.Node // l2Scale · WeightDecay · Σ w² over the weight matrices of l2Tensors
	Total   *G.Node // Policy + ValueWeight·Outcome + the auxiliary heads' weighted by theirs + L2

	// The auxiliary heads' targets and losses, nil for a head the network
	// lacks: inputs of one-hot rows (a zero row: no target) of the shapes
	// of netGraph's Ownership, Score and Reply, and the mean
	// cross-entropies over those rows (the ownership's over every point
	// of every position).
	OwnT, ScoreT, ReplyT    *G.Node
	Ownership, Score, Reply *G.Node
}

// crossEntropy is the mean over rows of -Σ_j t_ij log softmax(x_i)_j,
// with Gorgonia's stable log-softmax op. A row of zero targets adds 0.
// The double sum is the inner product of t and the log-softmax as
// vectors: its derivative is t times a scalar, where Sum's broadcasts the
// scalar to a matrix first.
func crossEntropy(x, t *G.Node) (*G.Node, error) {
	rows := x.Shape()[0]
	ls, err := G.LogSoftMax(x, 1)
	if err != nil {
		return nil, err
	}
	s, err := dot(t, ls)
	if err != nil {
		return nil, err
	}
	return G.Mul(s, G.NewConstant(float32(-1)/float32(rows)))
}

// dot is Σ a⊙b over all elements of two matrices of one shape, as the
// inner product of their reshapes to vectors (views, not copies).
func dot(a, b *G.Node) (*G.Node, error) {
	n := a.Shape().TotalSize()
	av, err := G.Reshape(a, tensor.Shape{n})
	if err != nil {
		return nil, err
	}
	bv := av
	if b != a {
		if bv, err = G.Reshape(b, tensor.Shape{n}); err != nil {
			return nil, err
		}
	}
	return G.Mul(av, bv)
}

// newLoss adds the loss of c to gr, with the L2 term over the weight
// matrices net.Params[i] for which l2[i] is true only, times l2Scale:
// a trainer splitting the batch over graphs gives each a part of the
// L2 work (its gradient is the cheap part of the loss's, but not when
// every graph has all of it).
func newLoss(gr *netGraph, net *model.Network, c Config, l2 []bool, l2Scale float64) (*lossGraph, error) {
	g, b := gr.G, gr.Batch
	a := net.Arch
	l := &lossGraph{
		Pi: G.NewMatrix(g, tensor.Float32, G.WithShape(b, a.Actions), G.WithName("pi")),
		Z:  G.NewMatrix(g, tensor.Float32, G.WithShape(b, a.Outcomes), G.WithName("z")),
	}
	var err error
	if l.Policy, err = crossEntropy(gr.Policy, l.Pi); err != nil {
		return nil, fmt.Errorf("policy loss: %w", err)
	}
	if l.Outcome, err = crossEntropy(gr.Outcome, l.Z); err != nil {
		return nil, fmt.Errorf("outcome loss: %w", err)
	}
	var sq []*G.Node
	for i, p := range net.Params {
		if !p.IsWeight() || !l2[i] {
			continue
		}
		// w·w as vectors rather than Sum(Square(w)): one pass each way,
		// where Square allocates every run and Sum's derivative
		// broadcasts a scalar to the matrix.
		s, err := dot(gr.Params[i], gr.Params[i])
		if err != nil {
			return nil, fmt.Errorf("L2 of %s: %w", p.Name, err)
		}
		sq = append(sq, s)
	}
	if len(sq) == 0 {
		l.L2 = G.NewConstant(float32(0), G.WithName("l2"))
	} else {
		l2, err := G.ReduceAdd(sq)
		if err == nil {
			l.L2, err = G.Mul(l2, G.NewConstant(float32(c.WeightDecay*l2Scale)))
		}
		if err != nil {
			return nil, fmt.Errorf("L2: %w", err)
		}
	}
	v, err := G.Mul(l.Outcome, G.NewConstant(float32(c.ValueWeight)))
	if err != nil {
		return nil, fmt.Errorf("total loss: %w", err)
	}
	terms := G.Nodes{l.Policy, v, l.L2}
	for _, h := range []struct {
		name   string
		logits *G.Node
		t, ce  **G.Node
		weight float64
	}{{"ownership", gr.Ownership, &l.OwnT, &l.Ownership, c.OwnershipWeight}, {"score", gr.Score, &l.ScoreT, &l.Score, c.ScoreWeight}, {"reply", gr.Reply, &l.ReplyT, &l.Reply, c.ReplyWeight}} {
		if h.logits == nil {
			continue
		}
		*h.t = G.NewMatrix(g, tensor.Float32, G.WithShape(h.logits.Shape()...), G.WithName(h.name+".target"))
		if *h.ce, err = crossEntropy(h.logits, *h.t); err != nil {
			return nil, fmt.Errorf("%s loss: %w", h.name, err)
		}
		wl, err := G.Mul(*h.ce, G.NewConstant(float32(h.weight)))
		if err != nil {
			return nil, fmt.Errorf("%s loss: %w", h.name, err)
		}
		terms = append(terms, wl)
	}
	if l.Total, err = G.ReduceAdd(terms); err != nil {
		return nil, fmt.Errorf("total loss: %w", err)
	}
	return l, nil
}
