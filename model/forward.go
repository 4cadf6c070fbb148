package model

import (
	"fmt"
	"math"

	"github.com/viterin/vek/vek32"
)

// Forward evaluates a network on batches of feature vectors without
// Gorgonia: row-major products on the AVX2 FMA kernels of gemmAcc, on the
// calling goroutine, the same arithmetic as the training graph (package
// train's TestForwardMatchesGraph). It holds the scratch for batches of up
// to its capacity, so Run allocates nothing. A Forward is for one
// goroutine; many may share one Network.
//
// A graph network's (Arch.Kind KindGraph) pass is graphForward's, with
// the same methods and answers; NewForward lays its weights out for the
// kernels, so it evaluates them as they were when it was made.
type Forward struct {
	net             *Network
	max             int
	trunk           []Layer   // Arch.Trunk
	policy, outcome Layer     // Arch.Heads
	h, t            []float32 // hidden activations, max × Width
	pt              []float32 // the policy head's weights transposed, Actions × Width, for Logit
	vt              []float32 // the outcome head's weights transposed, Outcomes × Width, for Trunk

	g *graphForward // a graph network's pass; nil for an MLP
}

// NewForward is a forward pass of n for batches of up to maxBatch
// positions, with transposed copies of its heads' weights for Trunk and
// Logit (of all a graph network's weights, laid out for the kernels).
// n must be valid (Network.Validate): as New and
// LoadCheckpoint make them.
func NewForward(n *Network, maxBatch int) *Forward {
	if maxBatch < 1 {
		maxBatch = 1
	}
	a := n.Arch
	if a.Kind == KindGraph {
		return &Forward{net: n, max: maxBatch, g: newGraphForward(n, maxBatch)}
	}
	pol, out := a.Heads()
	return &Forward{net: n, max: maxBatch, trunk: a.Trunk(), policy: pol, outcome: out,
		h: make([]float32, maxBatch*a.Width), t: make([]float32, maxBatch*a.Width),
		pt: transposed(n.Params[pol.W].Data, pol.In, pol.Out), vt: transposed(n.Params[out.W].Data, out.In, out.Out)}
}

// transposed is the cols × rows transpose of the row-major rows × cols m.
func transposed(m []float32, rows, cols int) []float32 {
	t := make([]float32, rows*cols)
	for r := 0; r < rows; r++ {
		for c, x := range m[r*cols : (r+1)*cols] {
			t[c*rows+r] = x
		}
	}
	return t
}

// Network is the network the pass evaluates.
func (f *Forward) Network() *Network { return f.net }

// MaxBatch is the largest batch Run takes.
func (f *Forward) MaxBatch() int { return f.max }

// Run evaluates batch positions: x holds batch×Inputs features, policy
// receives batch×Actions policy logits (unmasked) and outcome batch×Outcomes
// outcome logits.
func (f *Forward) Run(x []float32, batch int, policy, outcome []float32) error {
	a := f.net.Arch
	if err := f.check(x, batch, outcome); err != nil {
		return err
	}
	if len(policy) < batch*a.Actions {
		return fmt.Errorf("forward pass: policy buffer %d for %d positions: want %d", len(policy), batch, batch*a.Actions)
	}
	if f.g != nil {
		f.g.run(x, batch, policy, outcome)
		return nil
	}
	h := f.runTrunk(x, batch)
	f.layer(policy, h, batch, f.policy)
	f.layer(outcome, h, batch, f.outcome)
	return nil
}

