package rating

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SPRT is a generalised sequential probability ratio test on the Elo
// difference between two players, over pentanomial pair outcomes as
// Fishtest does it: H0 says the difference is Elo0, H1 says it is Elo1
// (logistic Elo, the scale of FitElo: a difference d means an expected
// score of 1/(1+10^(-d/400))). Alpha is the chance of accepting H1 when H0
// holds, Beta of accepting H0 when H1 holds.
type SPRT struct {
	Elo0  float64 `yaml:"elo0"`  // the difference under H0, in logistic Elo (gating: 0)
	Elo1  float64 `yaml:"elo1"`  // the difference under H1, in logistic Elo, above Elo0
	Alpha float64 `yaml:"alpha"` // false-positive rate, 0..0.5 (e.g. 0.05)
	Beta  float64 `yaml:"beta"`  // false-negative rate, 0..0.5 (e.g. 0.05)
}

// DefaultSPRT gates on H0: no better (0 Elo) against H1: 30 Elo better, at
// 5% error each way. Simulated (TestSPRT_DecidesAtTheGivenErrorRates), it
// needs about 250-380 pairs on average when the truth is at a bound and
// draws are few, about 55 with 90% draws, and about 35 when the candidate
// is 120 Elo better.
func DefaultSPRT() SPRT { return SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05} }

// Validate says what is wrong with the test's settings.
func (t SPRT) Validate() error {
	switch {
	case !(t.Elo1 > t.Elo0):
		return fmt.Errorf("sprt: elo1 %v must be above elo0 %v", t.Elo1, t.Elo0)
	case math.Abs(t.Elo0) > 2000 || math.Abs(t.Elo1) > 2000:
		return fmt.Errorf("sprt: bounds %v, %v: want within ±2000 Elo", t.Elo0, t.Elo1)
	case !(t.Alpha > 0 && t.Alpha < 0.5):
		return fmt.Errorf("sprt: alpha %v: want between 0 and 0.5", t.Alpha)
	case !(t.Beta > 0 && t.Beta < 0.5):
		return fmt.Errorf("sprt: beta %v: want between 0 and 0.5", t.Beta)
	}
	return nil
}

// Bounds are the log-likelihood ratios at which the test stops: at or
// below lower it accepts H0, at or above upper H1 (Wald's bounds).
func (t SPRT) Bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// Penta counts game pairs by the first player's score over the pair: 0,
// 0.5, 1, 1.5 or 2 points.
type Penta [5]int

// Pairs is the number of pairs counted.
func (p Penta) Pairs() int { return p[0] + p[1] + p[2] + p[3] + p[4] }

// Add counts a pair in which the first player scored score points (0, 0.5,
// 1, 1.5 or 2).
func (p *Penta) Add(score float64) { p[int(math.Round(score*2))]++ }

// Decision is what the test concluded.
type Decision int

// The test's decisions.
const (
	Continue Decision = iota // neither bound reached: play on
	AcceptH0                 // the difference is Elo0 or less (reject the candidate)
	AcceptH1                 // the difference is Elo1 or more (accept the candidate)
)

func (d Decision) String() string {
	switch d {
	case AcceptH0:
		return "H0"
	case AcceptH1:
		return "H1"
	}
	return "undecided"
}

// pentaRegularisation replaces an empty pentanomial cell, so that the
// maximum-likelihood distributions stay inside the simplex (Fishtest does
// the same).
const pentaRegularisation = 1e-3

// LLR is the generalised log-likelihood ratio of H1 against H0 for the
// counts: N·Σ p̂ₖ·log(p1ₖ/p0ₖ), where p̂ is the observed distribution of
// pair scores and p0, p1 are the distributions closest to it (maximum
// likelihood) whose mean score is that of Elo0 and Elo1.
func (t SPRT) LLR(p Penta) float64 {
	return t.llr(p[:])
}

// llr is LLR over any histogram of round scores: counts[k] rounds scored
// a mean of k/(len(counts)-1) per game.
func (t SPRT) llr(counts []int) float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	var buf [2*4*(4-1) + 1]float64 // the most cells a game has: Rounds' with 4 seats
	prob := buf[:]
	if len(counts) <= len(buf) {
		prob = buf[:len(counts)]
	} else {
		prob = make([]float64, len(counts))
	}
	n := 0.0
	for k, c := range counts {
		prob[k] = max(float64(c), pentaRegularisation)
		n += prob[k]
	}
	for k := range prob {
		prob[k] /= n
	}
	s0, s1 := expectedScore(t.Elo0), expectedScore(t.Elo1)
	l0, l1 := mleLambda(prob, s0), mleLambda(prob, s1)
	llr := 0.0
	step := 1 / float64(len(prob)-1) // the score of one cell; exact (0.25) for Penta
	for k, pk := range prob {
		x := float64(k) * step
		// p_s(k) = p̂ₖ / (1 + λ(xₖ - s)), so log(p1/p0) is the difference
		// of the denominators' logs.
		llr += pk * (math.Log1p(l0*(x-s0)) - math.Log1p(l1*(x-s1)))
	}
	return n * llr
}

