package model

import (
	"fmt"
	"math"

	"github.com/millzero/millzero/engine"
)

// A symmetric network (Arch.Symmetric) computes the same function of every
// turn of a board: shown a board turned by any symmetry of the variant, its
// policy is the turned policy and its outcome the same. It is the dense MLP
// of every network, its weights tied so that they commute with the
// symmetries: the board's symmetries are part of the network's structure
// instead of something it learns from turned copies of its data. Inference,
// checkpoints and export do not change; only the weights' values are
// constrained, by Tying, which training keeps.
//
// Each hidden layer's units are laid out as channels of the board's points
// and invariant units: with P points, unit c·P + i (c < Width/P) is channel
// c of point i, and the Width mod P units after them see the board as a
// whole. A symmetry moves a point's units with the point and leaves the
// invariant ones where they are; the features move as the encoder lays
// them out (FeatureMap) and the actions as the board maps them.

// SymmetryTied is the checkpoint metadata "symmetry" of a symmetric network.
const SymmetryTied = "tied"

// Tying is the weight sharing of a symmetric network of one architecture on
// one variant: for every tensor, the orbit of each of its values under the
// symmetries. A weight W[f][k] (input f, output k) equals W[π(f)][ρ(k)] for
// every symmetry (π its input's map, ρ its output's), and a bias b[k] equals
// b[ρ(k)].
type Tying struct {
	arch   Arch
	orbits [][]int32   // per tensor (Network.Params order): each value's orbit
	sizes  [][]float32 // per tensor: each orbit's number of values
	sums   []float64   // scratch: an orbit's sum (Project)
}

// NewTying is the weight sharing of a symmetric network of architecture a
// on variant v. It fails when the trunk has fewer units than the board has
// points, or when a is not an architecture for v, or a graph network's.
// (That the features move as FeatureMap says, for every variant and
// encoder, is the tests'.)
func NewTying(v *engine.Variant, a Arch) (*Tying, error) {
	if a.Kind == KindGraph {
		return nil, fmt.Errorf("symmetric network: %v is a graph network, which is not tied: its weights are shared by every point, so it answers every turn of the board alike by its structure (tying lays out an MLP's units by points)", a)
	}
	pts := v.Board.Points
	if a.Width < pts {
		return nil, fmt.Errorf("symmetric network: width %d is narrower than the %d points of %s (a point's units need at least one channel)", a.Width, pts, v.Name)
	}
	if a.Inputs != FeatureSize(v, a.Encoder) || a.Actions != v.NumActions() {
		return nil, fmt.Errorf("symmetric network: architecture %v does not fit variant %s", a, v.Name)
	}
	n := v.NumSymmetries()
	feat, hidden, acts, outs := make([][]int, n), make([][]int, n), make([][]int, n), make([][]int, n)
	for s := range n {
		feat[s] = FeatureMap(v, a.Encoder, s)
		hidden[s] = unitMap(v, a.Width, s)
		acts[s] = make([]int, a.Actions)
		for i := range acts[s] {
			acts[s][i] = v.ActionIndex(v.MapAction(s, v.ActionAt(i)))
		}
		outs[s] = make([]int, a.Outcomes)
		for i := range outs[s] {
			outs[s][i] = i
		}
	}
	t := &Tying{arch: a}
	for li, l := range a.layers() {
		in, out := hidden, hidden
		switch {
		case li == 0:
			in = feat
		case li == 2*a.Blocks+1:
			out = acts
		case li == 2*a.Blocks+2:
			out = outs
		}
		w, ws := orbitsOf(l.In, l.Out, in, out)
		b, bs := orbitsOf(1, l.Out, nil, out)
		t.orbits = append(t.orbits, w, b)
		t.sizes = append(t.sizes, ws, bs)
	}
	largest := 0
	for _, s := range t.sizes {
		largest = max(largest, len(s))
	}
	t.sums = make([]float64, largest)
	return t, nil
}

