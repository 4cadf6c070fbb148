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
	val            int   // the outcome head's parameter index (model.Arch.GraphHeads)
	own, score     int   // the ownership and score heads' (model.Arch.AuxHeads), -1 without
	scores         int   // the score head's classes
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

	// The policy head, and the reply head (model.AuxReply) if the network
	// has it: the same function of weights of their own.
	policy *pairHead
	reply  *pairHead

	// The weights as the step reads them, made from the network's at the
	// start of every run: each layer's four blocks transposed (for dX);
	// the heads' transposes.
	wT       [][]float32 // per layer, 4 · w×w: W₀ᵀ, W₁ᵀ, W₂ᵀ, W₃ᵀ
	v1T, v2T []float32   // GraphValueHidden × w, outs × GraphValueHidden
	sT       []float32   // scores × GraphValueHidden
	// The ownership head's weight and bias padded to ownCols columns (the
	// kernels' narrowest), zero past its classes, and the weight's
	// transpose.
	ownW, ownB, ownT []float32 // w × ownCols, ownCols, ownCols × w

	// One chunk's activations.
	xp, xg   []float32   // rows × nf point planes, C × ng position features
	act      [][]float32 // layers+1, rows × w each: the input layer's output, then each layer's
	mix      [][]float32 // layers, 2·rows × w each: [N·X; L·X] of each layer's input X
	mean     [][]float32 // layers+1, C × w: the mean over the points of act[l]
	z        []float32   // C × w
	dt       []float32   // (GraphRank+2) × P: a position's destination rows, transposed
	vh       []float32   // C × GraphValueHidden
	vo       []float32   // C × outs: the outcome logits, then their gradient
	ol       []float32   // rows × ownCols: the ownership logits (padded), then their gradient
	sl       []float32   // C × scores: the score logits, then their gradient
	ls       []float32   // a row's log-softmax over its legal actions (acts)
	tk       []int32     // rows: each row's target class of the ownership head (-1 none)
	zkf      []float32   // rows: a row's target logit less the row's maximum (crossEntropyRows)
	outcomes []int32     // 0, 1, …, outs-1: the outcome logits' indices
	// Its gradients.
	d1, d2     []float32 // rows × w: the gradient by a layer's output, by its input
	dx         []float32 // (3P+1) × C·w: D·W₀ᵀ, D·W₁ᵀ, D·W₂ᵀ, S·W₃ᵀ
	s          []float32 // C × w: a layer's gradient summed over the points
	dvh, dmean []float32 // C × GraphValueHidden, C × w

	// The gradients by the weights, summed over the chunks: grads[i] of
	// params[i], but the policy and reply heads' point weights, which are
	// their pairHead's god until the run's end.
	grads      [][]float32
	gOwn, gOwB []float32  // the gradient by ownW and ownB, folded into grads at the run's end
	sums       stepLosses // the losses' sums over the rows
}

// ownCols is the ownership logits' columns as the step computes them:
// model.OwnershipClasses padded to the 6×8 kernel's width (a product of
// 3 columns runs in plain Go, a fifth of a step).
const ownCols = 8

// pairHead is a head of the policy's function (graphnet.go): the logits
// of every action as products of origin and destination rows, taken from
// every point's channels by the point weight and bias (pol, pol+1), and on
// a rotating board rotation logits from the board's mean (rot, rot+1).
type pairHead struct {
	pol, rot   int       // parameter indices; rot -1 without rotations
	od, odBias []float32 // the origin and destination weight (w × 2·pairColumns), with its bias
	odT        []float32 // 2·pairColumns × w
	rotT       []float32 // rot × w
	qod        []float32 // rows × 2·pairColumns: every point's origin and destination rows
	dqod       []float32 // rows × 2·pairColumns: their gradient
	logits     []float32 // C × acts: the logits, then their gradient
	rl         []float32 // C × rot: the rotation logits, then their gradient
	god        []float32 // the gradient by od, summed over the chunks
	godBias    []float32
}

