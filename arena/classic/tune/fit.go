package tune

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/millzero/millzero/arena/classic"
)

// dims is the number of weights a fit finds: one per feature and phase.
const dims = int(classic.NumPhases) * int(classic.NumFeatures)

// Fit fits weights to collected positions.
type Fit struct {
	Start      *classic.Weights // the weights the fit is measured against; its grain is kept unless Grain is set
	Grain      int              // the fitted set's grain (0: Start's)
	Prior      float64          // how many positions the starting weights count for: an L2 penalty on the weights' distance from Start's, in logistic units, of Prior/positions (0: DefaultPrior)
	Iterations int              // Newton steps at most (0: 30)
	Workers    int              // goroutines (0: one per core)
	Log        func(format string, args ...any)
}

// DefaultPrior is the default weight of the starting set: enough to keep
// the weights of features the positions hardly show near the starting
// set's, and a fit of a few games from running off with what separates
// them; nothing beside a few thousand positions.
const DefaultPrior = 100

// Result is a fit's weights and its held-out losses.
type Result struct {
	Weights *classic.Weights
	Groups  []GroupLoss // the held-out positions by kind, then all of them
}

// GroupLoss is the mean log loss (in nats) of the expected score of some
// held-out positions, under the fitted weights, the starting weights
// (their scale fitted) and one constant score.
type GroupLoss struct {
	Group     string
	Positions int
	Loss      float64 // the fitted weights as written (whole hundredths of a piece)
	Start     float64 // the starting weights
	Constant  float64 // the mean result of the fitted positions, for every position
}

// The groups of held-out positions, in their order.
const (
	groupPlacing = iota
	groupMoving
	groupFlying
	groupTables
	groupAll
	numGroups
)

var groupNames = [numGroups]string{"placing", "moving", "flying", "tables", "all"}

// group is the group of r (not groupAll).
func (r *row) group() int {
	switch {
	case r.table:
		return groupTables
	case r.phase == uint8(classic.Moving):
		return groupMoving
	case r.phase == uint8(classic.Flying):
		return groupFlying
	}
	return groupPlacing
}

// sparse is a row's weighted features: the index of each weight and the
// feature's share in it.
type sparse struct {
	n   int
	idx [2 * classic.NumFeatures]int
	val [2 * classic.NumFeatures]float64
}

// spread sets z to r's weighted features, blended over the placing phase
// by the pieces in hand (hands: all pieces in hand at the start).
func (r *row) spread(z *sparse, hands int) {
	z.n = 0
	add := func(ph classic.Phase, share float64) {
		if share == 0 {
			return
		}
		for f, x := range r.x {
			if x != 0 {
				z.idx[z.n] = int(ph)*int(classic.NumFeatures) + f
				z.val[z.n] = share * float64(x)
				z.n++
			}
		}
	}
	if r.phase == uint8(classic.PlacingStart) {
		a := float64(min(int(r.hand), hands)) / float64(hands)
		add(classic.PlacingStart, a)
		add(classic.PlacingEnd, 1-a)
		return
	}
	add(classic.Phase(r.phase), 1)
}

// dot is θ·z.
func (z *sparse) dot(theta []float64) float64 {
	var s float64
	for i := 0; i < z.n; i++ {
		s += theta[z.idx[i]] * z.val[i]
	}
	return s
}

// logLoss is the log loss of predicting p for the target y (0, 1/2, 1).
func logLoss(p, y float64) float64 {
	p = min(max(p, 1e-12), 1-1e-12)
	return -(y*math.Log(p) + (1-y)*math.Log(1-p))
}

func sigmoid(s float64) float64 { return 1 / (1 + math.Exp(-s)) }

