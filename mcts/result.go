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
	Policy  []float32       // the policy target: Visits normalised to sum to 1 (the priors when nothing was visited)
	Priors  []float32       // the root priors the search used, noise included
	Value   [engine.MaxSeats]float32
	// Value is each seat's expected score at the root (1 win, 1/players
	// draw, 0 loss): the mean of every playout backed up through it.
	Visited int           // playouts backed up through the root
	Best    engine.Action // the most visited action (ties: best value for the mover, then prior)
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
		for k := 0; k < s.v.Players; k++ {
			r.Value[k] = root.valueSum[k] / float32(root.visits)
		}
	}
	r.Best = 0
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
	for i := range kids {
		if total > 0 {
			r.Policy = append(r.Policy, float32(kids[i].visits)/float32(total))
		} else {
			r.Policy = append(r.Policy, kids[i].prior)
		}
	}
	r.Best = kids[s.bestChild()].action
	return r
}

// bestChild is the index among the root's children of the most visited,
// ties broken by the mover's mean score, then by prior, then by order.
func (s *Search) bestChild() int {
	root := &s.nodes[0]
	kids := s.nodes[root.first : root.first+int32(root.children)]
	seat := int(s.rootPos.Side)
	best := 0
	better := func(a, b *node) bool {
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
		if better(&kids[i], &kids[best]) {
			best = i
		}
	}
	return best
}

// Choose picks the action to play at the root after a search, for a game
// at ply (actions played since the start), at temperature T: Temperature
// while ply < TemperaturePlies, FinalTemperature after. With T > 0 it draws
// an action with probability proportional to visits^(1/T); with T = 0 it
// takes the most visited (Result.Best). It returns ErrGameOver (wrapped)
// when the root has no action.
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
	if t == 0 {
		return kids[s.bestChild()].action, nil
	}
	maxVisits := int32(0)
	for i := range kids {
		maxVisits = max(maxVisits, kids[i].visits)
	}
	w := s.weights[:0]
	sum := 0.0
	for i := range kids {
		x := 0.0
		if maxVisits > 0 {
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
