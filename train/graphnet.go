package train

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// The training graph of a graph network (model.KindGraph, whose
// specification is model/graph.go). The channels of a batch are one
// (Points·Batch) × Width matrix H, point-major: row p·Batch+b holds the
// channels of point p of position b. Every weight, shared by the points,
// is then one plain product with H, and a mixing matrix R (Points ×
// Points: the neighbours', the lines' or the board's mean) is R times H's
// reshape to Points × (Batch·Width), a view:
//
//	G(H) = [H | N·H | L·H | M·H]   the four side by side, (Points·Batch) × 4·Width
//
// (a concatenation, which the derivative takes apart by slices).
//
// The features of the whole position enter through Batch rows, spread
// over the points by a product with a column of ones.
//
// The policy head's logits of placing, moving and removing are one
// product per position. With Q = H·Wq + bq (model/graph.go) and k =
// model.GraphRank, each point p has an origin row and a destination row
// of k+4 values (and zeros to pairColumns),
//
//	origin of p:       [Q[p,4:4+k]    Q[p,2]  1       0       0     ]
//	destination of q:  [Q[q,4+k:4+2k] 1       Q[q,3]  Q[q,0]  Q[q,1]]
//
// and there are two fixed origin rows more, [0 … 0 0 0 1 0] before the
// points' and [0 … 0 0 0 0 1] after them. The (Points+2) × Points
// products of the origin rows by the destination rows are, row by row,
// the logits of placing at q, of every move p→q (Q[p,2] + Q[q,3] + the
// product term) and of removing at q: the action space's order
// (engine/actionspace.go), each position's row of logits. The rows'
// columns are picked from Q's by fixed matrices folded into the weights
// (pairSelection); the products are Gorgonia's batched ones, after one
// transpose of each side from point-major to batch-major. A rotating
// board's rotation logits follow, from the mean of the points' channels,
// as the outcome logits are.

// pairColumns is the width of an origin or a destination row of the
// policy head: the product term's rank and four more, padded with zeros
// to a multiple of 16, the GEMM kernels' column blocks (model.GemmAccStrided
// multiplies the columns past the last block in plain Go: the products
// of the (Points·Batch)-row state by 12 columns took a fifth of a step).
const pairColumns = (model.GraphRank + 4 + 15) &^ 15

// pairSelection is the fixed matrices that make the origin rows and the
// destination rows of Q's columns: Q·so + co and Q·sd + cd, so and sd
// Q's columns × pairColumns, co and cd rows of pairColumns.
func pairSelection(qcols int) (so, co, sd, cd []float32) {
	const k, r = pairColumns, model.GraphRank
	so, sd = make([]float32, qcols*k), make([]float32, qcols*k)
	co, cd = make([]float32, k), make([]float32, k)
	for j := range r {
		so[(4+j)*k+j] = 1
		sd[(4+r+j)*k+j] = 1
	}
	so[2*k+r] = 1 // a move's origin
	co[r+1] = 1
	cd[r] = 1
	sd[3*k+r+1] = 1 // a move's destination
	sd[0*k+r+2] = 1 // placing
	sd[1*k+r+3] = 1 // removing
	return so, co, sd, cd
}

