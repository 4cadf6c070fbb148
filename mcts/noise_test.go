package mcts

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGamma_MeanAndVarianceAreAlpha: Gamma(alpha, 1) has mean and variance
// alpha, for the small alphas of root noise and the large ones.
func TestGamma_MeanAndVarianceAreAlpha(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, alpha := range []float64{0.03, 0.3, 1, 2.5, 10} {
		const n = 200000
		sum, sum2 := 0.0, 0.0
		for range n {
			x := gamma(rng, alpha)
			if !(x >= 0) {
				t.Fatalf("alpha %v: draw %v", alpha, x)
			}
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		variance := sum2/n - mean*mean
		// Standard error of the mean is sqrt(alpha/n); allow 5 of them.
		if math.Abs(mean-alpha) > 5*math.Sqrt(alpha/n) {
			t.Errorf("alpha %v: mean %v", alpha, mean)
		}
		if math.Abs(variance-alpha)/alpha > 0.1 {
			t.Errorf("alpha %v: variance %v", alpha, variance)
		}
	}
}

// TestNoise_RootPriorsStayADistribution: noise changes the root priors,
// by at most the fraction, and they still sum to 1.
func TestNoise_RootPriorsStayADistribution(t *testing.T) {
	v := load(t, "nine")
	set := testSettings(1)
	set.DirichletFraction = 0.25
	set.DirichletAlpha = 0.3
	s := newSearch(t, v, set, 1)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	res := s.Result()
	sum := float32(0)
	changed := false
	for _, p := range res.Priors {
		sum += p
		uniform := 1 / float32(len(res.Priors))
		if p < 0.75*uniform-1e-6 || p > 0.75*uniform+0.25+1e-6 {
			t.Errorf("prior %v outside the mix of %v and noise", p, uniform)
		}
		if math.Abs(float64(p-uniform)) > 1e-4 {
			changed = true
		}
	}
	if math.Abs(float64(sum)-1) > 1e-5 {
		t.Errorf("noisy priors sum to %v", sum)
	}
	if !changed {
		t.Error("noise changed no prior")
	}
}

// TestNoise_OffWhenFractionIsZero leaves the priors as evaluated.
func TestNoise_OffWhenFractionIsZero(t *testing.T) {
	v := load(t, "nine")
	s := newSearch(t, v, testSettings(1), 1)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Result().Priors {
		if p != 1/float32(24) {
			t.Fatalf("prior %v, want 1/24", p)
		}
	}
}
