package train

import (
	"fmt"

	"github.com/chewxy/math32"
	"github.com/viterin/vek/vek32"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// graphStep is a graph network's training step (model.KindGraph, whose
// function model/graph.go specifies) written out: its forward pass, loss
// and backward pass by hand on the kernels of package model, where the
// Gorgonia graph of graphnet.go takes a node for every product, mixing,
// concatenation and slice, each a pass over the whole batch's memory. The
// loss and its gradient are the Gorgonia graph's (the tests compare the
// two); the sums are taken in another order, so they differ in rounding.
//
// The batch runs in chunks of up to chunk positions, each through the
// forward pass, the loss and the backward pass before the next: the
// chunk's activations (about 50 KB a position of nine at 32 channels) stay
// in the core's L2 cache from the forward pass to the backward one, and
// only the weights' gradients add up over the chunks. Within a chunk the
// activations are point-major as the forward pass of package model keeps
// them (graphForward): row p·C + j is point p of position j, so a layer's
// product by its shared weight is one product over every point of every
// position, and on the P × (C·channels) view the mixing along the board
// is a sum of a few whole rows. A layer of input X and output Y:
//
//	forward:  Y = relu(X·W₀ + (N·X)·W₁ + (L·X)·W₂ + spread(mean(X)·W₃ + b) [+ the block's input])
//	backward: D = dY ⊙ (Y > 0);  dW₀ = Xᵀ·D, dW₁ = (N·X)ᵀ·D, dW₂ = (L·X)ᵀ·D;
//	          S = Σ_points D;  dW₃ = mean(X)ᵀ·S, db = Σ S;
//	          dX = D·W₀ᵀ + Nᵀ·(D·W₁ᵀ) + Lᵀ·(D·W₂ᵀ) + spread(S·W₃ᵀ / P)
//
// with N·X and L·X kept from the forward pass for dW, and the last line
// one weighted sum of rows a point (the skip connection's gradient added
// in the same pass). The policy head's origin and destination rows (see
// graphnet.go) are one product of the last layer by a weight of 32
// columns, the pair selection folded in; each position's logits are then
// one product of its origin rows by its destination rows.
//
// A graphStep reads the network's weights and writes its own buffers
// only: the trainer's workers each have one, run concurrently.
type graphStep struct {
	pts, w, nf, ng int // points, channels, point planes, features of the whole position
	nIn, acts      int // features and actions of a position
	outs, rot      int // outcome logits, rotation logits
	layers         int // 2·Blocks
	chunk          int // the most positions a chunk holds
	params         []model.Param
	pol, rotp, val int   // the heads' parameter indices (model.Arch.GraphHeads)
	planes         []int // the point planes' offsets among the features
	globals        []int // the features of the whole position

	fwd      [][]int          // the rows of [N; L] (2P × P): the points each is the mean of
	back     [][]int          // per point q, the rows of the backward buffer dx (3P+1 rows) its gradient sums
	backW    [][]float32      // and their weights
	points   []int            // every point
	ones     []float32        // P ones: a sum over the points as weighted rows
	selOrig  [pairColumns]int // origin column c is policy column selOrig[c] (-1: none)
	selDest  [pairColumns]int // destination column c likewise
	constOD  []float32        // the origin and destination rows' constant columns (2·pairColumns)
	rowsIdx  []int            // 0, 1, …: every row of a chunk, for column sums as weighted rows
	rowsOnes []float32        // and their weights, 1

	// The weights as the step reads them, made from the network's at the
	// start of every run: each layer's four blocks transposed (for dX);
	// the policy head's origin and destination weight (w × 2·pairColumns)
	// with its bias, and its transpose; the heads' transposes.
	wT         [][]float32 // per layer, 4 · w×w: W₀ᵀ, W₁ᵀ, W₂ᵀ, W₃ᵀ
	od, odBias []float32
	odT        []float32 // 2·pairColumns × w
	v1T, v2T   []float32 // GraphValueHidden × w, outs × GraphValueHidden
	rotT       []float32 // rot × w

	// One chunk's activations.
	xp, xg   []float32   // rows × nf point planes, C × ng position features
	act      [][]float32 // layers+1, rows × w each: the input layer's output, then each layer's
	mix      [][]float32 // layers, 2·rows × w each: [N·X; L·X] of each layer's input X
	mean     [][]float32 // layers+1, C × w: the mean over the points of act[l]
	z        []float32   // C × w
	qod      []float32   // rows × 2·pairColumns: every point's origin and destination rows
	dt       []float32   // (GraphRank+2) × P: a position's destination rows, transposed
	logits   []float32   // C × acts: the logits, then their log-softmax, then their gradient
	vh       []float32   // C × GraphValueHidden
	vo       []float32   // C × outs: the outcome logits, then their gradient
	rl       []float32   // C × rot: the rotation logits, then their gradient
	ls       []float32   // a row's log-softmax over its legal actions (acts)
	outcomes []int32     // 0, 1, …, outs-1: the outcome logits' indices
	// Its gradients.
	dqod       []float32 // rows × 2·pairColumns
	d1, d2     []float32 // rows × w: the gradient by a layer's output, by its input
	dx         []float32 // (3P+1) × C·w: D·W₀ᵀ, D·W₁ᵀ, D·W₂ᵀ, S·W₃ᵀ
	s          []float32 // C × w: a layer's gradient summed over the points
	dvh, dmean []float32 // C × GraphValueHidden, C × w

	// The gradients by the weights, summed over the chunks: grads[i] of
	// params[i], but the policy head's, which is god's until the run's end.
	grads        [][]float32
	god, godBias []float32
	policy, outc float64 // the losses' sums over the rows
}

// graphChunkBytes is the cache a chunk's activations may take: it sets
// the chunk's positions (BenchmarkGraphStepChunk measures the choice).
const graphChunkBytes = 512 << 10

// newGraphStep prepares the step of net, a graph network for variant v,
// for batches of up to batch positions, in chunks of up to chunk
// positions (0: as many as fit graphChunkBytes).
func newGraphStep(v *engine.Variant, net *model.Network, batch, chunk int) (*graphStep, error) {
	a := net.Arch
	pf, err := newPointFeatures(v, a)
	if err != nil {
		return nil, err
	}
	pol, rot, val := a.GraphHeads()
	if q := net.Params[pol].Shape[1]; q != 4+2*model.GraphRank {
		return nil, fmt.Errorf("%s: %d columns, want %d", net.Params[pol].Name, q, 4+2*model.GraphRank)
	}
	P, w := a.Points, a.Width
	s := &graphStep{pts: P, w: w, nf: a.Planes, ng: a.Globals(), nIn: a.Inputs, acts: a.Actions,
		outs: a.Outcomes, rot: a.Rotations(), layers: 2 * a.Blocks, params: net.Params,
		pol: pol, rotp: rot, val: val, planes: pf.planes, globals: pf.globals}
	L := s.layers
	if chunk <= 0 {
		perPosition := 4 * P * w * (3*L + 4) // act, mix and the backward's buffers
		chunk = max(4, min(64, graphChunkBytes/perPosition))
	}
	s.chunk = max(1, min(chunk, batch))
	C := s.chunk
	rows := P * C

	nm, lm, _ := a.Relations()
	s.fwd = make([][]int, 2*P)
	for i := range s.fwd {
		rel, r := nm, i
		if i >= P {
			rel, r = lm, i-P
		}
		for q := range P {
			if rel[r*P+q] != 0 { // each of the row's values is 1/its count
				s.fwd[i] = append(s.fwd[i], q)
			}
		}
	}
	s.back, s.backW = make([][]int, P), make([][]float32, P)
	for q := range P {
		s.back[q], s.backW[q] = []int{q}, []float32{1}
		for k, rel := range [][]float32{nm, lm} {
			for p := range P { // (Rᵀ·G)[q] = Σ_p R[p][q]·G[p]
				if r := rel[p*P+q]; r != 0 {
					s.back[q] = append(s.back[q], (k+1)*P+p)
					s.backW[q] = append(s.backW[q], r)
				}
			}
		}
		s.back[q] = append(s.back[q], 3*P) // the board's mean: 1/P of S·W₃ᵀ at every point
		s.backW[q] = append(s.backW[q], 1/float32(P))
	}
	s.points, s.ones = make([]int, P), make([]float32, P)
	for i := range P {
		s.points[i], s.ones[i] = i, 1
	}
	s.rowsIdx, s.rowsOnes = make([]int, rows), make([]float32, rows)
	for i := range rows {
		s.rowsIdx[i], s.rowsOnes[i] = i, 1
	}
	so, co, sd, cd := pairSelection(4 + 2*model.GraphRank)
	const k = pairColumns
	for c := range k {
		s.selOrig[c], s.selDest[c] = -1, -1
		for q := range 4 + 2*model.GraphRank {
			if so[q*k+c] != 0 {
				s.selOrig[c] = q
			}
			if sd[q*k+c] != 0 {
				s.selDest[c] = q
			}
		}
	}
	s.constOD = append(append([]float32(nil), co...), cd...)

	s.wT = make([][]float32, L)
	for l := range s.wT {
		s.wT[l] = make([]float32, 4*w*w)
	}
	s.od, s.odBias, s.odT = make([]float32, w*2*k), make([]float32, 2*k), make([]float32, 2*k*w)
	s.v1T, s.v2T = make([]float32, model.GraphValueHidden*w), make([]float32, s.outs*model.GraphValueHidden)
	s.rotT = make([]float32, s.rot*w)

	s.xp, s.xg = make([]float32, rows*s.nf), make([]float32, C*s.ng)
	s.act, s.mean = make([][]float32, L+1), make([][]float32, L+1)
	for l := range L + 1 {
		s.act[l], s.mean[l] = make([]float32, rows*w), make([]float32, C*w)
	}
	s.mix = make([][]float32, L)
	for l := range L {
		s.mix[l] = make([]float32, 2*rows*w)
	}
	s.z = make([]float32, C*w)
	s.qod, s.dqod = make([]float32, rows*2*k), make([]float32, rows*2*k)
	s.dt = make([]float32, (model.GraphRank+2)*P)
	s.logits = make([]float32, C*s.acts)
	s.vh, s.dvh = make([]float32, C*model.GraphValueHidden), make([]float32, C*model.GraphValueHidden)
	s.vo, s.rl = make([]float32, C*s.outs), make([]float32, C*s.rot)
	s.ls, s.outcomes = make([]float32, max(s.acts, s.outs)), make([]int32, s.outs)
	for i := range s.outcomes {
		s.outcomes[i] = int32(i)
	}
	s.d1, s.d2 = make([]float32, rows*w), make([]float32, rows*w)
	s.dx = make([]float32, (3*P+1)*C*w)
	s.s, s.dmean = make([]float32, C*w), make([]float32, C*w)
	s.grads = make([][]float32, len(net.Params))
	for i, p := range net.Params {
		s.grads[i] = make([]float32, len(p.Data))
	}
	s.god, s.godBias = make([]float32, w*2*k), make([]float32, 2*k)
	return s, nil
}

// mm is C = op(A)·B (set) or C += op(A)·B, op(A) m×k at a[i·rs + p·ks],
// B k×n row-major: the kernels' product (model.GemmNarrowStrided).
func mm(m, n, k int, a []float32, rs, ks int, b []float32, ldb int, c []float32, ldc int, set bool) {
	model.GemmNarrowStrided(m, n, k, a, rs, ks, b, ldb, c, ldc, set)
}

// transpose writes the transpose of the rows × cols row-major x into d
// (cols × rows).
func transpose(d, x []float32, rows, cols int) { model.Transpose(d, x, cols, rows, cols) }

// prepare lays out the weights as the step reads them.
func (s *graphStep) prepare() {
	w, P := s.w, s.params
	for l := range s.layers {
		wt := P[model.GraphBlock(l/2)+2*(l%2)].Data
		for k := range 4 {
			transpose(s.wT[l][k*w*w:(k+1)*w*w], wt[k*w*w:(k+1)*w*w], w, w)
		}
	}
	const k = pairColumns
	q, qb := P[s.pol].Data, P[s.pol+1].Data
	qc := len(qb)
	for c := range 2 * k {
		src := s.selOrig[c%k]
		if c >= k {
			src = s.selDest[c-k]
		}
		s.odBias[c] = s.constOD[c]
		for i := range w {
			s.od[i*2*k+c] = 0
		}
		if src < 0 {
			continue
		}
		s.odBias[c] += qb[src]
		for i := range w {
			s.od[i*2*k+c] = q[i*qc+src]
		}
	}
	transpose(s.odT, s.od, w, 2*k)
	transpose(s.v1T, P[s.val].Data, w, model.GraphValueHidden)
	transpose(s.v2T, P[s.val+2].Data, model.GraphValueHidden, s.outs)
	if s.rot > 0 {
		transpose(s.rotT, P[s.rotp].Data, w, s.rot)
	}
}

// stepInputs is a batch as a graphStep reads it: b positions' features x
// (b × nIn); their legal actions, row r's the indices
// legal[legalAt[r]:legalAt[r+1]], and those actions' policy targets pi,
// alike; and outcome targets z (b × outs).
type stepInputs struct {
	b       int
	x, pi   []float32
	z       []float32
	legal   []int32
	legalAt []int
}

// run computes the losses of batch in and, if grads, their gradients by
// the weights (s.grads): the loss as lossGraph defines it, the means over
// the b rows of the policy's cross-entropy (over the legal actions, the
// others masked) and the outcome's, the outcome's times valueWeight, and
// l2Scale·weightDecay·Σw² over the weights l2 marks.
func (s *graphStep) run(in stepInputs, grads bool, valueWeight, weightDecay, l2Scale float64, l2 []bool) (policy, outcome, l2Loss float64) {
	s.prepare()
	if grads {
		for _, g := range s.grads {
			clear(g)
		}
		clear(s.god)
		clear(s.godBias)
	}
	s.policy, s.outc = 0, 0
	b := in.b
	inv := 1 / float32(b)
	for c0 := 0; c0 < b; c0 += s.chunk {
		c := min(s.chunk, b-c0)
		s.forward(in.x, c0, c)
		s.loss(in, c0, c, inv, float32(valueWeight), grads)
		if grads {
			s.backward(c)
		}
	}
	scale := float32(weightDecay * l2Scale)
	for i, p := range s.params {
		if !p.IsWeight() || !l2[i] {
			continue
		}
		l2Loss += float64(vek32.Dot(p.Data, p.Data))
		if grads {
			g := s.grads[i]
			for j, v := range p.Data {
				g[j] += 2 * scale * v
			}
		}
	}
	if grads {
		s.foldPolicyGradient()
	}
	return s.policy / float64(b), s.outc / float64(b), l2Loss * float64(scale)
}

// foldPolicyGradient adds the gradient by the origin and destination
// weight and bias to the policy head's, through the pair selection.
func (s *graphStep) foldPolicyGradient() {
	const k = pairColumns
	g, gb := s.grads[s.pol], s.grads[s.pol+1]
	qc := len(gb)
	for c := range 2 * k {
		src := s.selOrig[c%k]
		if c >= k {
			src = s.selDest[c-k]
		}
		if src < 0 {
			continue
		}
		gb[src] += s.godBias[c]
		for i := range s.w {
			g[i*qc+src] += s.god[i*2*k+c]
		}
	}
}

// forward runs positions c0..c0+c-1 of x through the network: the chunk's
// activations, origin and destination rows, outcome logits and policy
// logits (unmasked).
func (s *graphStep) forward(x []float32, c0, c int) {
	P, w, nf, ng := s.pts, s.w, s.nf, s.ng
	rows, span := P*c, c*w
	par := s.params
	xp, xg := s.xp[:rows*nf], s.xg[:c*ng]
	for j := range c {
		in := x[(c0+j)*s.nIn : (c0+j+1)*s.nIn]
		for k, f := range s.globals {
			xg[j*ng+k] = in[f]
		}
		for p := range P {
			row := xp[(p*c+j)*nf : (p*c+j+1)*nf]
			for k, o := range s.planes {
				row[k] = in[o+p]
			}
		}
	}
	// The input layer: the position's part, Xg·Wg and the bias, at each of its points.
	z := s.z[:span]
	for j := range c {
		copy(z[j*w:(j+1)*w], par[model.GraphInputBias].Data)
	}
	mm(c, w, ng, xg, ng, 1, par[model.GraphInputGlobal].Data, w, z, w, false)
	h := s.act[0][:rows*w]
	for p := range P {
		copy(h[p*span:(p+1)*span], z)
	}
	mm(rows, w, nf, xp, nf, 1, par[model.GraphInputPoint].Data, w, h, w, false)
	model.ReLU(h)

	for l := 1; l <= s.layers; l++ {
		x, y := s.act[l-1][:rows*w], s.act[l][:rows*w]
		nl := s.mix[l-1][:2*rows*w]
		for i, from := range s.fwd {
			model.MeanRows(nl[i*span:(i+1)*span], x, from, span)
		}
		m := s.mean[l-1][:span]
		model.MeanRows(m, x, s.points, span)
		i := model.GraphBlock((l-1)/2) + 2*((l-1)%2)
		wt, bias := par[i].Data, par[i+1].Data
		for j := range c {
			copy(z[j*w:(j+1)*w], bias)
		}
		mm(c, w, w, m, w, 1, wt[3*w*w:], w, z, w, false)
		if l%2 == 0 { // the block's second layer: its input added
			skip := s.act[l-2][:rows*w]
			for p := range P {
				vek32.Add_Into(y[p*span:(p+1)*span], skip[p*span:(p+1)*span], z)
			}
		} else {
			for p := range P {
				copy(y[p*span:(p+1)*span], z)
			}
		}
		mm(rows, w, w, x, w, 1, wt[:w*w], w, y, w, false)
		mm(rows, w, w, nl[:rows*w], w, 1, wt[w*w:2*w*w], w, y, w, false)
		mm(rows, w, w, nl[rows*w:], w, 1, wt[2*w*w:3*w*w], w, y, w, false)
		model.ReLU(y)
	}

	// The heads.
	h = s.act[s.layers][:rows*w]
	m := s.mean[s.layers][:span]
	model.MeanRows(m, h, s.points, span)
	const k2 = 2 * pairColumns
	q := s.qod[:rows*k2]
	copy(q, s.odBias)
	for n := k2; n < len(q); n *= 2 { // the bias in every row, in doubling copies
		copy(q[n:], q[:n])
	}
	mm(rows, k2, w, h, w, 1, s.od, k2, q, k2, false)
	const hid = model.GraphValueHidden
	vh := s.vh[:c*hid]
	for j := range c {
		copy(vh[j*hid:(j+1)*hid], par[s.val+1].Data)
	}
	mm(c, hid, w, m, w, 1, par[s.val].Data, hid, vh, hid, false)
	model.ReLU(vh)
	vo := s.vo[:c*s.outs]
	for j := range c {
		copy(vo[j*s.outs:(j+1)*s.outs], par[s.val+3].Data)
	}
	mm(c, s.outs, hid, vh, hid, 1, par[s.val+2].Data, s.outs, vo, s.outs, false)
	if s.rot > 0 {
		rl := s.rl[:c*s.rot]
		for j := range c {
			copy(rl[j*s.rot:(j+1)*s.rot], par[s.rotp+1].Data)
		}
		mm(c, s.rot, w, m, w, 1, par[s.rotp].Data, s.rot, rl, s.rot, false)
	}
	// Each position's logits: placing at q, every move p→q and removing
	// at q, the origin rows by the destination rows (graphnet.go), then
	// the rotations.
	const r, k = model.GraphRank, pairColumns
	dk := r + 2 // the columns an origin row has past the product term's: its move term and 1
	dt := s.dt[:dk*P]
	for j := range c {
		lg := s.logits[j*s.acts : (j+1)*s.acts]
		for p := range P {
			dest := q[(p*c+j)*k2+k : (p*c+j)*k2+k2]
			for i := range dk {
				dt[i*P+p] = dest[i]
			}
			lg[p] = dest[r+2]
			lg[P+P*P+p] = dest[r+3]
		}
		mm(P, P, dk, q[j*k2:], c*k2, 1, dt, P, lg[P:P+P*P], P, true)
		if s.rot > 0 {
			copy(lg[2*P+P*P:], s.rl[j*s.rot:(j+1)*s.rot])
		}
	}
}

// loss adds the chunk's cross-entropies to s.policy and s.outc and, if
// grads, replaces its logits and outcome logits by the gradients of the
// loss by them (the mean over the batch: inv = 1/b). The policy's
// softmax is over the legal actions: a masked logit (maskedLogit added)
// has no probability in float32, and no gradient.
func (s *graphStep) loss(in stepInputs, c0, c int, inv, valueWeight float32, grads bool) {
	A, O := s.acts, s.outs
	for j := range c {
		r := c0 + j
		lg := s.logits[j*A : (j+1)*A]
		lo, hi := in.legalAt[r], in.legalAt[r+1]
		s.policy -= crossEntropyOver(lg, in.pi[lo:hi], in.legal[lo:hi], s.ls, inv, grads)
		o := s.vo[j*O : (j+1)*O]
		s.outc -= crossEntropyOver(o, in.z[r*O:(r+1)*O], s.outcomes, s.ls, inv*valueWeight, grads)
	}
}

// crossEntropyOver is Σ_k t[k]·log softmax(x)[idx[k]] over the entries
// idx of x, the others taken as -∞ (no probability), t the targets of
// those entries; with grads it replaces x by the gradient of -scale·that
// by x: scale·(softmax(x)·Σt - t) at the entries of idx, 0 at the others.
// The log-softmax is logSoftMaxRows's: (x_i - max) - log Σ exp(x_k - max).
// ls is scratch of len(idx) or more.
func crossEntropyOver(x, t []float32, idx []int32, ls []float32, scale float32, grads bool) float64 {
	if len(idx) == 0 {
		if grads {
			clear(x)
		}
		return 0
	}
	mx := x[idx[0]]
	for _, i := range idx[1:] {
		if v := x[i]; v > mx {
			mx = v
		}
	}
	var sum float32
	ls = ls[:len(idx)]
	for k, i := range idx {
		z := x[i] - mx
		ls[k] = z
		if !(z <= underflow) { // NaN included
			sum += math32.Exp(z)
		}
	}
	l := math32.Log(sum)
	var tsum float32
	dot := 0.0
	t = t[:len(idx)]
	for k := range idx {
		ls[k] -= l
		if tk := t[k]; tk != 0 {
			tsum += tk
			dot += float64(tk) * float64(ls[k])
		}
	}
	if !grads {
		return dot
	}
	clear(x)
	if tsum == 0 {
		return dot
	}
	for k, i := range idx {
		if y := ls[k]; y <= underflow {
			x[i] = -scale * t[k]
		} else {
			x[i] = scale * (math32.Exp(y)*tsum - t[k])
		}
	}
	return dot
}

// backward adds the gradients of the loss of the chunk just run (c
// positions; loss left the gradients by its logits) to s.grads.
func (s *graphStep) backward(c int) {
	P, w := s.pts, s.w
	rows, span := P*c, c*w
	g := s.grads
	const r, k, k2 = model.GraphRank, pairColumns, 2 * pairColumns
	q, dq := s.qod[:rows*k2], s.dqod[:rows*k2]
	// The origin and destination rows' gradients, position by position:
	// those of the move logits G (P×P), G·D for the origins and Gᵀ·O for
	// the destinations, whose placing and removing columns take the
	// placing and removing logits' gradients.
	for j := range c {
		gl := s.logits[j*s.acts : (j+1)*s.acts]
		gm := gl[P : P+P*P]
		mm(P, k, P, gm, P, 1, q[j*k2+k:], c*k2, dq[j*k2:], c*k2, true)
		mm(P, k, P, gm, 1, P, q[j*k2:], c*k2, dq[j*k2+k:], c*k2, true)
		for p := range P {
			row := dq[(p*c+j)*k2+k : (p*c+j)*k2+k2]
			row[r+2] = gl[p]
			row[r+3] = gl[P+P*P+p]
		}
	}
	h := s.act[s.layers][:rows*w]
	mm(w, k2, rows, h, 1, w, dq, k2, s.god, k2, false)
	model.AddWeightedRows(s.godBias, dq, s.rowsIdx[:rows], s.rowsOnes, k2)
	d := s.d1[:rows*w]
	mm(rows, w, k2, dq, k2, 1, s.odT, w, d, w, true)

	// The outcome head and the rotations, from the mean over the points.
	const hid = model.GraphValueHidden
	m := s.mean[s.layers][:span]
	dvo, vh, dvh := s.vo[:c*s.outs], s.vh[:c*hid], s.dvh[:c*hid]
	mm(hid, s.outs, c, vh, 1, hid, dvo, s.outs, g[s.val+2], s.outs, false)
	sumRows(g[s.val+3], dvo, c)
	mm(c, hid, s.outs, dvo, s.outs, 1, s.v2T, hid, dvh, hid, true)
	model.ReLUBack(dvh, vh)
	mm(w, hid, c, m, 1, w, dvh, hid, g[s.val], hid, false)
	sumRows(g[s.val+1], dvh, c)
	dm := s.dmean[:span]
	mm(c, w, hid, dvh, hid, 1, s.v1T, w, dm, w, true)
	if s.rot > 0 {
		drot := s.rl[:c*s.rot]
		for j := range c {
			copy(drot[j*s.rot:(j+1)*s.rot], s.logits[j*s.acts+2*P+P*P:(j+1)*s.acts])
		}
		mm(w, s.rot, c, m, 1, w, drot, s.rot, g[s.rotp], s.rot, false)
		sumRows(g[s.rotp+1], drot, c)
		mm(c, w, s.rot, drot, s.rot, 1, s.rotT, w, dm, w, false)
	}
	vek32.MulNumber_Inplace(dm, 1/float32(P))
	for p := range P {
		vek32.Add_Inplace(d[p*span:(p+1)*span], dm)
	}

	// The layers, last first: d the gradient by the layer's output.
	other := s.d2[:rows*w]
	dx := s.dx[:(3*P+1)*span]
	sums := s.s[:span]
	for l := s.layers; l >= 1; l-- {
		x, nl := s.act[l-1][:rows*w], s.mix[l-1][:2*rows*w]
		model.ReLUBack(d, s.act[l][:rows*w])
		i := model.GraphBlock((l-1)/2) + 2*((l-1)%2)
		gw := g[i]
		mm(w, w, rows, x, 1, w, d, w, gw[:w*w], w, false)
		mm(w, w, rows, nl[:rows*w], 1, w, d, w, gw[w*w:2*w*w], w, false)
		mm(w, w, rows, nl[rows*w:], 1, w, d, w, gw[2*w*w:3*w*w], w, false)
		model.SetWeightedRows(sums, d, s.points, s.ones, span)
		mm(w, w, c, s.mean[l-1][:span], 1, w, sums, w, gw[3*w*w:], w, false)
		sumRows(g[i+1], sums, c)
		wt := s.wT[l-1]
		for k := range 3 {
			mm(rows, w, w, d, w, 1, wt[k*w*w:(k+1)*w*w], w, dx[k*rows*w:(k+1)*rows*w], w, true)
		}
		mm(c, w, w, sums, w, 1, wt[3*w*w:], w, dx[3*rows*w:], w, true)
		// The gradient by the layer's input: a block's second layer's
		// input is its first layer's output (set into other); a first
		// layer's input is the block's input, whose gradient through the
		// skip connection is the second layer's d (added to it).
		set := l%2 == 0
		for q := range P {
			if set {
				model.SetWeightedRows(other[q*span:(q+1)*span], dx, s.back[q], s.backW[q], span)
			} else {
				model.AddWeightedRows(other[q*span:(q+1)*span], dx, s.back[q], s.backW[q], span)
			}
		}
		d, other = other, d
	}
	// The input layer.
	model.ReLUBack(d, s.act[0][:rows*w])
	mm(s.nf, w, rows, s.xp[:rows*s.nf], 1, s.nf, d, w, g[model.GraphInputPoint], w, false)
	model.SetWeightedRows(sums, d, s.points, s.ones, span)
	mm(s.ng, w, c, s.xg[:c*s.ng], 1, s.ng, sums, w, g[model.GraphInputGlobal], w, false)
	sumRows(g[model.GraphInputBias], sums, c)
}

// sumRows adds the rows of the rows × len(dst) matrix x to dst.
func sumRows(dst, x []float32, rows int) {
	n := len(dst)
	for i := range rows {
		vek32.Add_Inplace(dst, x[i*n:(i+1)*n])
	}
}
