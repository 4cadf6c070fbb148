package mcts

import (
	"fmt"
	"math"

	"github.com/millzero/millzero/engine"
)

// Evaluator scores a batch of positions for the search: a prior over each
// position's legal actions and the probabilities of the game's outcomes.
// Package model implements it with the network; RolloutEvaluator and
// UniformEvaluator are the ones that need no network.
//
// The positions of b are never over and each has at least one legal
// action; b.Repetitions(i) says how often position i occurred before in its
// game and search path, for a network that encodes it. For each
// i < b.Len(), Evaluate must fill:
//
//   - b.Priors(i): one non-negative weight per action of b.Legal(i), in that
//     order (the engine's order). The search renormalises them over the legal
//     actions, so a softmax over only the legal logits, or raw network
//     probabilities of the full action space gathered at
//     v.ActionIndex(b.Legal(i)[j]), are both fine. A zero or non-finite sum
//     falls back to uniform.
//   - b.Outcome(i): Players+1 non-negative weights: seat 0 wins, ...,
//     seat Players-1 wins, draw (the value head's classes, Result.Class). The
//     search renormalises them too.
//
// An evaluator that also predicts the material at the game's end (a
// ScoreEvaluator whose Scores is true) fills b.SetScore(i, d) for the
// search's score utility (Settings.ScoreUtility).
//
// Both slices are views into the batch's own storage, which the batch
// reuses from call to call: an implementation writes into them and keeps no
// reference after returning, and need allocate nothing. Evaluate may use
// many goroutines inside; a Pool calls it from one goroutine at a time. An
// error ends Pool.Run, which returns it wrapped.
type Evaluator interface {
	Evaluate(b *Batch) error
}

// ScoreEvaluator is an Evaluator that can say, besides the outcome, the
// material difference it expects at the game's end (a network with a
// score head): Scores reports whether its Evaluate fills Batch.SetScore.
type ScoreEvaluator interface {
	Evaluator
	Scores() bool
}

// CheckEvaluator says what keeps e from serving a search of settings set:
// a score utility needs an evaluator that predicts the score.
func CheckEvaluator(set Settings, e Evaluator) error {
	if set.ScoreUtility > 0 {
		if se, ok := e.(ScoreEvaluator); !ok || !se.Scores() {
			return fmt.Errorf("score_utility %v: the evaluator predicts no score at the game's end (a network trained with train.score_weight above 0 has the score head; set score_utility 0)", set.ScoreUtility)
		}
	}
	return nil
}

// Batch is the positions one Evaluate call scores, with room for the
// answers. Storage is flat and reused: after a few calls a Pool allocates
// nothing more.
type Batch struct {
	V         *engine.Variant   // the variant of every position in the batch
	positions []engine.Position // the positions to score
	off       []int32           // Legal(i) is legal[off[i]:off[i+1]]
	legal     []engine.Action   // legal actions of every position, concatenated
	reps      []int32           // earlier occurrences of each position in its game and search path
	priors    []float32         // answers: one per legal action
	outcomes  []float32         // answers: Players+1 per position
	scores    []float32         // answers: the material difference expected at the end for the side to move, NaN unknown
}

// NewBatch makes an empty batch of variant v.
func NewBatch(v *engine.Variant) *Batch {
	return &Batch{V: v, off: []int32{0}}
}

// Len is the number of positions in the batch.
func (b *Batch) Len() int { return len(b.positions) }

// Position is the i-th position. It is never over.
func (b *Batch) Position(i int) *engine.Position { return &b.positions[i] }

// Legal is the legal actions of the i-th position, in the engine's order;
// never empty.
func (b *Batch) Legal(i int) []engine.Action { return b.legal[b.off[i]:b.off[i+1]] }

// Repetitions is how many times the i-th position occurred before in its
// game and on the search path to it (engine.Variant.Repetitions over both),
// the count a network's repetition feature encodes.
func (b *Batch) Repetitions(i int) int { return int(b.reps[i]) }

// SetRepetitions records the repetition count of the i-th position.
func (b *Batch) SetRepetitions(i, n int) { b.reps[i] = int32(n) }

// Priors is where the evaluator writes the prior of each of Legal(i).
func (b *Batch) Priors(i int) []float32 { return b.priors[b.off[i]:b.off[i+1]] }

// Outcome is where the evaluator writes the Players+1 outcome weights of
// the i-th position: each seat wins, then draw.
func (b *Batch) Outcome(i int) []float32 {
	k := b.V.Players + 1
	return b.outcomes[i*k : i*k+k]
}

// Score is the material difference the evaluator expects at the game's
// end for the side to move of the i-th position (its pieces on the board
// and in hand less the most any other seat has), NaN if it said none.
func (b *Batch) Score(i int) float32 { return b.scores[i] }

// SetScore records the score of the i-th position (see Score).
func (b *Batch) SetScore(i int, d float32) { b.scores[i] = d }

// Reset empties the batch, keeping its storage.
func (b *Batch) Reset() {
	b.positions = b.positions[:0]
	b.reps = b.reps[:0]
	b.off = append(b.off[:0], 0)
	b.legal = b.legal[:0]
	b.priors = b.priors[:0]
	b.outcomes = b.outcomes[:0]
	b.scores = b.scores[:0]
}

// Add appends position p with its legal actions (not empty; p not over)
// and returns its index. Priors, outcome and repetitions are zero, the
// score unknown (NaN).
func (b *Batch) Add(p *engine.Position, legal []engine.Action) int {
	i := len(b.positions)
	b.positions = append(b.positions, *p)
	b.reps = append(b.reps, 0)
	b.scores = append(b.scores, float32(math.NaN()))
	b.legal = append(b.legal, legal...)
	for range legal {
		b.priors = append(b.priors, 0)
	}
	for k := 0; k <= b.V.Players; k++ {
		b.outcomes = append(b.outcomes, 0)
	}
	b.off = append(b.off, int32(len(b.legal)))
	return i
}
