package mcts

import (
	"fmt"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
)

// RolloutEvaluator is the evaluator that needs no network, and the one
// generation 0 of self-play uses: uniform priors, and outcomes counted over
// a few random playouts to the end of the game. A playout that reaches the
// ply limit counts as a draw; playouts do not apply the repetition rule
// (the ply limit ends cycles). It is deterministic given its seed and the
// sequence of batches, and allocates nothing per call.
type RolloutEvaluator struct {
	v        *engine.Variant
	playouts int
	plyLimit int
	rng      *rand.Rand
	buf      [engine.MaxActions]engine.Action
}

// NewRolloutEvaluator makes a rollout evaluator of variant v that plays
// playouts random games of at most plyLimit actions from each position,
// drawing from seed.
func NewRolloutEvaluator(v *engine.Variant, playouts, plyLimit int, seed uint64) (*RolloutEvaluator, error) {
	if playouts < 1 {
		return nil, fmt.Errorf("mcts: rollout evaluator: playouts %d: want 1 or more", playouts)
	}
	if plyLimit < 1 {
		return nil, fmt.Errorf("mcts: rollout evaluator: ply limit %d: want 1 or more", plyLimit)
	}
	return &RolloutEvaluator{v: v, playouts: playouts, plyLimit: plyLimit,
		rng: rand.New(rand.NewPCG(seed, seed^0xda3e39cb94b95bdb))}, nil
}

// Evaluate fills uniform priors and the outcome frequencies of random
// playouts from each position of b.
func (e *RolloutEvaluator) Evaluate(b *Batch) error {
	if b.V != e.v {
		return fmt.Errorf("mcts: rollout evaluator of %s: batch of %s", e.v.Name, b.V.Name)
	}
	players := e.v.Players
	for i := 0; i < b.Len(); i++ {
		pr := b.Priors(i)
		for j := range pr {
			pr[j] = 1 / float32(len(pr))
		}
		out := b.Outcome(i)
		clear(out)
		for range e.playouts {
			r := e.playout(*b.Position(i))
			out[r.Class(players)] += 1 / float32(e.playouts)
		}
	}
	return nil
}

// playout plays random legal actions from p to the end of the game or the
// ply limit, which is a draw.
func (e *RolloutEvaluator) playout(p engine.Position) engine.Result {
	for range e.plyLimit {
		if p.Result != engine.Ongoing {
			return p.Result
		}
		legal := e.v.Legal(&p, e.buf[:0])
		if len(legal) == 0 {
			if r, _ := e.v.Outcome(&p); r != engine.Ongoing {
				return r
			}
			return engine.Draw // 3-4 players, hand-made position: nobody can act
		}
		p = e.v.Apply(&p, legal[e.rng.IntN(len(legal))])
	}
	if r, _ := e.v.Outcome(&p); r != engine.Ongoing {
		return r
	}
	return engine.Draw
}

// UniformEvaluator knows nothing and costs nothing: uniform priors, and
// every outcome equally likely. It measures the search's own overhead.
type UniformEvaluator struct{}

// Evaluate fills uniform priors and uniform outcome weights.
func (UniformEvaluator) Evaluate(b *Batch) error {
	for i := 0; i < b.Len(); i++ {
		pr := b.Priors(i)
		for j := range pr {
			pr[j] = 1
		}
		out := b.Outcome(i)
		for j := range out {
			out[j] = 1
		}
	}
	return nil
}