// stepLosses is a step's losses: each cross-entropy summed over the rows
// with its target, and how many rows had one; the weights' L2 term.
type stepLosses struct {
	policy, outcome, ownership, score, reply float64
	owned, replied                           int // rows whose game's end is known, rows with a reply
	l2                                       float64
}

// lossWeights is what each loss counts in the step's: the outcome's and
// the auxiliary heads' weights (Config).
type lossWeights struct {
	value, ownership, score, reply float32
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
	own, score, reply, replyRot := a.AuxHeads()
	for _, i := range []int{pol, reply} {
		if i < 0 {
			continue
		}
		if q := net.Params[i].Shape[1]; q != 4+2*model.GraphRank {
			return nil, fmt.Errorf("%s: %d columns, want %d", net.Params[i].Name, q, 4+2*model.GraphRank)
		}
	}
	P, w := a.Points, a.Width
	s := &graphStep{pts: P, w: w, nf: a.Planes, ng: a.Globals(), nIn: a.Inputs, acts: a.Actions,
		outs: a.Outcomes, rot: a.Rotations(), layers: 2 * a.Blocks, params: net.Params,
		val: val, own: own, score: score, scores: a.ScoreClasses(), planes: pf.planes, globals: pf.globals}
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
	s.policy = s.newPairHead(pol, rot, C)
	if reply >= 0 {
		s.reply = s.newPairHead(reply, replyRot, C)
	}
	s.v1T, s.v2T = make([]float32, model.GraphValueHidden*w), make([]float32, s.outs*model.GraphValueHidden)
	if own >= 0 {
		s.ownW, s.ownB, s.ownT = make([]float32, w*ownCols), make([]float32, ownCols), make([]float32, ownCols*w)
		s.gOwn, s.gOwB = make([]float32, w*ownCols), make([]float32, ownCols)
		s.ol = make([]float32, rows*ownCols)
	}
	s.tk, s.zkf = make([]int32, rows), make([]float32, rows)
	if score >= 0 {
		s.sT, s.sl = make([]float32, s.scores*model.GraphValueHidden), make([]float32, C*s.scores)
	}

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
	s.dt = make([]float32, (model.GraphRank+2)*P)
	s.vh, s.dvh = make([]float32, C*model.GraphValueHidden), make([]float32, C*model.GraphValueHidden)
	s.vo = make([]float32, C*s.outs)
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
	return s, nil
}

// newPairHead makes the buffers of the head of parameters pol and rot
// for chunks of C positions.
func (s *graphStep) newPairHead(pol, rot, C int) *pairHead {
	const k2 = 2 * pairColumns
	rows, w := s.pts*C, s.w
	return &pairHead{pol: pol, rot: rot,
		od: make([]float32, w*k2), odBias: make([]float32, k2), odT: make([]float32, k2*w), rotT: make([]float32, s.rot*w),
		qod: make([]float32, rows*k2), dqod: make([]float32, rows*k2),
		logits: make([]float32, C*s.acts), rl: make([]float32, C*s.rot),
		god: make([]float32, w*k2), godBias: make([]float32, k2)}
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
	s.preparePair(s.policy)
	if s.reply != nil {
		s.preparePair(s.reply)
	}
	transpose(s.v1T, P[s.val].Data, w, model.GraphValueHidden)
	transpose(s.v2T, P[s.val+2].Data, model.GraphValueHidden, s.outs)
	if s.own >= 0 {
		const o = model.OwnershipClasses
		for i := range w {
			copy(s.ownW[i*ownCols:i*ownCols+o], P[s.own].Data[i*o:(i+1)*o])
		}
		copy(s.ownB, P[s.own+1].Data)
		transpose(s.ownT, s.ownW, w, ownCols)
	}
	if s.score >= 0 {
		transpose(s.sT, P[s.score].Data, model.GraphValueHidden, s.scores)
	}
}

