package mcts

import (
	"math"
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// The Gumbel root (Settings.Root = gumbel): Danihelka et al., "Policy
// improvement by planning with Gumbel" (ICLR 2022), as DeepMind's mctx
// implements it (gumbel_muzero_policy), adapted to this tree's batching,
// reuse, proofs and values per seat.
//
//   - When a root is first searched, each child a draws g(a) ~ Gumbel(0,1),
//     scaled by the temperature of the root's ply (the game's plies before
//     it): T = 1 samples as the paper does, T = 0 searches and chooses
//     deterministically (the arena's greedy play); the draw still breaks
//     ties then. It replaces the Dirichlet noise, which a gumbel root never
//     gets.
//   - Sequential halving spends the simulations of this search (the visits
//     a reused subtree brought are not counted) on the m = min(
//     gumbel_actions, legal) actions with the largest T*g + logit + sigma(q)
//     in phases of halving size, by mctx's schedule: each simulation goes to
//     the best scoring child among those with exactly the schedule's visit
//     count, so the survivors of each phase are the best scoring at the time.
//   - The action chosen is the best scoring child among those with the most
//     visits of this search: a sample of the improved policy^(1/T) among the
//     survivors. Proofs overrule it as with PUCT.
//   - The policy target is the improved policy softmax(logit + sigma(q̂))
//     over every legal action, q̂ the completed Q (below).
//   - Below the root, Settings.GumbelInterior: PUCT (the default), or the
//     paper's deterministic rule (mctx's): the child that maximises π'(a) -
//     N(a)/(1 + Σ N), π' the node's improved policy, so that the visits
//     follow π'. In-flight descents count as visits and as virtual losses
//     in Q, which spreads a batch. PUCT is the default because it measured
//     better here: with min-max rescaled Q, the improved policy of a node
//     whose first visited child beats the mixed value is nearly all on that
//     child (the others' sigma is about c_visit·c_scale lower), so the rule
//     keeps visiting it; with noisy values (rollouts, an early network)
//     that is greedy. Against the 3x3 variants' perfect player with
//     4-playout rollouts at 256 simulations (180 games each), PUCT lost
//     13.5 points, gumbel with PUCT below 15.5, gumbel with the improved
//     rule below 65.0; at 16 simulations the three are even (see
//     TestGumbel_NoWorseThanPUCTAtSixteenSimulations). It is also about
//     twice as costly per simulation (BenchmarkSearch). With a trained
//     network's sharper priors and values it may do better: it is one key
//     to try.
//
// Completed Q (mctx's qtransform_completed_by_mix_value): a visited child's
// Q is its mean score for the seat to move at the node (our values are in
// [0,1] per seat, so there is no sign to flip); a proven child's is its
// exact score; an unvisited child gets the mixed value (raw + N·Σπq/Σπ) /
// (N + 1), raw being the node's own evaluation and the sums over the
// visited children. The completed values are min-max rescaled over the
// children as mctx does: q = (q̂ - min q̂) / max(spread, min_q_spread), the
// spread being max q̂ - min q̂. With min_q_spread 0 (mctx's) any spread is
// stretched to [0,1], so that among moves whose values differ by a few
// hundredths the best still gets all of sigma; that also hands the target
// to the value's noise where the moves are equal in truth. With
// min_q_spread 1 the values keep their own scale, and the prior decides
// among moves whose values are close. sigma(q) = (c_visit + max N) ·
// c_scale · q.

// lowLogit is the logit of a zero prior (mctx's low_logit).
const lowLogit = -1e9

// gumbelRoot is the state of a gumbel root's search, per root child in the
// engine's order.
type gumbelRoot struct {
	g      []float64 // the child's Gumbel(0,1) draw
	logit  []float64 // the log of its prior, at least lowLogit
	base   []int32   // its visits when this root's search began (a reused subtree's)
	budget int       // the simulations sequential halving plans for
	m      int       // actions considered: min(GumbelActions, children)
	scale  float64   // the noise's scale: the temperature at the root's ply
	sigma  []float64 // scratch: sigma of the completed Q of the children of the node selecting
	spread float64   // the completed Q's spread (max - min) of sigma's last call
}

// prepareGumbel draws the root's Gumbel noise and plans its halving, once
// per root: when the root is expanded, or when a reused root starts its
// search. The plan covers Simulations (or RunFor's cap) less the root's
// visits so far.
func (s *Search) prepareGumbel() {
	root := &s.nodes[0]
	kids := s.nodes[root.first : root.first+int32(root.children)]
	gr := &s.gum
	gr.g, gr.logit, gr.base = gr.g[:0], gr.logit[:0], gr.base[:0]
	for i := range kids {
		u := s.rng.Float64()
		for u == 0 {
			u = s.rng.Float64()
		}
		gr.g = append(gr.g, -math.Log(-math.Log(u)))
		gr.logit = append(gr.logit, logit(kids[i].prior))
		gr.base = append(gr.base, kids[i].visits)
	}
	gr.budget = s.visits(max(s.set.Simulations, s.planSims)) - int(root.visits)
	gr.m = min(s.set.GumbelActions, len(kids))
	gr.scale = s.set.Temperature
	if len(s.history) >= s.set.TemperaturePlies {
		gr.scale = s.set.FinalTemperature
	}
}

// logit is the log of a prior, at least lowLogit.
func logit(p float32) float64 {
	if !(p > 0) {
		return lowLogit
	}
	return max(math.Log(float64(p)), lowLogit)
}

// halvingLevel is the visit count (of this search) of the children that
// simulation k (from 0) of sequential halving may visit, with m actions
// considered and a budget of simulations: mctx's
// get_sequence_of_considered_visits, in closed form. Phase by phase, the
// considered actions (m, then halving, at least 2) get
// max(1, budget/(ceil(log2 m)·n)) visits each, one round at a time; past
// the budget the last two keep alternating.
func halvingLevel(k, m, budget int) int {
	if m <= 1 {
		return k
	}
	log2m := bits.Len(uint(m - 1)) // ceil(log2 m)
	n, start, level := m, 0, 0
	for {
		e := max(1, budget/(log2m*n))
		if n == 2 {
			return level + (k-start)/2 // every later phase is this one again
		}
		if k < start+n*e {
			return level + (k-start)/n
		}
		start += n * e
		level += e
		n = max(2, n/2)
	}
}

// fresh is the visits of this search (completed and in flight) of root
// child i.
func (s *Search) fresh(i int) int {
	k := &s.nodes[s.nodes[0].first+int32(i)]
	return int(k.visits-s.gum.base[i]) + int(k.inflight)
}

// rootScore is the halving's score of root child i: T·g + logit + sigma.
func (s *Search) rootScore(i int, sigma []float64) float64 {
	gr := &s.gum
	return gr.scale*gr.g[i] + gr.logit[i] + sigma[i]
}

// selectGumbelRoot is the root's child for the next simulation: the best
// scoring among those with the visit count the halving schedule gives.
func (s *Search) selectGumbelRoot() int32 {
	root := &s.nodes[0]
	sigma := s.sigmaQ(root, int(s.rootPos.Side), false)
	k := 0
	for i := 0; i < int(root.children); i++ {
		k += s.fresh(i)
	}
	level := halvingLevel(k, s.gum.m, s.gum.budget)
	best := s.bestScoring(sigma, level, false)
	if best < 0 {
		// Unreachable while every simulation follows the schedule (each
		// adds one visit to a child with the level's count); kept so
		// that a tree changed under the plan still gets a child.
		best = s.bestScoring(sigma, -1, false)
	}
	return root.first + int32(best)
}

// bestScoring is the index of the best scoring root child with this
// search's visit count level (any count if level < 0), ties broken by the
// Gumbel draw, then by order; with notLost, children proven lost for the
// mover are passed over. It is -1 when no child qualifies.
func (s *Search) bestScoring(sigma []float64, level int, notLost bool) int {
	root := &s.nodes[0]
	seat := int(s.rootPos.Side)
	best, bestScore := -1, 0.0
	for i := 0; i < int(root.children); i++ {
		if level >= 0 && s.fresh(i) != level {
			continue
		}
		if notLost && lostFor(&s.nodes[root.first+int32(i)], seat) {
			continue
		}
		sc := s.rootScore(i, sigma)
		if best < 0 || sc > bestScore || (sc == bestScore && s.gum.g[i] > s.gum.g[best]) {
			best, bestScore = i, sc
		}
	}
	return best
}

// gumbelChoice is the index of the root child sequential halving chose: the
// best scoring among those with the most visits of this search. With the
// solver, children proven lost for the mover are passed over; it is -1
// when every child is.
func (s *Search) gumbelChoice() int {
	root := &s.nodes[0]
	seat := int(s.rootPos.Side)
	most := -1
	for i := 0; i < int(root.children); i++ {
		if s.solving && lostFor(&s.nodes[root.first+int32(i)], seat) {
			continue
		}
		most = max(most, s.fresh(i))
	}
	if most < 0 {
		return -1
	}
	return s.bestScoring(s.sigmaQ(root, seat, false), most, s.solving)
}

// selectImproved picks the child of n, whose seat to move is seat, by the
// paper's deterministic rule: the largest π'(a) - N(a)/(1 + Σ N), π' the
// improved policy (prior·exp(sigma)), N counting in-flight descents. With
// two players a child proven lost for seat is never chosen (n is not
// proven, so some child is not).
func (s *Search) selectImproved(n *node, seat int) int32 {
	kids := s.nodes[n.first : n.first+int32(n.children)]
	w := s.improved(n, seat, true)
	sumN := int32(0)
	for i := range kids {
		sumN += kids[i].visits + int32(kids[i].inflight)
	}
	two := s.v.Players == 2
	best, bestScore := 0, math.Inf(-1)
	for i := range kids {
		k := &kids[i]
		if s.solving && two && lostFor(k, seat) {
			continue
		}
		score := w[i] - float64(k.visits+int32(k.inflight))/float64(1+sumN)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return n.first + int32(best)
}

// improved is the improved policy softmax(logit + sigma(q̂)) of the
// children of n for seat, computed as prior·exp(sigma - max sigma) and
// normalised (no logarithms). It is s.gum.sigma, overwritten.
func (s *Search) improved(n *node, seat int, virtual bool) []float64 {
	kids := s.nodes[n.first : n.first+int32(n.children)]
	w := s.sigmaQ(n, seat, virtual)
	top := math.Inf(-1)
	for i := range kids {
		if kids[i].prior > 0 {
			top = max(top, w[i])
		}
	}
	sum := 0.0
	for i := range kids {
		if p := kids[i].prior; p > 0 {
			w[i] = float64(p) * math.Exp(w[i]-top)
		} else {
			w[i] = 0
		}
		sum += w[i]
	}
	for i := range w {
		if sum > 0 {
			w[i] /= sum
		} else {
			w[i] = 1 / float64(len(w)) // priors all zero: never after expand
		}
	}
	return w
}

// sigmaQ is sigma(q̂) of each child of n for seat (see the top of this
// file), in s.gum.sigma. With virtual, in-flight descents count as
// VirtualLoss lost playouts each, as in PUCT's selection; without, only
// completed playouts count (the root's halving, its result).
func (s *Search) sigmaQ(n *node, seat int, virtual bool) []float64 {
	kids := s.nodes[n.first : n.first+int32(n.children)]
	vl := 0.0
	if virtual {
		vl = s.set.VirtualLoss
	}
	sig := s.gum.sigma[:0]
	ownVisits, ownSum := n.visits, float64(n.valueSum[seat])
	sumN, sumP, sumPQ := 0.0, 0.0, 0.0
	maxN := int32(0)
	for i := range kids {
		k := &kids[i]
		ownVisits -= k.visits
		ownSum -= float64(k.valueSum[seat])
		q := math.NaN() // unvisited
		denom := float64(k.visits) + vl*float64(k.inflight)
		if k.result != engine.Ongoing && s.solving {
			q = s.score(k.result, seat)
		} else if denom > 0 {
			q = float64(k.valueSum[seat]) / denom
			if s.set.MinimaxWeight > 0 && k.visits > 0 {
				q = s.mixMinimax(q, k, seat)
			}
		}
		if q == q {
			p := max(float64(k.prior), 1e-30)
			sumP += p
			sumPQ += p * q
		}
		sumN += denom
		maxN = max(maxN, k.visits)
		sig = append(sig, q)
	}
	s.gum.sigma = sig
	// The node's own evaluation: its value sum less its children's (one
	// visit, unless the node is proven and later descents stopped at it).
	raw := 1 / float64(s.v.Players)
	if ownVisits > 0 {
		raw = ownSum / float64(ownVisits)
	} else if n.visits > 0 {
		raw = float64(n.valueSum[seat]) / float64(n.visits)
	}
	raw = min(max(raw, 0), 1)
	mixed := raw
	if sumP > 0 {
		mixed = (raw + sumN*sumPQ/sumP) / (sumN + 1)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, q := range sig {
		if q != q {
			q = mixed
			sig[i] = q
		}
		lo, hi = min(lo, q), max(hi, q)
	}
	s.gum.spread = hi - lo
	scale := (s.set.CVisit + float64(maxN)) * s.set.CScale / max(hi-lo, s.set.MinQSpread, 1e-8)
	for i := range sig {
		sig[i] = (sig[i] - lo) * scale
	}
	return sig
}
