package mcts

import (
	"math"
	"math/rand/v2"
)

// prepareRoot readies an expanded root for its search, once per root: the
// Dirichlet noise of a PUCT root, the Gumbel noise and halving plan of a
// gumbel one.
func (s *Search) prepareRoot() {
	if s.set.Root == RootGumbel {
		s.noised = true
		s.prepareGumbel()
		return
	}
	s.addNoise()
}

// addNoise mixes Dirichlet noise into the priors of the root's children:
// P = (1-f) P + f eta, eta ~ Dir(alpha, ..., alpha), f = DirichletFraction.
// It runs once per root: when the root is expanded, or when a reused root
// starts its search.
func (s *Search) addNoise() {
	s.noised = true
	f := s.set.DirichletFraction
	root := &s.nodes[0]
	if f == 0 || root.state != expanded || root.children < 2 {
		return
	}
	kids := s.nodes[root.first : root.first+int32(root.children)]
	eta := s.weights[:0]
	sum := 0.0
	for range kids {
		g := gamma(s.rng, s.set.DirichletAlpha)
		eta = append(eta, g)
		sum += g
	}
	s.weights = eta
	if !(sum > 0) {
		return // every draw underflowed (tiny alpha): no noise this time
	}
	for i := range kids {
		kids[i].prior = float32((1-f)*float64(kids[i].prior) + f*eta[i]/sum)
	}
}

// gamma draws from the Gamma(alpha, 1) distribution (Marsaglia and Tsang's
// method; for alpha < 1 boosted by U^(1/alpha)).
func gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gamma(rng, alpha+1) * math.Pow(u, 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
