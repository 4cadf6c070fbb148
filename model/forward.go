package model

import (
	"fmt"

	"github.com/viterin/vek/vek32"
)

// rowChunk is the number of rows multiplied per call of vek's kernel. Below
// 4 rows vek runs the product on the calling goroutine, allocating
// nothing; larger products spawn goroutines. Self-play runs one forward
// pass per search worker, so the pass stays on its goroutine.
const rowChunk = 3

// Forward evaluates a network on batches of feature vectors without
// Gorgonia: plain row-major products on vek's SIMD kernels, the same
// arithmetic as the training graph (TestForwardMatchesGraph). It holds the
// scratch for batches of up to its capacity, so Run allocates nothing. A
// Forward is for one goroutine; many may share one Network.
type Forward struct {
	net  *Network
	max  int
	h, t []float32 // hidden activations, max × Width
	u    []float32 // one chunk of products for the skip connection
}

// NewForward is a forward pass of n for batches of up to maxBatch positions.
func NewForward(n *Network, maxBatch int) *Forward {
	if maxBatch < 1 {
		maxBatch = 1
	}
	w := n.Arch.Width
	return &Forward{net: n, max: maxBatch, h: make([]float32, maxBatch*w), t: make([]float32, maxBatch*w),
		u: make([]float32, rowChunk*w)}
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
	affine(h, x[:batch*a.Inputs], batch, a.Inputs, w, p[0].Data, p[1].Data, nil, true)
	for b := 0; b < a.Blocks; b++ {
		i := 2 + 4*b
		affine(t, h, batch, w, w, p[i].Data, p[i+1].Data, nil, true)
		affine(h, t, batch, w, w, p[i+2].Data, p[i+3].Data, f.u, true)
	}
	i := 2 + 4*a.Blocks
	affine(policy[:batch*a.Actions], h, batch, w, a.Actions, p[i].Data, p[i+1].Data, nil, false)
	affine(outcome[:batch*a.Outcomes], h, batch, w, a.Outcomes, p[i+2].Data, p[i+3].Data, nil, false)
	return nil
}

// affine sets dst (rows×out) to x·w + bias and applies a ReLU if relu.
// With scratch (rowChunk×out) non-nil the layer is residual: dst holds the
// block's input, and the product is added to it before the bias and ReLU.
func affine(dst, x []float32, rows, in, out int, w, bias, scratch []float32, relu bool) {
	for r := 0; r < rows; r += rowChunk {
		e := min(r+rowChunk, rows)
		d := dst[r*out : e*out]
		if scratch != nil {
			tmp := vek32.MatMul_Into(scratch[:len(d)], x[r*in:e*in], w, in)
			vek32.Add_Inplace(d, tmp)
		} else {
			vek32.MatMul_Into(d, x[r*in:e*in], w, in)
		}
		for k := r; k < e; k++ {
			row := dst[k*out : (k+1)*out]
			vek32.Add_Inplace(row, bias)
			if relu {
				vek32.MaximumNumber_Inplace(row, 0)
			}
		}
	}
}