// buildGraphNet adds a graph network's inputs (XP, XG), logits and
// outcome logits to gr, whose Params n's are.
func (gr *netGraph) buildGraphNet(n *model.Network) error {
	a, g, b := n.Arch, gr.G, gr.Batch
	pts, w := a.Points, a.Width
	pb := pts * b
	pol, rot, val := a.GraphHeads()
	qcols := n.Params[pol].Shape[1]
	if qcols != 4+2*model.GraphRank {
		return fmt.Errorf("%s: %d columns, want %d", n.Params[pol].Name, qcols, 4+2*model.GraphRank)
	}
	gr.XP = G.NewMatrix(g, tensor.Float32, G.WithShape(pb, a.Planes), G.WithName("xp"))
	gr.XG = G.NewMatrix(g, tensor.Float32, G.WithShape(b, a.Globals()), G.WithName("xg"))
	nm, lm, mm := a.Relations()
	mixing := []*G.Node{fixed(g, "neighbours", pts, pts, nm), fixed(g, "lines", pts, pts, lm), fixed(g, "board", pts, pts, mm)}
	onesPB := constant(g, "ones.points", pb, 1, 1)
	onesB := constant(g, "ones", b, 1, 1)
	onesP := constant(g, "ones.point", pts, 1, 1)
	meanP := constant(g, "mean", 1, pts, 1/float32(pts))

	c := &chain{}
	par := gr.Params
	// affine is x·Params[i] + ones·Params[i+1], the bias down the rows.
	affine := func(x *G.Node, i int, ones *G.Node) *G.Node {
		return c.add(c.mul(x, par[i], n.Params[i].Name), c.mul(ones, par[i+1], n.Params[i+1].Name), n.Params[i+1].Name)
	}
	// gather is G(h), h (Points·Batch) × Width. The four are put side by
	// side as (Points·Batch) × 1 × Width tensors along their middle axis,
	// so that the derivative takes them apart by slices of index 0 to 3:
	// Gorgonia hashes a slice's bounds as bytes, and the column slices of
	// a matrix 4·Width wide would hash alike 256 columns apart (the graph
	// would merge two of them into one node).
	gather := func(h *G.Node) *G.Node {
		hr := c.reshape(h, pts, b*w)
		parts := []*G.Node{c.reshape(h, pb, 1, w)}
		for _, r := range mixing {
			parts = append(parts, c.reshape(c.mul(r, hr, "mixing"), pb, 1, w))
		}
		return c.reshape(c.concat(1, parts...), pb, 4*w)
	}

	// The input layer: the global features' product, with the bias, is
	// spread over the points.
	glob := c.reshape(affine(gr.XG, model.GraphInputGlobal, onesB), 1, b*w)
	spread := c.reshape(c.mul(onesP, glob, "global inputs"), pb, w)
	h := c.relu(c.add(c.mul(gr.XP, par[model.GraphInputPoint], n.Params[model.GraphInputPoint].Name), spread, "input layer"))
	for k := range a.Blocks {
		i := model.GraphBlock(k)
		u := c.relu(affine(gather(h), i, onesPB))
		h = c.relu(c.add(h, affine(gather(u), i+2, onesPB), "skip connection"))
	}
	mean := c.reshape(c.mul(meanP, c.reshape(h, pts, b*w), "mean"), b, w)

	// The policy head, and the reply head of the same function: origin
	// and destination rows, their products.
	so, co, sd, cd := pairSelection(qcols)
	const k = pairColumns
	place, remove := make([]float32, b*k), make([]float32, b*k)
	for i := range b {
		place[i*k+model.GraphRank+2] = 1
		remove[i*k+model.GraphRank+3] = 1
	}
	pair := func(head string, pol, rot int) *G.Node {
		side := func(name string, s, cs []float32) *G.Node {
			sel := fixed(g, name+".select", qcols, k, s)
			ws := c.mul(par[pol], sel, n.Params[pol].Name)
			bs := c.add(c.mul(par[pol+1], sel, n.Params[pol+1].Name), fixed(g, name+".ones", 1, k, cs), name)
			return c.add(c.mul(h, ws, name), c.mul(onesPB, bs, name), name)
		}
		origins, dests := side(head+".origins", so, co), side(head+".destinations", sd, cd)
		rows := c.concat(0, fixed(g, head+".place", 1, b*k, place), c.reshape(origins, pts, b*k), fixed(g, head+".remove", 1, b*k, remove))
		lb := c.transpose(c.reshape(rows, pts+2, b, k), 1, 0, 2)
		rb := c.transpose(c.reshape(dests, pts, b, k), 1, 0, 2)
		logits := c.reshape(c.batchedMul(lb, rb, false, true), b, (pts+2)*pts)
		if rot >= 0 {
			logits = c.concat(1, logits, affine(mean, rot, onesB))
		}
		return logits
	}
	gr.Logits = pair("policy", pol, rot)
	hidden := c.relu(affine(mean, val, onesB))
	gr.Outcome = affine(hidden, val+2, onesB)
	own, score, reply, replyRot := a.AuxHeads()
	if own >= 0 {
		gr.Ownership = affine(h, own, onesPB)
	}
	if score >= 0 {
		gr.Score = affine(hidden, score, onesB)
	}
	if reply >= 0 {
		gr.Reply = pair("reply", reply, replyRot)
	}
	return c.err
}

