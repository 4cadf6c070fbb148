package model

import (
	"fmt"

	"github.com/viterin/vek/vek32"
)

// Forward evaluates a network on batches of feature vectors without
// Gorgonia: row-major products on the AVX2 FMA kernels of gemmAcc, on the
// calling goroutine, the same arithmetic as the training graph
// (TestForwardMatchesGraph). It holds the scratch for batches of up to its
// capacity, so Run allocates nothing. A Forward is for one goroutine; many
// may share one Network.
type Forward struct {
	net  *Network
	max  int
	h, t []float32 // hidden activations, max × Width
}

// NewForward is a forward pass of n for batches of up to maxBatch
// positions. n must be valid (Network.Validate): as New and
// LoadCheckpoint make them.
func NewForward(n *Network, maxBatch int) *Forward {
	if maxBatch < 1 {
		maxBatch = 1
	}
	w := n.Arch.Width
	return &Forward{net: n, max: maxBatch, h: make([]float32, maxBatch*w), t: make([]float32, maxBatch*w)}
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
	switch {
	case batch < 1 || batch > f.max:
		return fmt.Errorf("forward pass: batch %d: want 1..%d", batch, f.max)
	case len(x) < batch*a.Inputs:
		return fmt.Errorf("forward pass: %d features for %d positions: want %d", len(x), batch, batch*a.Inputs)
	case len(policy) < batch*a.Actions:
		return fmt.Errorf("forward pass: policy buffer %d for %d positions: want %d", len(policy), batch, batch*a.Actions)
	case len(outcome) < batch*a.Outcomes:
		return fmt.Errorf("forward pass: outcome buffer %d for %d positions: want %d", len(outcome), batch, batch*a.Outcomes)
	}
	p := f.net.Params
	w := a.Width
	h, t := f.h[:batch*w], f.t[:batch*w]
	affine(h, x, batch, a.Inputs, w, p[0].Data, p[1].Data, false, true)
	for b := 0; b < a.Blocks; b++ {
		i := 2 + 4*b
		affine(t, h, batch, w, w, p[i].Data, p[i+1].Data, false, true)
		affine(h, t, batch, w, w, p[i+2].Data, p[i+3].Data, true, true)
	}
	i := 2 + 4*a.Blocks
	affine(policy, h, batch, w, a.Actions, p[i].Data, p[i+1].Data, false, false)
	affine(outcome, h, batch, w, a.Outcomes, p[i+2].Data, p[i+3].Data, false, false)
	return nil
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