// Run fits weights to d's positions not held out and measures them on
// those held out.
func (f Fit) Run(d *Data) (*Result, error) {
	if f.Start == nil {
		return nil, errors.New("fit: no starting weights")
	}
	logf := f.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	prior := f.Prior
	if prior == 0 {
		prior = DefaultPrior
	}
	iters := f.Iterations
	if iters == 0 {
		iters = 30
	}
	workers := f.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	hands := 2 * d.Variant.Pieces
	var train, held []*row
	for i := range d.rows {
		if d.rows[i].held {
			held = append(held, &d.rows[i])
		} else {
			train = append(train, &d.rows[i])
		}
	}
	if len(train) < 100 || len(held) == 0 {
		return nil, fmt.Errorf("fit: %d positions to fit and %d held out: want at least 100 and 1", len(train), len(held))
	}
	ridge := prior / float64(len(train))

	// Newton's method on the mean log loss plus the ridge, which pulls
	// towards the starting weights at their fitted scale.
	startScale := fitScale(train, f.Start, hands)
	start := make([]float64, dims)
	for i := range start {
		start[i] = float64(f.Start.W[i/int(classic.NumFeatures)][i%int(classic.NumFeatures)]) * startScale
	}
	theta := append([]float64(nil), start...)
	loss := f.objective(train, theta, start, ridge, hands, workers, nil, nil)
	logf("fit: %d positions, start loss %.5f", len(train), loss)
	grad := make([]float64, dims)
	hess := make([]float64, dims*dims)
	for it := 1; it <= iters; it++ {
		f.objective(train, theta, start, ridge, hands, workers, grad, hess)
		step, err := solve(hess, grad)
		if err != nil {
			return nil, fmt.Errorf("fit: step %d: %w", it, err)
		}
		next := make([]float64, dims)
		t, newLoss := 1.0, 0.0
		for range 20 {
			for i := range next {
				next[i] = theta[i] - t*step[i]
			}
			newLoss = f.objective(train, next, start, ridge, hands, workers, nil, nil)
			if newLoss <= loss {
				break
			}
			t /= 2
		}
		gain := loss - newLoss
		if !(gain >= 0) {
			// No step size lowered the loss (or the loss overflowed to
			// NaN): theta is as good as this data makes it.
			break
		}
		theta, loss = next, newLoss
		logf("fit: Newton step %d of at most %d: loss %.6f", it, iters, loss)
		if gain < 1e-9 {
			break
		}
	}

	// Hundredths of a piece: a piece in the moving phase is 100.
	mat := theta[int(classic.Moving)*int(classic.NumFeatures)+int(classic.FMaterial)]
	if mat < 0.01 {
		return nil, fmt.Errorf("fit: a piece of the moving phase is worth %.4f (logistic units): too few moving positions, or none decided by material", mat)
	}
	scale := 100 / mat
	w := &classic.Weights{Variant: d.Variant.Name, Grain: f.Grain}
	if w.Grain == 0 {
		w.Grain = f.Start.Grain
	}
	for i, x := range theta {
		ph, ft := i/int(classic.NumFeatures), i%int(classic.NumFeatures)
		w.W[ph][ft] = int32(math.Round(max(min(x*scale, classic.MaxWeight), -classic.MaxWeight)))
	}

	// The held-out losses.
	var mean float64
	for _, r := range train {
		mean += r.target()
	}
	mean /= float64(len(train))
	fitted := make([]float64, dims)
	for i := range fitted {
		fitted[i] = float64(w.W[i/int(classic.NumFeatures)][i%int(classic.NumFeatures)]) / scale
	}
	groups := make([]GroupLoss, numGroups)
	for g := range groups {
		groups[g].Group = groupNames[g]
	}
	var z sparse
	for _, r := range held {
		r.spread(&z, hands)
		y := r.target()
		lf, ls, lc := logLoss(sigmoid(z.dot(fitted)), y), logLoss(sigmoid(z.dot(start)), y), logLoss(mean, y)
		for _, g := range []int{r.group(), groupAll} {
			groups[g].Positions++
			groups[g].Loss += lf
			groups[g].Start += ls
			groups[g].Constant += lc
		}
	}
	var out []GroupLoss
	for _, g := range groups {
		if g.Positions == 0 {
			continue
		}
		n := float64(g.Positions)
		g.Loss, g.Start, g.Constant = g.Loss/n, g.Start/n, g.Constant/n
		out = append(out, g)
	}
	all := groups[groupAll]
	tablePos := 0
	for i := range d.rows {
		if d.rows[i].table {
			tablePos++
		}
	}
	w.Fit = &classic.FitSummary{
		Sources: d.Sources, Games: d.Games, Positions: len(d.rows), TablePos: tablePos, Rescored: d.Rescored, HeldOut: len(held),
		Loss: all.Loss / float64(all.Positions), StartLoss: all.Start / float64(all.Positions),
		ConstantLoss: all.Constant / float64(all.Positions), Scale: scale, Start: f.Start.Name,
	}
	return &Result{Weights: w, Groups: out}, nil
}