// chain builds a sequence of Gorgonia ops and keeps the first error:
// after it every op is nil.
type chain struct{ err error }

func (c *chain) keep(n *G.Node, err error, what string) *G.Node {
	if err != nil {
		c.err = fmt.Errorf("%s: %w", what, err)
		return nil
	}
	return n
}

func (c *chain) mul(x, y *G.Node, what string) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.Mul(x, y)
	return c.keep(n, err, what)
}

func (c *chain) add(x, y *G.Node, what string) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.Add(x, y)
	return c.keep(n, err, what)
}

func (c *chain) relu(x *G.Node) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.Rectify(x)
	return c.keep(n, err, "relu")
}

func (c *chain) reshape(x *G.Node, shape ...int) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.Reshape(x, tensor.Shape(shape))
	return c.keep(n, err, fmt.Sprintf("reshape to %v", shape))
}

func (c *chain) concat(axis int, xs ...*G.Node) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.Concat(axis, xs...)
	return c.keep(n, err, fmt.Sprintf("concatenate along axis %d", axis))
}

func (c *chain) transpose(x *G.Node, axes ...int) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.Transpose(x, axes...)
	return c.keep(n, err, fmt.Sprintf("transpose %v", axes))
}

func (c *chain) batchedMul(x, y *G.Node, transA, transB bool) *G.Node {
	if c.err != nil {
		return nil
	}
	n, err := G.BatchedMatMul(x, y, transA, transB)
	return c.keep(n, err, "batched product")
}

// pointFeatures splits a graph network's feature vectors into its
// graph's inputs (netGraph.XP and XG): the planes of every point, point
// by point, and the features of the whole position.
type pointFeatures struct {
	inputs  int
	planes  []int // the offset of each plane (model.FeaturePlanes): point p's value of plane f is feature planes[f]+p
	points  int
	globals []int // the features of the whole position, in increasing order
}

// newPointFeatures is the split of the features of a graph network of
// architecture a for variant v.
func newPointFeatures(v *engine.Variant, a model.Arch) (*pointFeatures, error) {
	planes := model.FeaturePlanes(v, a.Encoder)
	if a.Points != v.Board.Points || len(planes) != a.Planes || model.FeatureSize(v, a.Encoder) != a.Inputs {
		return nil, fmt.Errorf("graph network %v: %s has %d points and %d planes of %d features (encoder %d)",
			a, v.Name, v.Board.Points, len(planes), model.FeatureSize(v, a.Encoder), a.Encoder)
	}
	ofPoint := make([]bool, a.Inputs)
	for _, o := range planes {
		for p := range a.Points {
			if o+p >= a.Inputs || ofPoint[o+p] {
				return nil, fmt.Errorf("graph network %v: the planes of %s overlap or overrun its features", a, v.Name)
			}
			ofPoint[o+p] = true
		}
	}
	f := &pointFeatures{inputs: a.Inputs, planes: planes, points: a.Points}
	for i, p := range ofPoint {
		if !p {
			f.globals = append(f.globals, i)
		}
	}
	if len(f.globals) != a.Globals() {
		return nil, fmt.Errorf("graph network %v: %d features of the whole position, want %d", a, len(f.globals), a.Globals())
	}
	return f, nil
}

// split writes the batch × inputs features x as the graph's inputs: xp,
// (points·batch) × planes, point-major, and xg, batch × globals.
func (f *pointFeatures) split(x []float32, batch int, xp, xg []float32) {
	np, ng := len(f.planes), len(f.globals)
	for b := range batch {
		row := x[b*f.inputs : (b+1)*f.inputs]
		for p := range f.points {
			dst := xp[(p*batch+b)*np : (p*batch+b+1)*np]
			for j, o := range f.planes {
				dst[j] = row[o+p]
			}
		}
		dst := xg[b*ng : (b+1)*ng]
		for j, i := range f.globals {
			dst[j] = row[i]
		}
	}
}
