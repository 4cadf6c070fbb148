package model

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// graphChunk is the most positions a graph network's pass runs through
// its layers at once: their activations (P·channels floats, 3 KB a
// position of nine at 32 channels) stay in the core's L2 cache from one
// product to the next. 16 to 64 measure alike.
const graphChunk = 32

// graphForward is the forward pass of a graph network (graph.go), the
// Forward of an Arch of KindGraph. It runs the positions in chunks of up
// to graphChunk, each chunk's activations point-major: row p·b + j of a
// chunk of b positions is point p of its position j, its channels
// contiguous, so that one product by a layer's shared weight covers every
// point of every position, and on the P × (b·channels) view of the same
// rows the mixing along the board (N·H, L·H) is a mean of a few whole
// rows (MeanRows; a product by the P×P relations costs more). M·H is the
// same at every point of a position: its product by the weight is taken
// once a position, with the bias. The move logits' product term waits for
// Logit, which reads GraphRank columns of the two points.
//
// NewForward lays the weights out for the kernels, each channel count
// padded to a multiple of 8 (the narrowest kernel, gemmNarrow's) with
// zeros that stay zero, so the pass evaluates the weights as they were
// when it was made.
type graphForward struct {
	p, wp   int   // points; channels padded to a multiple of 8
	planes  []int // the inputs' point planes (Arch.featurePlanes)
	globals []int // the inputs of the whole position (Arch.graphGlobals)
	nIn     int   // inputs per position
	rot     int   // rotation logits (Arch.Rotations)
	outs    int   // outcome logits

	sources [][]int // row i of [N; L] (2P × P, Arch.Relations) is the mean of these points'
	points  []int   // every point: M's rows, the board's mean

	inPoint, inGlobal, inBias []float32 // Planes × wp, Globals × wp, wp
	layers                    []graphLayer
	pol, polBias              []float32 // wp × graphQ, graphQ: the per-point policy columns, padded
	rotT, rotBias             []float32 // Rotations × wp (transposed), Rotations
	hid, hidBias              []float32 // wp × GraphValueHidden, GraphValueHidden
	outT, outBias             []float32 // Outcomes × GraphValueHidden (transposed), Outcomes
	scoreT, scoreBias         []float32 // with a score head: ScoreClasses × GraphValueHidden (transposed), ScoreClasses; nil without
	pieces                    int       // the score classes' offset: class c is a difference of c - pieces

	// Scratch of one chunk.
	xp    []float32 // P·graphChunk × Planes: the point features, point-major
	xg    []float32 // graphChunk × Globals
	h, u  []float32 // P·graphChunk × wp: a block's input (and output), its hidden layer
	nl    []float32 // 2P·graphChunk × wp: N·X, then L·X, of a layer's input X
	avg   []float32 // graphChunk × wp: the mean over the points
	z     []float32 // graphChunk × wp: what each position adds to all its points
	vh    []float32 // graphChunk × GraphValueHidden
	moveT []float32 // GraphRank × P: a position's destination columns transposed (Run)

	// The last Trunk's answers, for Logit: q, P·batch × graphQ, chunk
	// after chunk, each point-major; rotation logits batch × Rotations;
	// with a score head, the expected material difference a position.
	q, rl []float32
	score []float32
	batch int
}

// graphQ is the per-point policy columns as the pass keeps them:
// graphPointHeads + 2·GraphRank, padded to a multiple of 8 (gemmNarrow's
// columns).
const graphQ = (graphPointHeads + 2*GraphRank + 7) &^ 7

// graphLayer is one layer of a block, its weight split by what it reads.
type graphLayer struct {
	point []float32 // 3·wp × wp: rows of the point's own channels, then of N·H, then of L·H
	board []float32 // wp × wp: rows of M·H, the board's mean, the same at every point
	bias  []float32 // wp
}