// preparePair lays out head ph's weights: its point weight's columns
// picked into origin and destination columns, the pair selection's
// constants in their bias.
func (s *graphStep) preparePair(ph *pairHead) {
	const k = pairColumns
	w, P := s.w, s.params
	q, qb := P[ph.pol].Data, P[ph.pol+1].Data
	qc := len(qb)
	for c := range 2 * k {
		src := s.selOrig[c%k]
		if c >= k {
			src = s.selDest[c-k]
		}
		ph.odBias[c] = s.constOD[c]
		for i := range w {
			ph.od[i*2*k+c] = 0
		}
		if src < 0 {
			continue
		}
		ph.odBias[c] += qb[src]
		for i := range w {
			ph.od[i*2*k+c] = q[i*qc+src]
		}
	}
	transpose(ph.odT, ph.od, w, 2*k)
	if ph.rot >= 0 {
		transpose(ph.rotT, P[ph.rot].Data, w, s.rot)
	}
}

// stepInputs is a batch as a graphStep reads it: b positions' features x
// (b × nIn); their legal actions, row r's the indices
// legal[legalAt[r]:legalAt[r+1]], and those actions' policy targets pi,
// alike; and outcome targets z (b × outs). The auxiliary heads' targets
// (auxTargets), for a network with any: own (b × P) each point's owner
// at the game's end, a model.Owned* class, -1 where the end is unknown;
// score (b) the material difference's class, -1 unknown; reply (b) the
// next action, -1 none.
type stepInputs struct {
	b       int
	x, pi   []float32
	z       []float32
	legal   []int32
	legalAt []int
	own     []int8
	score   []int32
	reply   []int32
}

// run computes the losses of batch in and, if grads, their gradients by
// the weights (s.grads): the loss as lossGraph defines it, the means over
// the b rows of the policy's cross-entropy (over the legal actions, the
// others masked) and the outcome's, the outcome's times wt.value; the
// auxiliary heads' cross-entropies times their weights (the ownership's
// a mean over the points too; a row without a target adds 0); and
// l2Scale·weightDecay·Σw² over the weights l2 marks.
func (s *graphStep) run(in stepInputs, grads bool, wt lossWeights, weightDecay, l2Scale float64, l2 []bool) stepLosses {
	s.prepare()
	if grads {
		for _, g := range s.grads {
			clear(g)
		}
		for _, ph := range []*pairHead{s.policy, s.reply} {
			if ph != nil {
				clear(ph.god)
				clear(ph.godBias)
			}
		}
		clear(s.gOwn)
		clear(s.gOwB)
	}
	s.sums = stepLosses{}
	b := in.b
	inv := 1 / float32(b)
	for c0 := 0; c0 < b; c0 += s.chunk {
		c := min(s.chunk, b-c0)
		s.forward(in.x, c0, c)
		s.loss(in, c0, c, inv, wt, grads)
		if grads {
			s.backward(c)
		}
	}
	scale := float32(weightDecay * l2Scale)
	l2Loss := 0.0
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
		s.foldPairGradient(s.policy)
		if s.reply != nil {
			s.foldPairGradient(s.reply)
		}
		if s.own >= 0 {
			const o = model.OwnershipClasses
			g := s.grads[s.own]
			for i := range s.w {
				vek32.Add_Inplace(g[i*o:(i+1)*o], s.gOwn[i*ownCols:i*ownCols+o])
			}
			vek32.Add_Inplace(s.grads[s.own+1], s.gOwB[:o])
		}
	}
	out := s.sums
	out.l2 = l2Loss * float64(scale)
	return out
}

// foldPairGradient adds the gradient by head ph's origin and destination
// weight and bias to its point weight's and bias's, through the pair
// selection.
func (s *graphStep) foldPairGradient(ph *pairHead) {
	const k = pairColumns
	g, gb := s.grads[ph.pol], s.grads[ph.pol+1]
	qc := len(gb)
	for c := range 2 * k {
		src := s.selOrig[c%k]
		if c >= k {
			src = s.selDest[c-k]
		}
		if src < 0 {
			continue
		}
		gb[src] += ph.godBias[c]
		for i := range s.w {
			g[i*qc+src] += ph.god[i*2*k+c]
		}
	}
}

