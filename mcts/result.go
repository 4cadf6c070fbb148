package mcts

import (
	"math"

	"github.com/millzero/millzero/engine"
)

// Result is what a search found at its root: the policy target and the
// root value that self-play records, and the visits that move choice uses.
// Its slices belong to the search and are overwritten by its next Result.
type Result struct {
	Actions []engine.Action // the legal actions at the root, in the engine's order
	Visits  []int32         // root visits of each action
	Policy  []float32       // the policy target: Visits normalised to sum to 1 (the priors when nothing was visited; all on Best when the root is proven); with PrunePolicyTarget the pruned visits (forced.go); root gumbel: the improved policy softmax(logit + sigma(completed Q))
	Priors  []float32       // the root priors the search used, noise included (root gumbel: as evaluated, its noise is not in them)
	Value   [engine.MaxSeats]float32
	// Value is each seat's expected score at the root (1 win, 1/players
	// draw, 0 loss): the mean of every playout backed up through it. With
	// contempt the playouts count a draw as less to every seat alike, so
	// the seats' means sum to 1 less the draws' share times players x
	// contempt; adding back an even share of that shortfall to each seat
	// gives the score with a draw at 1/players again, exactly, whatever
	// the mix of results behind the mean.
	Visited int           // playouts backed up through the root
	Best    engine.Action // the most visited action (ties: best value for the mover, then prior), root gumbel: sequential halving's choice; or the proven choice (see Choose)
	Proven  engine.Result // the root's proven result (see SetProver), or Ongoing
	QSpread float32       // root gumbel: the spread (max - min) of the children's completed Q for the mover, in score units, which sigma stretches to [0,1] unless min_q_spread is larger; 0 otherwise
}

// Result reads the root after a search. The root must have been searched
// (at least its own evaluation): before that, Actions is empty.
func (s *Search) Result() *Result {
	r := &s.res
	r.Actions, r.Visits, r.Policy, r.Priors = r.Actions[:0], r.Visits[:0], r.Policy[:0], r.Priors[:0]
	root := &s.nodes[0]
	r.Visited = int(root.visits)
	r.Value = [engine.MaxSeats]float32{}
	if root.visits > 0 {
		sum := float32(0)
		for k := 0; k < s.v.Players; k++ {
			r.Value[k] = root.valueSum[k] / float32(root.visits)
			sum += r.Value[k]
		}
		if s.set.Contempt != 0 {
			short := (1 - sum) / float32(s.v.Players)
			for k := 0; k < s.v.Players; k++ {
				r.Value[k] += short
			}
		}
	}
	r.Best = 0
	r.QSpread = 0
	r.Proven = engine.Ongoing
	if root.state == expanded {
		r.Proven = root.result
	}
	if root.state != expanded {
		return r
	}
	kids := s.nodes[root.first : root.first+int32(root.children)]
	total := int32(0)
	for i := range kids {
		r.Actions = append(r.Actions, kids[i].action)
		r.Visits = append(r.Visits, kids[i].visits)
		r.Priors = append(r.Priors, kids[i].prior)
		total += kids[i].visits
	}
	if s.set.Root == RootGumbel {
		if !s.noised {
			s.prepareRoot() // settings changed to gumbel since the search
		}
		for _, p := range s.improved(root, int(s.rootPos.Side), false) {
			r.Policy = append(r.Policy, float32(p))
		}
		r.QSpread = float32(s.gum.spread)
	} else if s.set.PrunePolicyTarget && total > 0 {
		r.Policy = s.prunedPolicy(r.Policy, kids, total)
	} else {
		for i := range kids {
			if total > 0 {
				r.Policy = append(r.Policy, float32(kids[i].visits)/float32(total))
			} else {
				r.Policy = append(r.Policy, kids[i].prior)
			}
		}
	}
	best := s.bestChild()
	if root.result != engine.Ongoing {
		// Proven: later playouts stopped at the root, so its visits are
		// those of before the proof; the target is the proven choice.
		clear(r.Policy)
		r.Policy[best] = 1
	}
	r.Best = kids[best].action
	return r
}