// Decide is the test's decision on the counts, with their LLR.
func (t SPRT) Decide(p Penta) (Decision, float64) { return t.decide(t.LLR(p)) }

// decide is the test's decision at log-likelihood ratio llr.
func (t SPRT) decide(llr float64) (Decision, float64) {
	lo, hi := t.Bounds()
	switch {
	case llr >= hi:
		return AcceptH1, llr
	case llr <= lo:
		return AcceptH0, llr
	}
	return Continue, llr
}

// expectedScore is the score per game (0..1) of an Elo difference d.
func expectedScore(d float64) float64 { return 1 / (1 + math.Pow(10, -d/400)) }

// mleLambda finds the Lagrange multiplier of the distribution closest to
// prob with mean score s (scores xₖ = k/(len(prob)-1)): the root of
// Σ pₖ(xₖ-s)/(1+λ(xₖ-s)) = 0, which decreases in λ over the interval where
// every 1+λ(xₖ-s) > 0, so bisection finds it.
func mleLambda(prob []float64, s float64) float64 {
	lo, hi := -1/(1-s), 1/s
	step := 1 / float64(len(prob)-1)
	f := func(l float64) float64 {
		sum := 0.0
		for k, pk := range prob {
			x := float64(k)*step - s
			sum += pk * x / (1 + l*x)
		}
		return sum
	}
	for i := 0; i < 200; i++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// Rounds counts a gate's complete rounds of N = 3 or 4 seats (one opening
// played once per seating rotation, so the candidate sat in every seat
// once) by the candidate's mean score over the round. A game's score is
// the share of the other seats the candidate finished ahead of, a tie
// half: a multiple of 1/(2(N-1)); the round's mean a multiple of
// 1/(2N(N-1)), so Count has 2N(N-1)+1 cells, cell k for a mean of
// k/(2N(N-1)). With N = 2 the cells are those of Penta.
type Rounds struct {
	Seats int   // N
	Count []int // rounds by mean score
}

// NewRounds is an empty count of rounds of seats games.
func NewRounds(seats int) Rounds {
	return Rounds{Seats: seats, Count: make([]int, 2*seats*(seats-1)+1)}
}

// Len is the number of rounds counted.
func (r Rounds) Len() int {
	n := 0
	for _, c := range r.Count {
		n += c
	}
	return n
}

// Add counts a round whose games the candidate scored sum points in all
// (each 0..1, as Rounds says).
func (r *Rounds) Add(sum float64) {
	cells := len(r.Count) - 1
	k := int(math.Round(sum / float64(r.Seats) * float64(cells)))
	r.Count[min(max(k, 0), cells)]++
}

// Mean is the candidate's mean score per game over the rounds, NaN with
// none.
func (r Rounds) Mean() float64 {
	sum, n := 0.0, 0
	cells := float64(len(r.Count) - 1)
	for k, c := range r.Count {
		sum += float64(c) * float64(k) / cells
		n += c
	}
	return sum / float64(n)
}

// String is the counts, slash separated, cell 0 first.
func (r Rounds) String() string {
	f := make([]string, len(r.Count))
	for k, c := range r.Count {
		f[k] = strconv.Itoa(c)
	}
	return strings.Join(f, "/")
}

// DecideRounds is the test's decision on rounds of 3-4 seats, with the
// LLR: the same generalised SPRT as Decide, over the distribution of the
// candidate's mean round score instead of the pentanomial.
//
// The score of a game is the share of the other seats the candidate
// finished ahead of (a tie half): the mean of its pairwise results against
// each copy of the best, the results FitElo rates. If the candidate is d
// Elo better than the best in the pairwise Bradley-Terry sense, each
// pairwise result has expectation 1/(1+10^(-d/400)), and so has the mean.
// So H0 says the candidate's expected score per game is that of Elo0 (0:
// 1/2, what a copy of the best would score by symmetry, whatever N is),
// H1 that of Elo1, and a whole round is one sample: its N games share an
// opening, and each puts the candidate on another seat, so the seat
// advantage cancels within a round, as it does within a pair.
func (t SPRT) DecideRounds(r Rounds) (Decision, float64) { return t.decide(t.llr(r.Count)) }
