package onnx

import (
	"fmt"
	"strings"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// span is a run of feature indices [Lo, Hi) that mean one thing.
type span struct {
	Lo, Hi int
	What   string
}

// featureSpans describes model.Encode's features of encoder enc for
// variant v, in index order. The spans tile [0, model.FeatureSize(v, enc))
// exactly (TestFeatureSpans_TileTheInput).
func featureSpans(v *engine.Variant, enc int) []span {
	n, players := v.Board.Points, v.Players
	var s []span
	at := 0
	add := func(size int, what string, args ...any) {
		s = append(s, span{at, at + size, fmt.Sprintf(what, args...)})
		at += size
	}
	for r := 0; r < players; r++ {
		add(n, "1 where point i (0..%d, ring-major numbering of docs/rules.md, Point numbering) holds a piece of relative seat %d%s", n-1, r, relSeatNote(r))
	}
	add(n, "1 where point i is empty")
	for r := 0; r < players; r++ {
		add(6, "relative seat %d: pieces in hand / %d; pieces on the board / %d; removals the seat to move still owes it, / 2; 1 if it may fly; 1 if eliminated; 1 while it has pieces in hand",
			r, v.Pieces, v.Pieces)
	}
	add(4, "phase of the seat to move, one-hot: placing, moving, flying, removing")
	add(4, "no-capture counter, endgame counter, repetitions of the position, ply: each divided by the variant's limit for it and clamped to 1")
	if v.Board.Rotating {
		add(2*v.Board.Rings, "the previous turn's rotation, one-hot at 2*ring+d (d 0 clockwise, 1 counter-clockwise); all 0 if none")
	}
	add(players, "the absolute seat to move, one-hot")
	if enc >= model.EncoderMill {
		for r := 0; r < players; r++ {
			add(n, "relative seat %d: 1 where point i is empty and completes a line (a mill) with two of its pieces", r)
			add(n, "relative seat %d: 1 where point i holds one of its pieces with an empty neighbour", r)
			add(1, "relative seat %d: its moves along the lines (pairs of its piece and an empty neighbour) / %d, clamped to 1", r, 2*v.Pieces)
		}
	}
	if enc >= model.EncoderTactics {
		for r := 0; r < players; r++ {
			add(n, "relative seat %d: 1 where point i holds one of its pieces in a line of three of its pieces (a mill)", r)
			add(n, "relative seat %d: 1 where point i is empty, completes a line with two of its pieces, and it can put a piece there in its next move (from its hand, by flying, or by sliding a piece from a neighbour off that line)", r)
			add(n, "relative seat %d: 1 where point i holds one of its pieces that closes a mill by moving (sliding to a neighbour, or flying)", r)
			add(n, "relative seat %d: 1 where point i is empty and lies on two or more lines that each hold one of its pieces and no other piece", r)
		}
	}
	return s
}

// relSeatNote explains relative seat r.
func relSeatNote(r int) string {
	if r == 0 {
		return " (relative seat 0 is the seat to move; relative seat r is absolute seat (side to move + r) mod players)"
	}
	return ""
}

// FeatureLayout is a description, one line per run of indices, of the
// input features of encoder enc for v: what model.Encode writes at each
// index.
func FeatureLayout(v *engine.Variant, enc int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d float32 features per position (millzero model.Encode, encoder version %d):\n", model.FeatureSize(v, enc), enc)
	for _, sp := range featureSpans(v, enc) {
		fmt.Fprintf(&b, "[%d:%d] %s\n", sp.Lo, sp.Hi, sp.What)
	}
	return b.String()
}

// PolicyLayout describes the policy logits of a network for v: which
// action each index stands for (engine.Variant.ActionAt).
func PolicyLayout(v *engine.Variant) string {
	n := v.Board.Points
	var b strings.Builder
	fmt.Fprintf(&b, "%d raw policy logits, one per action of the action space (engine.Variant.ActionAt), points numbered 0..%d ring-major (docs/rules.md, Point numbering):\n", v.NumActions(), n-1)
	fmt.Fprintf(&b, "[0:%d] place on point i\n", n)
	fmt.Fprintf(&b, "[%d:%d] move from point f to point t at %d + f*%d + t\n", n, n+n*n, n, n)
	fmt.Fprintf(&b, "[%d:%d] remove the piece on point i at %d + i\n", n+n*n, 2*n+n*n, n+n*n)
	if v.Board.Rotating {
		fmt.Fprintf(&b, "[%d:%d] rotate ring r (0-based) at %d + 2*r + d, d 0 clockwise (r1+), 1 counter-clockwise (r1-)\n", 2*n+n*n, v.NumActions(), 2*n+n*n)
	}
	b.WriteString("Unmasked: set the logits of illegal actions to -infinity (or drop them), then softmax, to get the prior over the legal actions.")
	return b.String()
}

// OutcomeLayout describes the outcome logits of a network for v.
func OutcomeLayout(v *engine.Variant) string {
	p := v.Players
	var b strings.Builder
	fmt.Fprintf(&b, "%d raw outcome logits; softmax gives the probability of each final result, relative to the seat to move:\n", p+1)
	for k := 0; k < p; k++ {
		if k == 0 {
			b.WriteString("class 0: the seat to move wins\n")
			continue
		}
		fmt.Fprintf(&b, "class %d: absolute seat (side to move + %d) mod %d wins\n", k, k, p)
	}
	fmt.Fprintf(&b, "class %d: a draw\n", p)
	b.WriteString("The absolute seat to move is the one-hot in the last features of the input (model.AbsoluteOutcome maps a class back).")
	return b.String()
}