// newGraphForward lays out n's weights for a pass of batches up to max.
func newGraphForward(n *Network, max int) *graphForward {
	a := n.Arch
	w := a.Width
	wp := (w + 7) &^ 7
	g := &graphForward{p: a.Points, wp: wp, planes: a.featurePlanes(), globals: a.graphGlobals(), nIn: a.Inputs,
		rot: a.Rotations(), outs: a.Outcomes}
	P := a.Points
	nm, lm, _ := a.Relations()
	mix := append(nm, lm...)
	g.sources = make([][]int, 2*P)
	for i := range g.sources {
		for q := range P {
			if mix[i*P+q] != 0 { // each of the row's values is 1/its count
				g.sources[i] = append(g.sources[i], q)
			}
		}
	}
	g.points = make([]int, P)
	for i := range g.points {
		g.points[i] = i
	}
	par := func(i int) []float32 { return n.Params[i].Data }
	g.inPoint = padded(par(GraphInputPoint), a.Planes, w, a.Planes, wp)
	g.inGlobal = padded(par(GraphInputGlobal), a.Globals(), w, a.Globals(), wp)
	g.inBias = padded(par(GraphInputBias), 1, w, 1, wp)
	for b := range a.Blocks {
		for f := range 2 {
			wt, bias := par(GraphBlock(b)+2*f), par(GraphBlock(b)+2*f+1)
			l := graphLayer{point: make([]float32, 3*wp*wp), bias: padded(bias, 1, w, 1, wp)}
			for k := range 3 {
				copy(l.point[k*wp*wp:], padded(wt[k*w*w:(k+1)*w*w], w, w, wp, wp))
			}
			l.board = padded(wt[3*w*w:], w, w, wp, wp)
			g.layers = append(g.layers, l)
		}
	}
	pol, rot, val := a.GraphHeads()
	q := graphPointHeads + 2*GraphRank
	g.pol = padded(par(pol), w, q, wp, graphQ)
	g.polBias = padded(par(pol+1), 1, q, 1, graphQ)
	if rot >= 0 {
		g.rotT = padded(transposed(par(rot), w, g.rot), g.rot, w, g.rot, wp)
		g.rotBias = append([]float32(nil), par(rot+1)...)
	}
	g.hid = padded(par(val), w, GraphValueHidden, wp, GraphValueHidden)
	g.hidBias = append([]float32(nil), par(val+1)...)
	g.outT = transposed(par(val+2), GraphValueHidden, a.Outcomes)
	g.outBias = append([]float32(nil), par(val+3)...)
	if _, sc, _, _ := a.AuxHeads(); sc >= 0 {
		g.scoreT = transposed(par(sc), GraphValueHidden, a.ScoreClasses())
		g.scoreBias = append([]float32(nil), par(sc+1)...)
		g.pieces = a.Topology.Pieces
		g.score = make([]float32, max)
	}

	c := min(max, graphChunk)
	g.xp = make([]float32, P*c*a.Planes)
	g.xg = make([]float32, c*a.Globals())
	g.h, g.u = make([]float32, P*c*wp), make([]float32, P*c*wp)
	g.nl = make([]float32, 2*P*c*wp)
	g.avg, g.z = make([]float32, c*wp), make([]float32, c*wp)
	g.vh = make([]float32, c*GraphValueHidden)
	g.moveT = make([]float32, GraphRank*P)
	g.q = make([]float32, P*max*graphQ)
	g.rl = make([]float32, max*g.rot)
	return g
}

// padded is the rows × cols row-major m copied into the top left of a
// zero prows × pcols matrix.
func padded(m []float32, rows, cols, prows, pcols int) []float32 {
	d := make([]float32, prows*pcols)
	for r := range rows {
		copy(d[r*pcols:r*pcols+cols], m[r*cols:(r+1)*cols])
	}
	return d
}

// trunk runs batch positions of x (batch × inputs) through the network
// and keeps the per-point policy columns and the rotation logits for
// logit; it writes the outcome logits (batch × Outcomes).
func (g *graphForward) trunk(x []float32, batch int, outcome []float32) {
	g.batch = batch
	for c0 := 0; c0 < batch; c0 += graphChunk {
		g.chunk(x, c0, min(graphChunk, batch-c0), outcome)
	}
}