// Trunk evaluates batch positions as Run does, but of the policy head only
// the input to it: Logit then reads the logits wanted one at a time. A
// search wants the legal actions' alone, a few dozen of Actions (624 in
// nine), and the policy head is half of the default network's arithmetic.
// Trunk and Logit read the heads' weights as they were when the Forward was
// made (NewForward transposes them): they do not see them changed after.
func (f *Forward) Trunk(x []float32, batch int, outcome []float32) error {
	if err := f.check(x, batch, outcome); err != nil {
		return err
	}
	if f.g != nil {
		f.g.trunk(x, batch, outcome)
		return nil
	}
	h := f.runTrunk(x, batch)
	a := f.net.Arch
	w, bias := a.Width, f.net.Params[f.outcome.W+1].Data
	// The outcome head as a few dot products a position: a product of so
	// few columns would take the GEMM's scalar edge path.
	for r := 0; r < batch; r++ {
		for k := 0; k < a.Outcomes; k++ {
			outcome[r*a.Outcomes+k] = bias[k] + vek32.Dot(h[r*w:(r+1)*w], f.vt[k*w:(k+1)*w])
		}
	}
	return nil
}

// HasScore reports whether the network has a score head (a graph network
// trained with train.score_weight), whose answer Score reads.
func (f *Forward) HasScore() bool { return f.g != nil && f.g.scoreT != nil }

// Score is the material difference position r of the last Trunk's batch
// is expected to end with for its side to move (the mean of the score
// head's classes); NaN without a score head.
func (f *Forward) Score(r int) float32 {
	if !f.HasScore() {
		return float32(math.NaN())
	}
	return f.g.score[r]
}

// check is the errors of a batch the pass cannot take.
func (f *Forward) check(x []float32, batch int, outcome []float32) error {
	a := f.net.Arch
	switch {
	case batch < 1 || batch > f.max:
		return fmt.Errorf("forward pass: batch %d: want 1..%d", batch, f.max)
	case len(x) < batch*a.Inputs:
		return fmt.Errorf("forward pass: %d features for %d positions: want %d", len(x), batch, batch*a.Inputs)
	case len(outcome) < batch*a.Outcomes:
		return fmt.Errorf("forward pass: outcome buffer %d for %d positions: want %d", len(outcome), batch, batch*a.Outcomes)
	}
	return nil
}

// runTrunk runs the trunk's layers (the input layer and the residual
// blocks) on batch positions and returns their last activations (batch ×
// Width, the heads' input). A block's input stays in h while its first
// layer writes t; its second layer adds t's product to it.
func (f *Forward) runTrunk(x []float32, batch int) []float32 {
	w := f.net.Arch.Width
	h, t := f.h[:batch*w], f.t[:batch*w]
	f.layer(h, x, batch, f.trunk[0])
	for _, l := range f.trunk[1:] {
		if l.Residual {
			f.layer(h, t, batch, l)
		} else {
			f.layer(t, h, batch, l)
		}
	}
	return h
}

// layer runs l on rows positions of x into dst, adding what dst holds
// (the block's input) if l is Residual.
func (f *Forward) layer(dst, x []float32, rows int, l Layer) {
	p := f.net.Params
	affine(dst, x, rows, l.In, l.Out, p[l.W].Data, p[l.W+1].Data, l.Residual, l.ReLU)
}

// Logit is the policy logit of action index k for position r of the last
// Trunk's batch: the head's bias and the dot product of the position's
// hidden activations with the action's weights (a graph network's: a few
// of the per-point policy columns Trunk kept, graph.go).
func (f *Forward) Logit(r, k int) float32 {
	if f.g != nil {
		return f.g.logit(r, k)
	}
	w := f.net.Arch.Width
	return f.net.Params[f.policy.W+1].Data[k] + vek32.Dot(f.h[r*w:(r+1)*w], f.pt[k*w:(k+1)*w])
}

// affine sets dst (rows×out) to x·w + bias, or with residual to
// dst + x·w + bias (dst holding the block's input), then applies a ReLU if
// relu.
func affine(dst, x []float32, rows, in, out int, w, bias []float32, residual, relu bool) {
	d := dst[:rows*out]
	for r := 0; r < rows; r++ {
		row := d[r*out : (r+1)*out]
		if residual {
			vek32.Add_Inplace(row, bias)
		} else {
			copy(row, bias)
		}
	}
	gemmAcc(rows, out, in, x, in, w, out, d, out)
	if relu {
		vek32.MaximumNumber_Inplace(d, 0)
	}
}