// forward runs positions c0..c0+c-1 of x through the network: the chunk's
// activations, the heads' origin and destination rows, outcome logits and
// policy logits (unmasked), and the auxiliary heads' logits.
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
	s.forwardPair(s.policy, h, m, c)
	if s.reply != nil {
		s.forwardPair(s.reply, h, m, c)
	}
	if s.own >= 0 {
		ol := s.ol[:rows*ownCols]
		copy(ol, s.ownB)
		for n := ownCols; n < len(ol); n *= 2 {
			copy(ol[n:], ol[:n])
		}
		mm(rows, ownCols, w, h, w, 1, s.ownW, ownCols, ol, ownCols, false)
	}
	if s.score >= 0 {
		sl := s.sl[:c*s.scores]
		for j := range c {
			copy(sl[j*s.scores:(j+1)*s.scores], par[s.score+1].Data)
		}
		mm(c, s.scores, hid, vh, hid, 1, par[s.score].Data, s.scores, sl, s.scores, false)
	}
}

// forwardPair computes head ph's logits of c positions from the last
// layer h and its board mean m: each position's logits of placing at q,
// of every move p→q and of removing at q, the origin rows by the
// destination rows (graphnet.go), then the rotations.
func (s *graphStep) forwardPair(ph *pairHead, h, m []float32, c int) {
	P, w := s.pts, s.w
	rows := P * c
	const k2 = 2 * pairColumns
	q := ph.qod[:rows*k2]
	copy(q, ph.odBias)
	for n := k2; n < len(q); n *= 2 { // the bias in every row, in doubling copies
		copy(q[n:], q[:n])
	}
	mm(rows, k2, w, h, w, 1, ph.od, k2, q, k2, false)
	if ph.rot >= 0 {
		rl := ph.rl[:c*s.rot]
		for j := range c {
			copy(rl[j*s.rot:(j+1)*s.rot], s.params[ph.rot+1].Data)
		}
		mm(c, s.rot, w, m, w, 1, s.params[ph.rot].Data, s.rot, rl, s.rot, false)
	}
	const r, k = model.GraphRank, pairColumns
	dk := r + 2 // the columns an origin row has past the product term's: its move term and 1
	dt := s.dt[:dk*P]
	for j := range c {
		lg := ph.logits[j*s.acts : (j+1)*s.acts]
		for p := range P {
			dest := q[(p*c+j)*k2+k : (p*c+j)*k2+k2]
			for i := range dk {
				dt[i*P+p] = dest[i]
			}
			lg[p] = dest[r+2]
			lg[P+P*P+p] = dest[r+3]
		}
		mm(P, P, dk, q[j*k2:], c*k2, 1, dt, P, lg[P:P+P*P], P, true)
		if ph.rot >= 0 {
			copy(lg[2*P+P*P:], ph.rl[j*s.rot:(j+1)*s.rot])
		}
	}
}

