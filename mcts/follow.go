package mcts

import (
	"context"
	"slices"
	"time"

	"github.com/millzero/millzero/engine"
)

// Follow moves the root to the game's current position: along the actions
// played since the root when the game went on from it (keeping the
// subtree the settings reuse), afresh otherwise (another game, an undo).
// A player that searches one game move after move calls it before each
// search.
func (s *Search) Follow(g *engine.Game) {
	k := len(s.history)
	if k <= len(g.Hashes) && slices.Equal(s.history, g.Hashes[:k]) {
		onLine := k == len(g.Hashes) || s.rootPos.Hash == g.Hashes[k]
		for i := k; onLine && i < len(g.Actions); i++ {
			onLine = s.Advance(g.Actions[i]) == nil
		}
		if onLine && s.rootPos == g.Pos {
			return
		}
	}
	s.SetGame(g)
}

// RunFor searches in steps, so that it can stop in time, until the root
// has sims visits, the deadline (if not zero) has passed, the tree holds
// maxNodes nodes (if above 0), or ctx is done; it keeps what it found.
// It takes at least one step. A gumbel root plans its sequential halving
// for sims visits: cut short, it chooses among the actions of the phase it
// reached; with no real cap (sims huge, time alone limits) the first phase
// never ends, so the m actions share the visits evenly and the choice is
// the best by Gumbel, prior and completed Q.
func (s *Search) RunFor(ctx context.Context, eval Evaluator, sims int, deadline time.Time, maxNodes int) error {
	step := max(4*s.set.BatchSize, 32)
	s.planSims = sims // a gumbel root plans its halving for the whole search
	defer func() { s.planSims = 0 }()
	for target := int(s.nodes[0].visits) + step; ; target += step {
		s.SetSimulations(min(target, sims))
		if err := s.Run(eval); err != nil {
			return err
		}
		if target >= sims || ctx.Err() != nil || (maxNodes > 0 && len(s.nodes) >= maxNodes) ||
			(!deadline.IsZero() && !time.Now().Before(deadline)) {
			return nil
		}
	}
}