// unitMap is where symmetry sym moves each of width hidden units of a
// symmetric network of v: channel c of point i to channel c of i's image,
// the invariant units to themselves.
func unitMap(v *engine.Variant, width, sym int) []int {
	pts := v.Board.Points
	m := make([]int, width)
	for u := range m {
		if c := u / pts; c < width/pts {
			m[u] = c*pts + v.MapPoint(sym, u%pts)
		} else {
			m[u] = u
		}
	}
	return m
}

// orbitsOf numbers the orbits of the values of a rows×cols tensor whose
// row r and column k a symmetry s moves to rowMap[s][r] and colMap[s][k]
// (nil rowMap: one row that no symmetry moves). The maps of a group give
// each value's orbit as its images under all of them; the orbits are
// numbered in the row-major order of their first values.
func orbitsOf(rows, cols int, rowMap, colMap [][]int) ([]int32, []float32) {
	ids := make([]int32, rows*cols)
	for i := range ids {
		ids[i] = -1
	}
	var sizes []float32
	for r := range rows {
		for k := range cols {
			if ids[r*cols+k] >= 0 {
				continue
			}
			id := int32(len(sizes))
			n := 0
			for s := range colMap {
				rr := r
				if rowMap != nil {
					rr = rowMap[s][r]
				}
				j := rr*cols + colMap[s][k]
				if ids[j] < 0 {
					ids[j] = id
					n++
				}
			}
			sizes = append(sizes, float32(n))
		}
	}
	return ids, sizes
}

// Init ties the random weights of a new network of t's architecture: every
// orbit takes the sum of its values over the square root of their number,
// so that a value keeps the deviation the random draw gave it.
func (t *Tying) Init(n *Network) error {
	if err := t.fits(n); err != nil {
		return err
	}
	for i, p := range n.Params {
		t.tie(i, p.Data, func(sum float64, size float32) float32 { return float32(sum / math.Sqrt(float64(size))) })
	}
	return nil
}

// Tie ties the random weights of n, a new symmetric network for v (Init
// with the Tying of its architecture).
func Tie(v *engine.Variant, n *Network) error {
	t, err := NewTying(v, n.Arch)
	if err != nil {
		return err
	}
	return t.Init(n)
}

// Project replaces every value of tensor i's gradient g with the mean of
// its orbit's: the gradient of the tied weights, up to each orbit's size,
// which an optimizer that scales each weight's step (Adam) does not see.
// Weights tied before a step whose gradient is projected stay tied.
func (t *Tying) Project(i int, g []float32) {
	t.tie(i, g, func(sum float64, size float32) float32 { return float32(sum / float64(size)) })
}

// tie writes value(sum, size) of its orbit into every value of tensor i.
func (t *Tying) tie(i int, x []float32, value func(sum float64, size float32) float32) {
	ids, sizes := t.orbits[i], t.sizes[i]
	sums := t.sums[:len(sizes)]
	clear(sums)
	for j, id := range ids {
		sums[id] += float64(x[j])
	}
	for j, id := range ids {
		x[j] = value(sums[id], sizes[id])
	}
}

// Check reports the first tensor of n whose values are not tied.
func (t *Tying) Check(n *Network) error {
	if err := t.fits(n); err != nil {
		return err
	}
	for i, p := range n.Params {
		first := make(map[int32]float32)
		for j, id := range t.orbits[i] {
			if x, ok := first[id]; !ok {
				first[id] = p.Data[j]
			} else if x != p.Data[j] {
				return fmt.Errorf("symmetric network: %s[%d] is %g where its orbit's first value is %g: the weights are not tied", p.Name, j, p.Data[j], x)
			}
		}
	}
	return nil
}

// Orbits is the number of distinct values of a tied network: its weights
// and biases less those the tying makes equal.
func (t *Tying) Orbits() int {
	n := 0
	for _, s := range t.sizes {
		n += len(s)
	}
	return n
}

func (t *Tying) fits(n *Network) error {
	a, b := n.Arch, t.arch
	a.Canonical, b.Canonical = false, false
	if a != b {
		return fmt.Errorf("symmetric network: architecture %v, the tying is for %v", n.Arch, t.arch)
	}
	return nil
}