// loss adds the chunk's cross-entropies to s.sums and, if grads, replaces
// its logits by the gradients of the loss by them (the mean over the
// batch: inv = 1/b). The policy's softmax is over the legal actions: a
// masked logit (maskedLogit added) has no probability in float32, and no
// gradient. The auxiliary heads' softmaxes are over all their classes; a
// row without a target has no gradient.
func (s *graphStep) loss(in stepInputs, c0, c int, inv float32, wt lossWeights, grads bool) {
	A, O, P := s.acts, s.outs, s.pts
	for j := range c {
		r := c0 + j
		lg := s.policy.logits[j*A : (j+1)*A]
		lo, hi := in.legalAt[r], in.legalAt[r+1]
		s.sums.policy -= crossEntropyOver(lg, in.pi[lo:hi], in.legal[lo:hi], s.ls, inv, grads)
		o := s.vo[j*O : (j+1)*O]
		s.sums.outcome -= crossEntropyOver(o, in.z[r*O:(r+1)*O], s.outcomes, s.ls, inv*wt.value, grads)
		if in.own != nil && in.own[r*P] >= 0 {
			s.sums.owned++
		}
		if s.reply != nil && in.reply[r] >= 0 {
			s.sums.replied++
		}
	}
	// The auxiliary heads, each over the chunk's rows at once.
	tk, zk := s.tk, s.zkf
	if s.reply != nil {
		s.sums.reply += crossEntropyRows(s.reply.logits, c, A, A, in.reply[c0:c0+c], zk, inv*wt.reply, grads)
	}
	if s.score >= 0 {
		s.sums.score += crossEntropyRows(s.sl, c, s.scores, s.scores, in.score[c0:c0+c], zk, inv*wt.score, grads)
	}
	if s.own >= 0 {
		for j := range c {
			for p, k := range in.own[(c0+j)*P : (c0+j+1)*P] {
				tk[p*c+j] = int32(k)
			}
		}
		s.sums.ownership += crossEntropyRows(s.ol, P*c, ownCols, model.OwnershipClasses, tk[:P*c], zk, inv*wt.ownership/float32(P), grads)
	}
}

// expFloor is the least exponent crossEntropyRows takes: vek32's exp
// answers -Inf below float32's range (about -88.4), and exp(-87) is a
// normal float32 still (1.6e-38).
const expFloor = -87

// tinyProb is the softmax probability below which crossEntropyRows's
// gradient is 0 rather than a number that would go subnormal (slow in
// the products it enters) once scaled.
const tinyProb = 1e-20

