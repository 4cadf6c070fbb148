package arena

import (
	"context"
	"fmt"
	"math"
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
	if p.Pairs() == 0 {
		return 0
	}
	var prob [5]float64
	n := 0.0
	for k, c := range p {
		prob[k] = max(float64(c), pentaRegularisation)
		n += prob[k]
	}
	for k := range prob {
		prob[k] /= n
	}
	s0, s1 := expectedScore(t.Elo0), expectedScore(t.Elo1)
	l0, l1 := mleLambda(&prob, s0), mleLambda(&prob, s1)
	llr := 0.0
	for k, pk := range prob {
		x := float64(k) / 4
		// p_s(k) = p̂ₖ / (1 + λ(xₖ - s)), so log(p1/p0) is the difference
		// of the denominators' logs.
		llr += pk * (math.Log1p(l0*(x-s0)) - math.Log1p(l1*(x-s1)))
	}
	return n * llr
}

// Decide is the test's decision on the counts, with their LLR.
func (t SPRT) Decide(p Penta) (Decision, float64) {
	llr := t.LLR(p)
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
// prob with mean score s (scores xₖ = k/4): the root of
// Σ pₖ(xₖ-s)/(1+λ(xₖ-s)) = 0, which decreases in λ over the interval where
// every 1+λ(xₖ-s) > 0, so bisection finds it.
func mleLambda(prob *[5]float64, s float64) float64 {
	lo, hi := -1/(1-s), 1/s
	f := func(l float64) float64 {
		sum := 0.0
		for k, pk := range prob {
			x := float64(k)/4 - s
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

// GateResult is how a gating match ended.
type GateResult struct {
	Decision Decision // AcceptH1: the candidate is better; AcceptH0 or Continue (out of games): it is not
	LLR      float64  // the last log-likelihood ratio
	Lower    float64  // the bound for H0
	Upper    float64  // the bound for H1
	Penta    Penta    // pair outcomes, from the candidate's side
	Records  []Record // every finished game
}

// Accepted reports whether the candidate passed the gate: only a decided
// H1 does.
func (r GateResult) Accepted() bool { return r.Decision == AcceptH1 }

// Gate plays m (m.A the candidate, m.B the best so far) pair by pair until
// the test decides or maxGames games are played (m.Pairs is set from
// maxGames), stopping as soon as it decides. onGame, if not nil, sees every
// finished game with the running result, e.g. for progress lines.
func Gate(ctx context.Context, m Match, t SPRT, maxGames int, onGame func(*Record, GateResult)) (GateResult, error) {
	if err := t.Validate(); err != nil {
		return GateResult{}, err
	}
	if maxGames < 2 {
		return GateResult{}, fmt.Errorf("gate: max games %d: want 2 or more (games come in pairs)", maxGames)
	}
	m.Pairs = maxGames / 2
	res := GateResult{}
	res.Lower, res.Upper = t.Bounds()
	tally := NewTally(m.A.Name())
	recs, err := m.Run(ctx, func(r *Record) error {
		if tally.Add(r) {
			res.Penta = tally.Penta
			res.Decision, res.LLR = t.Decide(res.Penta)
		}
		if onGame != nil {
			onGame(r, res)
		}
		if res.Decision != Continue {
			return ErrStop
		}
		return nil
	})
	res.Records = recs
	return res, err
}

// Tally counts a gate's finished pairs from the candidate's side: a pair
// counts once both its games are in, whatever order they finish in. Gate
// uses it as games end; a resumed gate feeds it the games it kept.
type Tally struct {
	Penta Penta // the finished pairs, by the candidate's score over the pair

	cand string
	half map[tallyKey]float64 // the candidate's score in the first finished game of each open pair
}

type tallyKey struct {
	match string
	pair  int32
}

// NewTally counts pairs for the player named cand.
func NewTally(cand string) *Tally { return &Tally{cand: cand, half: map[tallyKey]float64{}} }

// Add counts a finished game and reports whether it completed a pair.
func (t *Tally) Add(r *Record) bool {
	seat := 0
	if r.Player1 == t.cand {
		seat = 1
	}
	k := tallyKey{r.Match, r.Pair}
	first, ok := t.half[k]
	if !ok {
		t.half[k] = r.Score(seat)
		return false
	}
	delete(t.half, k)
	t.Penta.Add(first + r.Score(seat))
	return true
}