// objective is the mean log loss of rows under θ plus the ridge on θ's
// distance from prior; with grad and hess not nil it also sets them to
// its gradient and Hessian (hess dims×dims, row-major).
func (f Fit) objective(rows []*row, theta, prior []float64, ridge float64, hands, workers int, grad, hess []float64) float64 {
	type part struct {
		loss       float64
		grad, hess []float64
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	chunk := (len(rows) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(rows))
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func(pt *part, rows []*row) {
			defer wg.Done()
			if grad != nil {
				pt.grad, pt.hess = make([]float64, dims), make([]float64, dims*dims)
			}
			var z sparse
			for _, r := range rows {
				r.spread(&z, hands)
				p := sigmoid(z.dot(theta))
				y := r.target()
				pt.loss += logLoss(p, y)
				if grad == nil {
					continue
				}
				e, h := p-y, p*(1-p)
				for i := 0; i < z.n; i++ {
					a, va := z.idx[i], z.val[i]
					pt.grad[a] += e * va
					hv := h * va
					row := pt.hess[a*dims:]
					for j := 0; j <= i; j++ {
						row[z.idx[j]] += hv * z.val[j]
					}
				}
			}
		}(&parts[w], rows[lo:hi])
	}
	wg.Wait()
	n := float64(len(rows))
	var loss float64
	if grad != nil {
		clear(grad)
		clear(hess)
	}
	for _, pt := range parts {
		loss += pt.loss
		if grad != nil && pt.grad != nil {
			for i := range grad {
				grad[i] += pt.grad[i]
			}
			for i := range hess {
				hess[i] += pt.hess[i]
			}
		}
	}
	var pen float64
	for i, x := range theta {
		pen += (x - prior[i]) * (x - prior[i])
	}
	if grad != nil {
		for i := range dims {
			grad[i] = grad[i]/n + ridge*(theta[i]-prior[i])
			for j := 0; j <= i; j++ {
				// The indices of a row's features rise, so each pair
				// landed below or on the diagonal; mirror it.
				h := (hess[i*dims+j] + hess[j*dims+i]) / n
				if i == j {
					h = hess[i*dims+i]/n + ridge
				}
				hess[i*dims+j], hess[j*dims+i] = h, h
			}
		}
	}
	return loss/n + ridge/2*pen
}

// fitScale is the factor k (logistic units per hundredth of a piece)
// that best fits w's unrounded evaluation to the rows' results.
func fitScale(rows []*row, w *classic.Weights, hands int) float64 {
	vals := make([]float64, len(rows))
	theta := make([]float64, dims)
	for i := range theta {
		theta[i] = float64(w.W[i/int(classic.NumFeatures)][i%int(classic.NumFeatures)])
	}
	var z sparse
	for i, r := range rows {
		r.spread(&z, hands)
		vals[i] = z.dot(theta)
	}
	k := 1.0 / 100
	for range 50 {
		var g, h float64
		for i, r := range rows {
			p := sigmoid(k * vals[i])
			g += (p - r.target()) * vals[i]
			h += p * (1 - p) * vals[i] * vals[i]
		}
		if !(h > 0) {
			break
		}
		// A damped step that keeps k positive and finite: on a few games
		// the evaluation can fit the results hardly at all (h near 0),
		// and a full Newton step would send k, and the start of the fit
		// with it, off to an absurd scale.
		step := max(min(g/h, k/2), -k)
		k -= step
		if math.Abs(step) < 1e-12 {
			break
		}
	}
	return k
}

// solve returns x with a·x = b for the symmetric positive definite a
// (n×n row-major, n = len(b)), by Cholesky's factorisation.
func solve(a, b []float64) ([]float64, error) {
	n := len(b)
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i*n+j]
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				if s <= 0 {
					return nil, fmt.Errorf("the Hessian is not positive definite at %d", i)
				}
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	y := make([]float64, n)
	for i := range n {
		s := b[i]
		for k := range i {
			s -= l[i*n+k] * y[k]
		}
		y[i] = s / l[i*n+i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * x[k]
		}
		x[i] = s / l[i*n+i]
	}
	return x, nil
}
