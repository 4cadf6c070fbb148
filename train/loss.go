package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/model"
)

// lossGraph is the training loss on a model.Graph, with the inputs that
// carry the targets.
type lossGraph struct {
	Pi      *G.Node // input: Batch × Actions, the search's visit distribution (zero rows for no target)
	PiW     *G.Node // input: Batch, 1 where the row has a policy target, else 0
	Z       *G.Node // input: Batch × Outcomes, the game's result one-hot (relative seats)
	Policy  *G.Node // mean policy cross-entropy
	Outcome *G.Node // mean outcome cross-entropy
	L2      *G.Node // WeightDecay · Σ w² over the weight matrices
	Total   *G.Node // Policy + ValueWeight·Outcome + L2
}

// logSumExp is log Σ_j exp(x_ij) per row i, computed stably as
// m_i + log Σ_j exp(x_ij - m_i) with m_i the row's maximum. (Its gradient
// through m is zero in exact arithmetic, so m needs no stop-gradient.)
func logSumExp(x *G.Node) (*G.Node, error) {
	rows := x.Shape()[0]
	m, err := G.Max(x, 1)
	if err != nil {
		return nil, err
	}
	mc, err := G.Reshape(m, tensor.Shape{rows, 1})
	if err != nil {
		return nil, err
	}
	d, err := G.BroadcastSub(x, mc, nil, []byte{1})
	if err != nil {
		return nil, err
	}
	e, err := G.Exp(d)
	if err != nil {
		return nil, err
	}
	s, err := G.Sum(e, 1)
	if err != nil {
		return nil, err
	}
	l, err := G.Log(s)
	if err != nil {
		return nil, err
	}
	return G.Add(l, m)
}

// crossEntropy is (Σ_i w_i·logsumexp(x_i) - Σ_ij t_ij·x_ij) / rows: the
// mean over rows of -Σ_j t_ij log softmax(x_i)_j for targets t summing to
// w_i (1, or 0 for a row without a target). w nil means every w_i is 1.
func crossEntropy(x, t, w *G.Node) (*G.Node, error) {
	rows := x.Shape()[0]
	lse, err := logSumExp(x)
	if err != nil {
		return nil, err
	}
	if w != nil {
		if lse, err = G.HadamardProd(lse, w); err != nil {
			return nil, err
		}
	}
	tx, err := G.HadamardProd(t, x)
	if err != nil {
		return nil, err
	}
	a, err := G.Sum(lse)
	if err != nil {
		return nil, err
	}
	b, err := G.Sum(tx)
	if err != nil {
		return nil, err
	}
	d, err := G.Sub(a, b)
	if err != nil {
		return nil, err
	}
	return G.Mul(d, G.NewConstant(float32(1)/float32(rows)))
}

// newLoss adds the loss of c to gr.
func newLoss(gr *model.Graph, net *model.Network, c Config) (*lossGraph, error) {
	g, b := gr.G, gr.Batch
	a := net.Arch
	l := &lossGraph{
		Pi:  G.NewMatrix(g, tensor.Float32, G.WithShape(b, a.Actions), G.WithName("pi")),
		PiW: G.NewVector(g, tensor.Float32, G.WithShape(b), G.WithName("piw")),
		Z:   G.NewMatrix(g, tensor.Float32, G.WithShape(b, a.Outcomes), G.WithName("z")),
	}
	var err error
	if l.Policy, err = crossEntropy(gr.Policy, l.Pi, l.PiW); err != nil {
		return nil, fmt.Errorf("policy loss: %w", err)
	}
	if l.Outcome, err = crossEntropy(gr.Outcome, l.Z, nil); err != nil {
		return nil, fmt.Errorf("outcome loss: %w", err)
	}
	var sq []*G.Node
	for i, p := range net.Params {
		if !p.IsWeight() {
			continue
		}
		s, err := G.Square(gr.Params[i])
		if err == nil {
			s, err = G.Sum(s)
		}
		if err != nil {
			return nil, fmt.Errorf("L2 of %s: %w", p.Name, err)
		}
		sq = append(sq, s)
	}
	l2, err := G.ReduceAdd(sq)
	if err == nil {
		l.L2, err = G.Mul(l2, G.NewConstant(float32(c.WeightDecay)))
	}
	if err != nil {
		return nil, fmt.Errorf("L2: %w", err)
	}
	v, err := G.Mul(l.Outcome, G.NewConstant(float32(c.ValueWeight)))
	if err == nil {
		l.Total, err = G.ReduceAdd(G.Nodes{l.Policy, v, l.L2})
	}
	if err != nil {
		return nil, fmt.Errorf("total loss: %w", err)
	}
	return l, nil
}
