package model

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GrowsTo reports why a network of architecture a cannot grow into b, or
// nil if it can: two networks of one kind, the same inputs, actions and
// outcomes (and a graph network's board and planes), and a trunk no
// narrower and no shallower.
func (a Arch) GrowsTo(b Arch) error {
	same := b
	same.Width, same.Blocks = a.Width, a.Blocks
	switch {
	case (a.Kind == KindGraph) != (b.Kind == KindGraph):
		return fmt.Errorf("grow %v to %v: a network grows within its kind (an MLP's dense layers and a graph network's per-point channels embed only in their own kind)", a, b)
	case same != a:
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
	if a.Kind == KindGraph {
		return embedGraph(a, b, src)
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

// Grow is n with its trunk widened to c.Width units (a graph network's
// channels a point) and deepened to c.Blocks blocks, computing the same
// function: every weight of n keeps its
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
	if b.Kind == KindGraph {
		g.growGraph(a, rng)
		return g, nil
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

// embedGraph is EmbedParams for graph networks (a.GrowsTo(b) checked).
// A tensor's rows are either of the inputs or of a fixed size (the same in
// a and b), or k groups of a.Width channels (a block's G(H) reads four:
// the point's, its neighbours', its lines' and the board's; a head reads
// one), which become k groups of b.Width: channel c of group j moves from
// row j·a.Width+c to j·b.Width+c. Columns keep their index. A tensor of an
// added block is zero.
func embedGraph(a, b Arch, src [][]float32) ([][]float32, error) {
	pa, pb := a.graphParams(), b.graphParams()
	if len(src) != len(pa) {
		return nil, fmt.Errorf("grow %v to %v: %d tensors, want %d", a, b, len(src), len(pa))
	}
	from := map[string]int{}
	for i, p := range pa {
		if len(src[i]) != len(p.Data) {
			return nil, fmt.Errorf("grow %v to %v: tensor %s has %d values, want %d", a, b, p.Name, len(src[i]), len(p.Data))
		}
		from[p.Name] = i
	}
	dst := make([][]float32, len(pb))
	for j, q := range pb {
		dst[j] = q.Data
		i, ok := from[q.Name]
		if !ok {
			continue
		}
		ra, ca := matrixShape(pa[i].Shape)
		rb, cb := matrixShape(q.Shape)
		row := func(r int) int { return r }
		if ra != rb {
			if ra%a.Width != 0 || rb != ra/a.Width*b.Width {
				return nil, fmt.Errorf("grow %v to %v: tensor %s of shape %v does not embed in %v", a, b, q.Name, pa[i].Shape, q.Shape)
			}
			row = func(r int) int { return r/a.Width*b.Width + r%a.Width }
		}
		for r := range ra {
			copy(dst[j][row(r)*cb:row(r)*cb+ca], src[i][r*ca:(r+1)*ca])
		}
	}
	return dst, nil
}

// matrixShape is a tensor's shape as rows × columns: a vector is one row.
func matrixShape(shape []int) (rows, cols int) {
	if len(shape) == 1 {
		return 1, shape[0]
	}
	return shape[0], shape[1]
}

// growGraph draws the added weights of a graph network grown from a (its
// old tensors embedded by embedGraph), as initGraph draws a new one's: the
// added channels of the input layer and of every old block's two layers
// take random incoming weights from every channel, old and added, and the
// old channels none from the added ones (embedGraph left those zero), so
// the old channels and the heads, which read no added channel, compute
// what they did; an added block's first layer is random and its second
// zero, so the block passes its input through. The same rng draws the same
// added weights.
func (n *Network) growGraph(a Arch, rng *rand.Rand) {
	b := n.Arch
	fill := func(i, from int, std float64) {
		w, cols := n.Params[i].Data, b.Width
		for r := range len(w) / cols {
			for k := from; k < cols; k++ {
				w[r*cols+k] = float32(rng.NormFloat64() * std)
			}
		}
	}
	in := math.Sqrt(2 / float64(b.Planes+b.Globals()))
	fill(GraphInputPoint, a.Width, in)
	fill(GraphInputGlobal, a.Width, in)
	g := math.Sqrt(2 / float64(4*b.Width))
	for k := range b.Blocks {
		if k < a.Blocks {
			fill(GraphBlock(k), a.Width, g)
			fill(GraphBlock(k)+2, a.Width, 0.25*g)
			continue
		}
		fill(GraphBlock(k), 0, g) // an added block: its second layer stays zero
	}
}
