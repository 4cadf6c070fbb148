package arena

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/arena/rating"
)

// GateResult is how a gating match ended.
type GateResult struct {
	Decision rating.Decision // AcceptH1: the candidate is better; AcceptH0 or Continue (out of games): it is not
	LLR      float64         // the last log-likelihood ratio
	Lower    float64         // the bound for H0
	Upper    float64         // the bound for H1
	Penta    rating.Penta    // pair outcomes, from the candidate's side (two seats)
	Rounds   rating.Rounds   // 3-4 seats: round outcomes, from the candidate's side
	Records  []Record        // every finished game
}

// Unit names what Counts counts: "pairs" or "rounds".
func (r GateResult) Unit() string {
	if r.Rounds.Seats > 2 {
		return "rounds"
	}
	return "pairs"
}

// Counts is the outcomes the test decided on, slash separated: the
// pentanomial with two seats, the rounds (Rounds.String) with 3-4.
func (r GateResult) Counts() string {
	if r.Rounds.Seats > 2 {
		return r.Rounds.String()
	}
	p := r.Penta
	return fmt.Sprintf("%d/%d/%d/%d/%d", p[0], p[1], p[2], p[3], p[4])
}

// Accepted reports whether the candidate passed the gate: only a decided
// H1 does.
func (r GateResult) Accepted() bool { return r.Decision == rating.AcceptH1 }

// Gate plays m (m.A the candidate, m.B the best so far; with 3-4 seats
// the candidate against copies of the best) round by round until the test
// decides or maxGames games are played (m.Pairs is set from maxGames),
// stopping as soon as it decides. onGame, if not nil, sees every finished
// game with the running result, e.g. for progress lines.
func Gate(ctx context.Context, m Match, t rating.SPRT, maxGames int, onGame func(*Record, GateResult)) (GateResult, error) {
	if err := t.Validate(); err != nil {
		return GateResult{}, err
	}
	seats := 2
	if m.Variant != nil {
		seats = m.Variant.Players
	}
	if maxGames < seats {
		return GateResult{}, fmt.Errorf("gate: max games %d: want %d or more (games come in rounds of one per seat)", maxGames, seats)
	}
	m.Pairs = maxGames / seats
	res := GateResult{}
	res.Lower, res.Upper = t.Bounds()
	tally := NewTally(m.A.Name())
	recs, err := m.Run(ctx, func(r *Record) error {
		if tally.Add(r) {
			res.Penta, res.Rounds = tally.Penta, tally.Rounds
			res.Decision, res.LLR = tally.Decide(t)
		}
		if onGame != nil {
			onGame(r, res)
		}
		if res.Decision != rating.Continue {
			return ErrStop
		}
		return nil
	})
	res.Records = recs
	return res, err
}

// Tally counts a gate's finished pairs (rounds, with 3-4 seats) from the
// candidate's side: a pair counts once both its games are in, a round
// once all its N, whatever order they finish in. Gate uses it as games
// end; a resumed gate feeds it the games it kept.
type Tally struct {
	Penta  rating.Penta  // the finished pairs, by the candidate's score over the pair
	Rounds rating.Rounds // 3-4 seats: the finished rounds, by the candidate's mean score

	cand string
	half map[tallyKey]tallyOpen // the candidate's score so far in each open pair or round
}

type tallyKey struct {
	match string
	pair  int32
}

type tallyOpen struct {
	games      int
	score      float64
	unfinished bool // a game of it is unfinished: the pair (round) is not counted
}

// NewTally counts pairs for the player named cand.
func NewTally(cand string) *Tally { return &Tally{cand: cand, half: map[tallyKey]tallyOpen{}} }

// Add counts a finished game and reports whether it completed a pair (a
// round).
func (t *Tally) Add(r *Record) bool {
	n := r.Seats()
	seat := max(r.SeatOf(t.cand), 0) // a game without cand counts as seat 0's, as it always has
	k := tallyKey{r.Match, r.Pair}
	o := t.half[k]
	o.games++
	o.score += r.Score(seat)
	o.unfinished = o.unfinished || r.Unfinished != ""
	if o.games < n {
		t.half[k] = o
		return false
	}
	delete(t.half, k)
	if o.unfinished {
		return false // a pair with an unfinished game has no score
	}
	if n == 2 {
		t.Penta.Add(o.score)
		return true
	}
	if t.Rounds.Seats != n {
		t.Rounds = rating.NewRounds(n)
	}
	t.Rounds.Add(o.score)
	return true
}

// Decide is the test's decision on what t counted: DecideRounds on rounds
// of 3-4 seats, Decide on pairs.
func (t *Tally) Decide(test rating.SPRT) (rating.Decision, float64) {
	if t.Rounds.Seats > 2 {
		return test.DecideRounds(t.Rounds)
	}
	return test.Decide(t.Penta)
}
