package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/mcts"
)

// Evaluator is the network as the search's mcts.Evaluator: it encodes a
// batch of positions, runs the forward pass, and answers each position
// with a softmax over its legal actions' logits and over the outcome
// logits, mapped back from the side to move's seats to absolute ones.
// Evaluate allocates nothing. An Evaluator is for one search worker; the
// workers may share one Network. The repetition feature is the batch's
// count (mcts.Batch.Repetitions), as the trainer encodes the sample's.
type Evaluator struct {
	v        *engine.Variant
	fwd      *Forward
	x        []float32
	outcome  []float32
	syms     []uint8 // the symmetry each position of a chunk was mapped by
	rng      *rand.Rand
	symmetry bool
	pick     func(p *engine.Position) int // the symmetry of position p: random, or its canonical one (Arch.Canonical)
	orient   int                          // orientations averaged per position (SetOrientations); 1 by default
	perm     []int                        // scratch: the symmetries, partly shuffled to draw distinct ones
	sum      []float32                    // scratch: a position's priors summed over its orientations
}

// NewEvaluator evaluates n, a network for v, in chunks of up to maxBatch
// positions. With randomSymmetry each position is mapped by a random
// symmetry of the board before the network sees it, and the answers are
// mapped back, seeded by seed. A network of canonical orientation
// (Arch.Canonical) sees every position in its canonical symmetry instead,
// whatever randomSymmetry says.
func NewEvaluator(v *engine.Variant, n *Network, maxBatch int, randomSymmetry bool, seed uint64) (*Evaluator, error) {
	if err := n.Validate(); err != nil {
		return nil, fmt.Errorf("evaluator: %w", err)
	}
	if err := (&Checkpoint{Net: n}).CheckVariant(v); err != nil {
		return nil, fmt.Errorf("evaluator: %w", err)
	}
	if err := CheckEncoder(n.Arch.Encoder); err != nil {
		return nil, fmt.Errorf("evaluator: %w", err)
	}
	if maxBatch < 1 {
		return nil, fmt.Errorf("evaluator: batch %d: want 1 or more", maxBatch)
	}
	a := n.Arch
	e := &Evaluator{v: v, fwd: NewForward(n, maxBatch), x: make([]float32, maxBatch*a.Inputs),
		outcome: make([]float32, maxBatch*a.Outcomes), syms: make([]uint8, maxBatch),
		rng: rand.New(rand.NewPCG(seed, 0x6576616c)), symmetry: randomSymmetry, orient: 1}
	e.pick = func(*engine.Position) int { return e.rng.IntN(v.NumSymmetries()) }
	if a.Canonical {
		// Such a network knows one turn of each board: its canonical one.
		e.symmetry, e.pick = true, v.CanonicalSymmetry
	}
	return e, nil
}

// SetOrientations makes the evaluator show the network every position in
// n distinct random symmetries of the board (all of them when n is the
// variant's number of symmetries) and answer with the mean of the n
// answers (priors and outcome probabilities): an ensemble of the network's
// views, n times the network's work. 1 is one view, as before. Needs an
// evaluator with random symmetry (a fixed orientation has one view).
func (e *Evaluator) SetOrientations(n int) error {
	ns := e.v.NumSymmetries()
	switch {
	case n < 1 || n > ns:
		return fmt.Errorf("evaluator orientations %d: want 1..%d (the symmetries of %s)", n, ns, e.v.Name)
	case n > 1 && !e.symmetry:
		return fmt.Errorf("evaluator orientations %d: want random symmetry on (an evaluator that never turns the board has one view)", n)
	case n > 1 && e.fwd.net.Arch.Canonical:
		return fmt.Errorf("evaluator orientations %d: the network sees every board in its canonical turn, one view", n)
	case n == e.orient:
		return nil
	}
	positions := e.fwd.max / e.orient
	a := e.fwd.net.Arch
	e.orient = n
	e.fwd = NewForward(e.fwd.net, positions*n)
	e.x, e.outcome, e.syms = make([]float32, positions*n*a.Inputs), make([]float32, positions*n*a.Outcomes), make([]uint8, positions*n)
	e.perm = make([]int, ns)
	e.sum = make([]float32, engine.MaxActions)
	return nil
}

// Scores reports whether Evaluate fills each position's expected material
// at the game's end (mcts.Batch.SetScore): a network with a score head.
func (e *Evaluator) Scores() bool { return e.fwd.HasScore() }

// Orientations is the number of views averaged per position.
func (e *Evaluator) Orientations() int { return e.orient }