// chunk runs positions c0 .. c0+b-1.
func (g *graphForward) chunk(x []float32, c0, b int, outcome []float32) {
	P, wp := g.p, g.wp
	rows := P * b
	h, u := g.h[:rows*wp], g.u[:rows*wp]

	// Input: H = relu(Xp·Wp + Xg·Wg + bias), the position's part (Xg·Wg
	// and the bias) the same at each of its points.
	nf, ng := len(g.planes), len(g.globals)
	xp, xg := g.xp[:rows*nf], g.xg[:b*ng]
	for j := range b {
		in := x[(c0+j)*g.nIn : (c0+j+1)*g.nIn]
		for k, f := range g.globals {
			xg[j*ng+k] = in[f]
		}
		for p := range P {
			row := xp[(p*b+j)*nf : (p*b+j+1)*nf]
			for k, o := range g.planes {
				row[k] = in[o+p]
			}
		}
	}
	z := g.z[:b*wp]
	for j := range b {
		copy(z[j*wp:(j+1)*wp], g.inBias)
	}
	gemmNarrow(b, wp, ng, xg, ng, g.inGlobal, wp, z, wp)
	for p := range P {
		copy(h[p*b*wp:(p+1)*b*wp], z)
	}
	gemmNarrow(rows, wp, nf, xp, nf, g.inPoint, wp, h, wp)
	ReLU(h)

	for i := 0; i < len(g.layers); i += 2 {
		g.layer(u, h, b, &g.layers[i], false)
		g.layer(h, u, b, &g.layers[i+1], true)
	}

	// Heads. Q = H·Wq + bq at every point.
	q := g.q[c0*P*graphQ : (c0+b)*P*graphQ]
	copy(q, g.polBias)
	for n := graphQ; n < len(q); n *= 2 { // the bias in every row, in doubling copies
		copy(q[n:], q[:n])
	}
	gemmNarrow(rows, graphQ, wp, h, wp, g.pol, graphQ, q, graphQ)
	avg := g.boardMean(h, b)
	for j := range b {
		m := avg[j*wp : (j+1)*wp]
		for k := range g.rot {
			g.rl[(c0+j)*g.rot+k] = g.rotBias[k] + vek32.Dot(m, g.rotT[k*wp:(k+1)*wp])
		}
	}
	vh := g.vh[:b*GraphValueHidden]
	for j := range b {
		copy(vh[j*GraphValueHidden:(j+1)*GraphValueHidden], g.hidBias)
	}
	gemmAcc(b, GraphValueHidden, wp, avg, wp, g.hid, GraphValueHidden, vh, GraphValueHidden)
	ReLU(vh)
	for j := range b {
		for k := range g.outs {
			outcome[(c0+j)*g.outs+k] = g.outBias[k] + vek32.Dot(vh[j*GraphValueHidden:(j+1)*GraphValueHidden], g.outT[k*GraphValueHidden:(k+1)*GraphValueHidden])
		}
	}
	if g.scoreT != nil {
		for j := range b {
			g.score[c0+j] = g.expectedScore(vh[j*GraphValueHidden : (j+1)*GraphValueHidden])
		}
	}
}

// expectedScore is the mean material difference of the score head's
// softmax over its classes, from a position's value hidden layer vh.
func (g *graphForward) expectedScore(vh []float32) float32 {
	top := float32(math.Inf(-1))
	n := len(g.scoreBias)
	var logits [2*maxScorePieces + 1]float32
	for c := range n {
		logits[c] = g.scoreBias[c] + vek32.Dot(vh, g.scoreT[c*GraphValueHidden:(c+1)*GraphValueHidden])
		top = max(top, logits[c])
	}
	var sum, mean float32
	for c := range n {
		w := float32(math.Exp(float64(logits[c] - top)))
		sum += w
		mean += w * float32(c-g.pieces)
	}
	return mean / sum
}

// boardMean is the mean over the points of x (P·b × wp, point-major),
// b × wp.
func (g *graphForward) boardMean(x []float32, b int) []float32 {
	avg := g.avg[:b*g.wp]
	MeanRows(avg, x, g.points, b*g.wp)
	return avg
}

