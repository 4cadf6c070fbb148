package model

import (
	"fmt"
	"math/rand/v2"
)

// GrowsTo reports why a network of architecture a cannot grow into b, or
// nil if it can: two MLPs of the same inputs, actions and outcomes, and a
// trunk no narrower and no shallower.
func (a Arch) GrowsTo(b Arch) error {
	switch {
	case a.Kind == KindGraph || b.Kind == KindGraph:
		return fmt.Errorf("grow %v to %v: a graph network does not grow (growing widens and deepens an MLP's dense layers, keeping its function; a graph network's shared per-point weights have no such embedding here)", a, b)
	case a.Inputs != b.Inputs || a.Actions != b.Actions || a.Outcomes != b.Outcomes:
		return fmt.Errorf("grow %v to %v: only the trunk (width, blocks) may change", a, b)
	case a.Symmetric || b.Symmetric:
		return fmt.Errorf("grow %v to %v: a symmetric network does not grow (its units are laid out by points)", a, b)
	case b.Width < a.Width || b.Blocks < a.Blocks:
		return fmt.Errorf("grow %v to %v: a network only grows (width %d to %d, blocks %d to %d)", a, b, a.Width, b.Width, a.Blocks, b.Blocks)
	}
	return b.Validate()
}

// EmbedParams places tensors of architecture a (in the order of its
// Params) in zero tensors of b, which a grows to (GrowsTo): each weight
// and bias of a keeps its place, the units and blocks b adds are zero.
// It is how an optimizer's moments follow a network that Grow widened.
func EmbedParams(a, b Arch, src [][]float32) ([][]float32, error) {
	if err := a.GrowsTo(b); err != nil {
		return nil, err
	}
	la, lb := a.layers(), b.layers()
	if len(src) != 2*len(la) {
		return nil, fmt.Errorf("grow %v to %v: %d tensors, want %d", a, b, len(src), 2*len(la))
	}
	dst := make([][]float32, 2*len(lb))
	for i, l := range lb {
		dst[2*i] = make([]float32, l.In*l.Out)
		dst[2*i+1] = make([]float32, l.Out)
	}
	for i, l := range la {
		j := grownLayer(a, b, i)
		w, bias := src[2*i], src[2*i+1]
		if len(w) != l.In*l.Out || len(bias) != l.Out {
			return nil, fmt.Errorf("grow %v to %v: tensor %d has %d values, want %d", a, b, 2*i, len(w), l.In*l.Out)
		}
		out := lb[j].Out
		for r := 0; r < l.In; r++ {
			copy(dst[2*j][r*out:r*out+l.Out], w[r*l.Out:(r+1)*l.Out])
		}
		copy(dst[2*j+1], bias)
	}
	return dst, nil
}

// grownLayer is the index in b.layers() of a.layers()[i]: the input layer
// and the blocks keep their index, the heads move past the added blocks.
func grownLayer(a, b Arch, i int) int {
	if i > 2*a.Blocks {
		return i + 2*(b.Blocks-a.Blocks)
	}
	return i
}

// Grow is n with its trunk widened to c.Width units and deepened to
// c.Blocks blocks, computing the same function: every weight of n keeps its
// place; an added unit takes random incoming weights (as New draws them)
// and sends nothing, its outgoing weights zero, so the old units and the
// outputs do not change while gradients reach it; an added block's second
// layer is zero, so the block passes its input through (a ReLU of a ReLU's
// output) until training moves it. The same rng draws the same added
// weights, so a network and its moving average grow alike.
func Grow(n *Network, c Config, rng *rand.Rand) (*Network, error) {
	a := n.Arch
	b := a
	b.Width, b.Blocks = c.Width, c.Blocks
	src := make([][]float32, len(n.Params))
	for i, p := range n.Params {
		src[i] = p.Data
	}
	dst, err := EmbedParams(a, b, src)
	if err != nil {
		return nil, fmt.Errorf("network for %s: %w", n.Variant, err)
	}
	g := &Network{Variant: n.Variant, Spec: n.Spec, Arch: b, Params: b.zeroParams()}
	for i := range g.Params {
		g.Params[i].Data = dst[i]
	}
	for j, l := range b.layers() {
		newBlock := j > 2*a.Blocks && j <= 2*b.Blocks
		switch {
		case !l.ReLU:
			continue // heads: their outputs are the old ones, the added rows stay zero
		case newBlock && l.Residual:
			continue // zero: the added block starts as the identity
		}
		w, std := g.Params[l.W].Data, l.initStd()
		// The added output units of this layer, or all of an added block's
		// first layer, take random incoming weights.
		from := a.Width
		if newBlock {
			from = 0
		}
		for r := 0; r < l.In; r++ {
			row := w[r*l.Out : (r+1)*l.Out]
			for k := from; k < l.Out; k++ {
				row[k] = float32(rng.NormFloat64() * std)
			}
		}
	}
	return g, nil
}