// Evaluate fills the priors and outcome weights of every position of b,
// and its expected score with a score head (Scores).
func (e *Evaluator) Evaluate(b *mcts.Batch) error {
	if b.V != e.v {
		if b.V == nil || b.V.Name != e.v.Name {
			return fmt.Errorf("evaluator of %s: a batch of another variant", e.v.Name)
		}
	}
	if e.orient > 1 {
		return e.evaluateViews(b)
	}
	a := e.fwd.net.Arch
	for lo := 0; lo < b.Len(); lo += e.fwd.max {
		hi := min(lo+e.fwd.max, b.Len())
		for i := lo; i < hi; i++ {
			p := b.Position(i)
			row := e.x[(i-lo)*a.Inputs : (i-lo+1)*a.Inputs]
			if e.symmetry {
				s := e.pick(p)
				e.syms[i-lo] = uint8(s)
				q := e.v.MapPosition(s, *p)
				Encode(e.v, a.Encoder, &q, b.Repetitions(i), row)
			} else {
				Encode(e.v, a.Encoder, p, b.Repetitions(i), row)
			}
		}
		if err := e.fwd.Trunk(e.x, hi-lo, e.outcome); err != nil {
			return fmt.Errorf("evaluate: %w", err)
		}
		for i := lo; i < hi; i++ {
			sym := 0
			if e.symmetry {
				sym = int(e.syms[i-lo])
			}
			e.answer(b, i, i-lo, e.outcome[(i-lo)*a.Outcomes:(i-lo+1)*a.Outcomes], sym)
		}
	}
	return nil
}

// evaluateViews is Evaluate with several orientations a position: rows
// i*orient .. i*orient+orient-1 of a chunk are position i's views, each in
// a symmetry drawn apart from the others (a partial shuffle of perm), and
// the answers are their means.
func (e *Evaluator) evaluateViews(b *mcts.Batch) error {
	a := e.fwd.net.Arch
	n := e.orient
	per := e.fwd.max / n
	for lo := 0; lo < b.Len(); lo += per {
		hi := min(lo+per, b.Len())
		for i := lo; i < hi; i++ {
			p := b.Position(i)
			for k := range e.perm {
				e.perm[k] = k
			}
			for o := range n {
				j := o + e.rng.IntN(len(e.perm)-o)
				e.perm[o], e.perm[j] = e.perm[j], e.perm[o]
				r := (i-lo)*n + o
				e.syms[r] = uint8(e.perm[o])
				q := e.v.MapPosition(e.perm[o], *p)
				Encode(e.v, a.Encoder, &q, b.Repetitions(i), e.x[r*a.Inputs:(r+1)*a.Inputs])
			}
		}
		if err := e.fwd.Trunk(e.x, (hi-lo)*n, e.outcome); err != nil {
			return fmt.Errorf("evaluate: %w", err)
		}
		for i := lo; i < hi; i++ {
			priors, out := b.Priors(i), b.Outcome(i)
			sum := e.sum[:len(priors)]
			clear(sum)
			var outSum [engine.MaxSeats + 1]float32 // each seat wins, then draw
			var score float32
			for o := range n {
				r := (i-lo)*n + o
				e.answer(b, i, r, e.outcome[r*a.Outcomes:(r+1)*a.Outcomes], int(e.syms[r]))
				for j, x := range priors {
					sum[j] += x
				}
				for k, x := range out {
					outSum[k] += x
				}
				score += b.Score(i)
			}
			if e.fwd.HasScore() {
				b.SetScore(i, score/float32(n))
			}
			for j := range priors {
				priors[j] = sum[j] / float32(n)
			}
			for k := range out {
				out[k] = outSum[k] / float32(n)
			}
		}
	}
	return nil
}

// answer writes position i's priors (softmax over the legal actions'
// logits, row r of the forward pass's batch, each action mapped by sym as
// its position was), outcome probabilities (by absolute seat) and, with a
// score head, the side to move's expected material difference.
func (e *Evaluator) answer(b *mcts.Batch, i, r int, outcome []float32, sym int) {
	if e.fwd.HasScore() {
		b.SetScore(i, e.fwd.Score(r))
	}
	legal, priors := b.Legal(i), b.Priors(i)
	top := float32(math.Inf(-1))
	for j, act := range legal {
		if sym != 0 {
			act = e.v.MapAction(sym, act)
		}
		priors[j] = e.fwd.Logit(r, e.v.ActionIndex(act))
		top = max(top, priors[j])
	}
	var sum float32
	for j := range priors {
		priors[j] = float32(math.Exp(float64(priors[j] - top)))
		sum += priors[j]
	}
	for j := range priors {
		priors[j] /= sum
	}
	top = float32(math.Inf(-1))
	for _, o := range outcome {
		top = max(top, o)
	}
	sum = 0
	out := b.Outcome(i)
	side, players := int(b.Position(i).Side), e.v.Players
	for k, o := range outcome {
		w := float32(math.Exp(float64(o - top)))
		out[AbsoluteOutcome(k, side, players)] = w
		sum += w
	}
	for k := range out {
		out[k] /= sum
	}
}

// WorkerEvaluators makes the evaluators of self-play's workers, all on
// network n: worker i's batches up to maxBatch positions (its games in
// flight times the search's batch), each position in a random symmetry
// seeded from seed and i, averaged over orientations when more than one.
// The loop and the self-play benchmark both build their workers with it.
func WorkerEvaluators(v *engine.Variant, n *Network, maxBatch, orientations int, seed uint64) func(worker int) (mcts.Evaluator, error) {
	return func(i int) (mcts.Evaluator, error) {
		ev, err := NewEvaluator(v, n, maxBatch, true, seedpkg.Derive(seed, "evaluator", uint64(i)))
		if err == nil && orientations > 1 {
			err = ev.SetOrientations(orientations)
		}
		return ev, err
	}
}