// crossEntropyRows is Σ_r -log softmax(x_r)[k[r]] over the rows r of x
// (rows × ld, a row's first cols entries its logits) whose target k[r]
// is 0 or more, the cross-entropy of each with its one-hot target; with
// grads it replaces each row's logits by the gradient of scale·that:
// scale·(softmax(x_r) - e_k), 0 in a row without a target. Every entry of
// x is overwritten (the padding past cols with 0). The exponentials are
// one pass of vek32's over the matrix; the log-softmax is otherwise
// logSoftMaxRows's. zk is scratch of rows.
func crossEntropyRows(x []float32, rows, ld, cols int, k []int32, zk []float32, scale float32, grads bool) float64 {
	x = x[:rows*ld]
	for r := range rows {
		row := x[r*ld : (r+1)*ld]
		mx := row[0]
		for _, v := range row[1:cols] {
			if v > mx {
				mx = v
			}
		}
		for i, v := range row[:cols] {
			if z := v - mx; z > expFloor || z != z { // NaN kept
				row[i] = z
			} else {
				row[i] = expFloor
			}
		}
		clear(row[cols:])
		if k[r] >= 0 {
			zk[r] = row[k[r]]
		}
	}
	vek32.Exp_Inplace(x)
	ce := 0.0
	for r := range rows {
		row := x[r*ld : (r+1)*ld]
		if k[r] < 0 {
			if grads {
				clear(row)
			}
			continue
		}
		sum := vek32.Sum(row[:cols])
		ce += float64(math32.Log(sum) - zk[r])
		if !grads {
			continue
		}
		f := scale / sum
		for i, e := range row[:cols] {
			if e*f < tinyProb*scale {
				row[i] = 0
			} else {
				row[i] = e * f
			}
		}
		clear(row[cols:])
		row[k[r]] -= scale
	}
	return ce
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
	h := s.act[s.layers][:rows*w]
	m := s.mean[s.layers][:span]
	d := s.d1[:rows*w]
	dm := s.dmean[:span]

	// The outcome head (and the score head, which reads its hidden
	// layer), from the mean over the points.
	const hid = model.GraphValueHidden
	dvo, vh, dvh := s.vo[:c*s.outs], s.vh[:c*hid], s.dvh[:c*hid]
	mm(hid, s.outs, c, vh, 1, hid, dvo, s.outs, g[s.val+2], s.outs, false)
	sumRows(g[s.val+3], dvo, c)
	mm(c, hid, s.outs, dvo, s.outs, 1, s.v2T, hid, dvh, hid, true)
	if s.score >= 0 {
		dsl := s.sl[:c*s.scores]
		mm(hid, s.scores, c, vh, 1, hid, dsl, s.scores, g[s.score], s.scores, false)
		sumRows(g[s.score+1], dsl, c)
		mm(c, hid, s.scores, dsl, s.scores, 1, s.sT, hid, dvh, hid, false)
	}
	model.ReLUBack(dvh, vh)
	mm(w, hid, c, m, 1, w, dvh, hid, g[s.val], hid, false)
	sumRows(g[s.val+1], dvh, c)
	mm(c, w, hid, dvh, hid, 1, s.v1T, w, dm, w, true)

	// The policy-shaped heads, from every point and (rotations) the mean.
	s.backwardPair(s.policy, h, m, d, dm, c, true)
	if s.reply != nil {
		s.backwardPair(s.reply, h, m, d, dm, c, false)
	}
	if s.own >= 0 {
		dol := s.ol[:rows*ownCols]
		mm(w, ownCols, rows, h, 1, w, dol, ownCols, s.gOwn, ownCols, false)
		model.AddWeightedRows(s.gOwB, dol, s.rowsIdx[:rows], s.rowsOnes, ownCols)
		mm(rows, w, ownCols, dol, ownCols, 1, s.ownT, w, d, w, false)
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

// backwardPair adds the gradients of head ph (loss left the gradients by
// its logits) by its weights, and sets (set) or adds its gradient by the
// last layer h into d and adds that by the board mean m into dm.
func (s *graphStep) backwardPair(ph *pairHead, h, m, d, dm []float32, c int, set bool) {
	P, w := s.pts, s.w
	rows := P * c
	g := s.grads
	const r, k, k2 = model.GraphRank, pairColumns, 2 * pairColumns
	q, dq := ph.qod[:rows*k2], ph.dqod[:rows*k2]
	// The origin and destination rows' gradients, position by position:
	// those of the move logits G (P×P), G·D for the origins and Gᵀ·O for
	// the destinations, whose placing and removing columns take the
	// placing and removing logits' gradients.
	for j := range c {
		gl := ph.logits[j*s.acts : (j+1)*s.acts]
		gm := gl[P : P+P*P]
		mm(P, k, P, gm, P, 1, q[j*k2+k:], c*k2, dq[j*k2:], c*k2, true)
		mm(P, k, P, gm, 1, P, q[j*k2:], c*k2, dq[j*k2+k:], c*k2, true)
		for p := range P {
			row := dq[(p*c+j)*k2+k : (p*c+j)*k2+k2]
			row[r+2] = gl[p]
			row[r+3] = gl[P+P*P+p]
		}
	}
	mm(w, k2, rows, h, 1, w, dq, k2, ph.god, k2, false)
	model.AddWeightedRows(ph.godBias, dq, s.rowsIdx[:rows], s.rowsOnes, k2)
	mm(rows, w, k2, dq, k2, 1, ph.odT, w, d, w, set)
	if ph.rot >= 0 {
		drot := ph.rl[:c*s.rot]
		for j := range c {
			copy(drot[j*s.rot:(j+1)*s.rot], ph.logits[j*s.acts+2*P+P*P:(j+1)*s.acts])
		}
		mm(w, s.rot, c, m, 1, w, drot, s.rot, g[ph.rot], s.rot, false)
		sumRows(g[ph.rot+1], drot, c)
		mm(c, w, s.rot, drot, s.rot, 1, ph.rotT, w, dm, w, false)
	}
}

// sumRows adds the rows of the rows × len(dst) matrix x to dst.
func sumRows(dst, x []float32, rows int) {
	n := len(dst)
	for i := range rows {
		vek32.Add_Inplace(dst, x[i*n:(i+1)*n])
	}
}