// layer sets dst to relu(G(x)·W + bias), or with residual to
// relu(dst + G(x)·W + bias), for b positions (P·b × wp each, point-major):
// G(x)·W is x·W₀ + (N·x)·W₁ + (L·x)·W₂ + (M·x)·W₃, and M·x, the same row
// at every point of a position, is taken once a position with the bias.
func (g *graphForward) layer(dst, x []float32, b int, l *graphLayer, residual bool) {
	P, wp := g.p, g.wp
	rows, span := P*b, b*wp // span: a point's row of the P × (b·wp) view
	nl := g.nl[:2*rows*wp]
	g.mix(nl, x, span)
	avg := g.boardMean(x, b)
	z := g.z[:b*wp]
	for j := range b {
		copy(z[j*wp:(j+1)*wp], l.bias)
	}
	gemmNarrow(b, wp, wp, avg, wp, l.board, wp, z, wp)
	for p := range P {
		if residual {
			vek32.Add_Inplace(dst[p*span:(p+1)*span], z)
		} else {
			copy(dst[p*span:(p+1)*span], z)
		}
	}
	gemmNarrow(rows, wp, wp, x, wp, l.point[:wp*wp], wp, dst, wp)
	gemmNarrow(rows, wp, wp, nl[:rows*wp], wp, l.point[wp*wp:2*wp*wp], wp, dst, wp)
	gemmNarrow(rows, wp, wp, nl[rows*wp:], wp, l.point[2*wp*wp:], wp, dst, wp)
	ReLU(dst)
}

// qRow is position r's row of point p in q (the last trunk's).
func (g *graphForward) qRow(r, p int) []float32 {
	c0 := r - r%graphChunk
	b := min(graphChunk, g.batch-c0)
	i := (c0*g.p + p*b + r - c0) * graphQ
	return g.q[i : i+graphQ : i+graphQ]
}

// logit is action k's policy logit for position r of the last trunk.
func (g *graphForward) logit(r, k int) float32 {
	P := g.p
	switch {
	case k < P:
		return g.qRow(r, k)[0]
	case k < P+P*P:
		from, to := g.qRow(r, (k-P)/P), g.qRow(r, (k-P)%P)
		s := from[2] + to[3]
		a, d := from[graphPointHeads:graphPointHeads+GraphRank], to[graphPointHeads+GraphRank:graphPointHeads+2*GraphRank]
		for j, x := range a {
			s += x * d[j]
		}
		return s
	case k < 2*P+P*P:
		return g.qRow(r, k-P-P*P)[1]
	}
	return g.rl[r*g.rot+k-2*P-P*P]
}

// run is trunk and every policy logit (batch × actions): the moves'
// products as one GraphRank-deep product a position.
func (g *graphForward) run(x []float32, batch int, policy, outcome []float32) {
	g.trunk(x, batch, outcome)
	P := g.p
	acts := 2*P + P*P + g.rot
	for r := range batch {
		pol := policy[r*acts : (r+1)*acts]
		moves := pol[P : P+P*P]
		for p := range P {
			q := g.qRow(r, p)
			pol[p] = q[0]
			pol[P+P*P+p] = q[1]
			for j := range GraphRank {
				g.moveT[j*P+p] = q[graphPointHeads+GraphRank+j]
			}
		}
		for p := range P {
			from := g.qRow(r, p)[2]
			row := moves[p*P : (p+1)*P]
			for t := range P {
				row[t] = from + g.qRow(r, t)[3]
			}
		}
		// Row p of the moves' product reads position r's row of point p.
		c0 := r - r%graphChunk
		b := min(graphChunk, batch-c0)
		first := (c0*P + r - c0) * graphQ
		gemmNarrow(P, P, GraphRank, g.q[first+graphPointHeads:], b*graphQ, g.moveT, P, moves, P)
		copy(pol[2*P+P*P:], g.rl[r*g.rot:(r+1)*g.rot])
	}
}

// mix sets nl to [N; L]·x on the P × span view of x: each row the mean
// of the rows of its neighbours or line-mates.
func (g *graphForward) mix(nl, x []float32, span int) {
	for i, from := range g.sources {
		MeanRows(nl[i*span:(i+1)*span], x, from, span)
	}
}
