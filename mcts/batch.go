package mcts

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/engine"
)

// Pool runs many searches (one per game in flight) in lockstep so that the
// evaluator sees full batches: each round every unfinished search gathers
// up to BatchSize leaves (virtual loss spreads them over its tree), all of
// them go to one Evaluate call, and each search takes its answers back.
// A Pool and its searches run on one goroutine; for more cores run a Pool
// per goroutine, each with its own searches. With a deterministic evaluator
// a Pool's searches are reproducible from their seeds.
type Pool struct {
	v     *engine.Variant
	eval  Evaluator
	batch *Batch
}

// NewPool makes a pool that evaluates leaves of variant v with eval.
func NewPool(v *engine.Variant, eval Evaluator) *Pool {
	return &Pool{v: v, eval: eval, batch: NewBatch(v)}
}

// Evaluator is the pool's evaluator.
func (p *Pool) Evaluator() Evaluator { return p.eval }

// Run searches every search until its root has Settings.Simulations visits.
// Every search must be of the pool's variant, and its root not over. On an
// evaluator error the searches are left consistent (their pending leaves
// are dropped) and the error is returned.
func (p *Pool) Run(searches []*Search) error {
	return p.RunContext(context.Background(), searches)
}

// RunContext is Run that stops when ctx ends, between two batches of
// leaves (a batch takes milliseconds whatever the visits asked for): the
// searches are left consistent, with the visits they have, and ctx's
// error is returned.
func (p *Pool) RunContext(ctx context.Context, searches []*Search) error {
	for i, s := range searches {
		if s.v != p.v {
			return fmt.Errorf("mcts: pool of %s: search %d plays %s", p.v.Name, i, s.v.Name)
		}
		if r, why := s.rootOutcome(); r != engine.Ongoing {
			return fmt.Errorf("mcts: search %d: %w (%s, %s)", i, ErrGameOver, r, why)
		}
		if !s.noised && s.nodes[0].state == expanded {
			s.prepareRoot()
		}
	}
	done := ctx.Done()
	for {
		if done != nil {
			select {
			case <-done:
				return ctx.Err()
			default:
			}
		}
		p.batch.Reset()
		active := false
		for _, s := range searches {
			if s.done() {
				continue
			}
			active = true
			s.gather(p.batch)
		}
		if !active {
			return nil
		}
		if p.batch.Len() == 0 {
			continue // every descent this round ended at a terminal node
		}
		if err := p.eval.Evaluate(p.batch); err != nil {
			for _, s := range searches {
				s.abandon()
			}
			return fmt.Errorf("mcts: evaluate %d positions: %w", p.batch.Len(), err)
		}
		for _, s := range searches {
			s.absorb(p.batch)
		}
	}
}

// done reports whether the search has all its visits.
func (s *Search) done() bool {
	return int(s.nodes[0].visits) >= s.visits(s.set.Simulations)
}

// Run searches the root with eval until it has Settings.Simulations visits:
// a pool of this one search.
func (s *Search) Run(eval Evaluator) error {
	return s.RunContext(context.Background(), eval)
}

// RunContext is Run that stops when ctx ends (Pool.RunContext).
func (s *Search) RunContext(ctx context.Context, eval Evaluator) error {
	if s.pool == nil {
		s.pool = NewPool(s.v, eval)
	}
	s.pool.eval = eval
	s.one[0] = s
	return s.pool.RunContext(ctx, s.one[:])
}