// bestChild is the index among the root's children of the most visited
// (root gumbel: sequential halving's choice, see gumbelChoice),
// ties broken by the mover's mean score, then by prior, then by order.
// Proofs come first: a child proven won for the mover is taken (the
// fastest, by provenPlies), and a child proven lost only when every child
// is (the slowest).
func (s *Search) bestChild() int {
	root := &s.nodes[0]
	kids := s.nodes[root.first : root.first+int32(root.children)]
	seat := int(s.rootPos.Side)
	if s.set.Root == RootGumbel {
		if !s.noised {
			s.prepareRoot() // settings changed to gumbel since the search
		}
		if s.solving {
			if i := s.provenWin(); i >= 0 {
				return i
			}
		}
		if i := s.gumbelChoice(); i >= 0 {
			return i
		}
		// every child is proven lost: the slowest loss, below
	}
	if !s.solving {
		return s.mostVisited()
	}
	if i := s.provenWin(); i >= 0 {
		return i
	}
	best := 0
	better := func(i, j int) bool {
		a, b := &kids[i], &kids[j]
		if la, lb := lostFor(a, seat), lostFor(b, seat); la != lb {
			return lb
		} else if la && lb {
			if pa, pb := s.provenPlies(root.first+int32(i)), s.provenPlies(root.first+int32(j)); pa != pb {
				return pa > pb
			}
		}
		if a.visits != b.visits {
			return a.visits > b.visits
		}
		if a.visits > 0 {
			qa, qb := a.valueSum[seat]/float32(a.visits), b.valueSum[seat]/float32(b.visits)
			if qa != qb {
				return qa > qb
			}
		}
		return a.prior > b.prior
	}
	for i := 1; i < len(kids); i++ {
		if better(i, best) {
			best = i
		}
	}
	return best
}

// Choose picks the action to play at the root after a search, for a game
// at ply (actions played since the start), at temperature T: Temperature
// while ply < TemperaturePlies, FinalTemperature after. With T > 0 it draws
// an action with probability proportional to visits^(1/T); with T = 0 it
// takes the most visited (Result.Best). A gumbel root always takes
// sequential halving's choice (Result.Best): the temperature, that of the
// root's ply, already scaled its Gumbel noise, which makes the choice a draw
// from the improved policy^(1/T). Proofs overrule all: a move proven to
// win is always taken (the fastest), and a move proven to lose never while
// another is not proven to. It returns ErrGameOver (wrapped) when the root
// has no action.
func (s *Search) Choose(ply int) (engine.Action, error) {
	root := &s.nodes[0]
	if root.state != expanded {
		if r, why := s.rootOutcome(); r != engine.Ongoing {
			return 0, errorGameOver("choose", r, why)
		}
		return 0, errNotSearched
	}
	kids := s.nodes[root.first : root.first+int32(root.children)]
	t := s.set.Temperature
	if ply >= s.set.TemperaturePlies {
		t = s.set.FinalTemperature
	}
	if t == 0 || s.set.Root == RootGumbel || (s.solving && s.provenWin() >= 0) {
		// A gumbel root's choice is already a draw at the temperature
		// (its noise's scale).
		return kids[s.bestChild()].action, nil
	}
	maxVisits := int32(0)
	for i := range kids {
		maxVisits = max(maxVisits, kids[i].visits)
	}
	w := s.weights[:0]
	sum := 0.0
	seat := int(s.rootPos.Side)
	for i := range kids {
		x := 0.0
		if s.solving && lostFor(&kids[i], seat) {
			// never drawn by chance: when every child is lost, the sum
			// is 0 and bestChild takes the slowest loss
		} else if maxVisits > 0 {
			x = math.Pow(float64(kids[i].visits)/float64(maxVisits), 1/t)
		} else {
			x = float64(kids[i].prior)
		}
		w = append(w, x)
		sum += x
	}
	s.weights = w
	if !(sum > 0) {
		return kids[s.bestChild()].action, nil
	}
	x := s.rng.Float64() * sum
	for i, wi := range w {
		x -= wi
		if x < 0 && wi > 0 {
			return kids[i].action, nil
		}
	}
	return kids[s.bestChild()].action, nil
}

// provenWin is the index among the root's children of the fastest one
// proven won for the mover, or -1.
func (s *Search) provenWin() int {
	root := &s.nodes[0]
	seat := int(s.rootPos.Side)
	best, bestPlies := -1, 0
	for i := int32(0); i < int32(root.children); i++ {
		if !wonFor(&s.nodes[root.first+i], seat) {
			continue
		}
		if p := s.provenPlies(root.first + i); best < 0 || p < bestPlies {
			best, bestPlies = int(i), p
		}
	}
	return best
}

// mostVisited is bestChild without proofs: the most visited of the root's
// children, ties broken by the mover's mean score, then by prior, then by
// order.
func (s *Search) mostVisited() int {
	root := &s.nodes[0]
	kids := s.nodes[root.first : root.first+int32(root.children)]
	seat := int(s.rootPos.Side)
	best := 0
	for i := 1; i < len(kids); i++ {
		a, b := &kids[i], &kids[best]
		switch {
		case a.visits != b.visits:
			if a.visits > b.visits {
				best = i
			}
		case a.visits > 0 && a.valueSum[seat]/float32(a.visits) != b.valueSum[seat]/float32(b.visits):
			if a.valueSum[seat]/float32(a.visits) > b.valueSum[seat]/float32(b.visits) {
				best = i
			}
		case a.prior > b.prior:
			best = i
		}
	}
	return best
}
