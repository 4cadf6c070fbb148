package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
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
	pick     func() int // the symmetry of the next position
}

// NewEvaluator evaluates n, a network for v, in chunks of up to maxBatch
// positions. With randomSymmetry each position is mapped by a random
// symmetry of the board before the network sees it, and the answers are
// mapped back, seeded by seed.
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
		rng: rand.New(rand.NewPCG(seed, 0x6576616c)), symmetry: randomSymmetry}
	e.pick = func() int { return e.rng.IntN(v.NumSymmetries()) }
	return e, nil
}

// Evaluate fills the priors and outcome weights of every position of b.
func (e *Evaluator) Evaluate(b *mcts.Batch) error {
	if b.V != e.v {
		if b.V == nil || b.V.Name != e.v.Name {
			return fmt.Errorf("evaluator of %s: a batch of another variant", e.v.Name)
		}
	}
	a := e.fwd.net.Arch
	for lo := 0; lo < b.Len(); lo += e.fwd.max {
		hi := min(lo+e.fwd.max, b.Len())
		for i := lo; i < hi; i++ {
			p := b.Position(i)
			row := e.x[(i-lo)*a.Inputs : (i-lo+1)*a.Inputs]
			if e.symmetry {
				s := e.pick()
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

// answer writes position i's priors (softmax over the legal actions'
// logits, row r of the forward pass's batch, each action mapped by sym as
// its position was) and outcome probabilities (by absolute seat).
func (e *Evaluator) answer(b *mcts.Batch, i, r int, outcome []float32, sym int) {
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
