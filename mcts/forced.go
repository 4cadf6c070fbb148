package mcts

import (
	"math"

	"github.com/millzero/millzero/engine"
)

// Forced playouts and policy target pruning: David J. Wu, "Accelerating
// Self-Play Learning in Go" (2019), section 3.1, as KataGo does them.
//
//   - Forced playouts (Settings.ForcedPlayoutsK = k > 0): at a PUCT root,
//     a child c that has had at least one playout (the paper's "each child
//     of the root that has received any playouts"; unvisited children are
//     left to PUCT) and has fewer than n_forced(c) = sqrt(k·P(c)·N)
//     playouts is selected before any PUCT score is looked at. P(c) is the
//     root prior as the search uses it, Dirichlet noise included; N is the
//     sum of the root children's playouts, in-flight ones counted. When
//     several are short, the one shortest of its n_forced is taken (KataGo
//     makes them all infinitely urgent and takes the first). With the
//     solver, a child proven lost for the mover is never forced; nor is a
//     child waiting in the batch for its evaluation (a descent there would
//     collide and end the search's round).
//   - Policy target pruning (Settings.PrunePolicyTarget): the policy target
//     starts from the visits; c* is the most visited child; every other
//     visited child c loses up to n_forced(c) playouts (N the final child
//     visits) as long as its PUCT score, with its final mean value held
//     fixed, stays below c*'s: the fewest visits v with Q(c) + c_puct·P(c)·
//     sqrt(N_root)/(1+v) < PUCT(c*), v real, as KataGo's
//     getReducedPlaySelectionWeight. The cap at n_forced is the paper's;
//     KataGo's code clamps without it. Children left with 1 playout or less
//     are dropped (the paper prunes "children reduced to a single playout";
//     we drop a non-best child with one playout even when nothing was taken
//     from it). c* keeps all its visits, so the target is never empty.
//
// Both are for a PUCT root only: Settings.Validate refuses forced_playouts_k
// with root gumbel, whose sequential halving decides the root's visits
// itself. Self-play applies them to its full searches only (its fast ones
// and the arena's matches turn them off, as they turn off the root noise).

// forcedChild is the index among the root's children kids of the one most
// short of its forced playouts, or -1 when none is short. seat is the
// mover at the root.
func (s *Search) forcedChild(kids []node, seat int) int {
	total := int32(0)
	for i := range kids {
		total += kids[i].visits + int32(kids[i].inflight)
	}
	k := s.set.ForcedPlayoutsK * float64(total)
	two := s.v.Players == 2
	best, bestShort := -1, 0.0
	for i := range kids {
		c := &kids[i]
		n := c.visits + int32(c.inflight)
		if n == 0 || c.state == pending || (s.solving && two && lostFor(c, seat)) {
			continue
		}
		if short := math.Sqrt(k*float64(c.prior)) - float64(n); short > bestShort {
			best, bestShort = i, short
		}
	}
	return best
}

// forcedPlayouts is n_forced of a root child with prior p, when the root's
// children have total playouts.
func (s *Search) forcedPlayouts(p float32, total int32) float64 {
	return math.Sqrt(s.set.ForcedPlayoutsK * float64(p) * float64(total))
}

// prunedPolicy appends to policy the pruned policy target of the root
// (PrunePolicyTarget, see above) and returns it. The root is expanded,
// its children kids have total > 0 playouts, none in flight.
func (s *Search) prunedPolicy(policy []float32, kids []node, total int32) []float32 {
	root := &s.nodes[0]
	seat := int(s.rootPos.Side)
	best := s.mostVisited()
	sqrtN := math.Sqrt(float64(max(1, root.visits)))
	puct := func(c *node, visits float64) float64 {
		return s.childQ(c, seat) + s.set.CPuct*float64(c.prior)*sqrtN/(1+visits)
	}
	bestScore := puct(&kids[best], float64(kids[best].visits))
	start := len(policy)
	sum := 0.0
	for i := range kids {
		c := &kids[i]
		w := float64(c.visits)
		if i != best && c.visits > 0 {
			floor := max(0, w-s.forcedPlayouts(c.prior, total))
			if gap := bestScore - s.childQ(c, seat); gap > 0 {
				// PUCT(c, v) < bestScore for every v above wanted.
				wanted := s.set.CPuct*float64(c.prior)*sqrtN/gap - 1
				w = min(w, max(floor, wanted))
			}
			if w <= 1 {
				w = 0
			}
		}
		policy = append(policy, float32(w))
		sum += w
	}
	for i := start; i < len(policy); i++ {
		policy[i] = float32(float64(policy[i]) / sum)
	}
	return policy
}

// childQ is a visited child's value for seat as selection sees it: its
// exact score when the solver has proven it, else its mean score.
func (s *Search) childQ(c *node, seat int) float64 {
	if c.result != engine.Ongoing && s.solving {
		return s.score(c.result, seat)
	}
	return float64(c.valueSum[seat]) / float64(c.visits)
}
