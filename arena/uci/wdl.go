package uci

import (
	"github.com/millzero/millzero/arena"
	"math"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// rootEval is the evaluator's outcome of a search's root position, as the
// mover sees it: the network's value head (win, draw, loss) for a model
// player, the playouts' frequencies for a rollout search.
type rootEval struct {
	ok   bool    // the evaluator answered
	draw float64 // the draw's share, 0..1
}

// evalRoot asks sg's evaluator for the outcome of g's position, once: one
// position, the root, outside the search.
func evalRoot(sg *arena.SearchGame, g *engine.Game) rootEval {
	legal := g.V.Legal(&g.Pos, nil)
	if len(legal) == 0 {
		return rootEval{}
	}
	b := mcts.NewBatch(g.V)
	i := b.Add(&g.Pos, legal)
	b.SetRepetitions(i, g.V.Repetitions(&g.Pos, g.Hashes))
	if err := sg.Evaluator().Evaluate(b); err != nil {
		return rootEval{}
	}
	sum := 0.0
	out := b.Outcome(i)
	for _, w := range out {
		if !(w >= 0) || math.IsInf(float64(w), 0) {
			return rootEval{}
		}
		sum += float64(w)
	}
	if sum <= 0 {
		return rootEval{}
	}
	return rootEval{ok: true, draw: float64(out[g.V.Players]) / sum}
}

// wdlPermille is the `wdl W D L` of an info line, in permille summing to
// 1000, for the mover's expected score s (a draw half a win): the draw's
// share is the evaluator's at the root (root), as far as s leaves room
// for it, and the rest splits into win and loss so that W + D/2 is s. A
// root proven drawn is 0 1000 0; without the evaluator's answer the draw
// share is 0 (W = s, L = 1 - s).
func wdlPermille(s float64, root rootEval, drawn bool) (w, d, l int) {
	if drawn {
		return 0, 1000, 0
	}
	s = min(max(s, 0), 1)
	draw := 0.0
	if root.ok {
		draw = min(root.draw, 2*min(s, 1-s))
	}
	w = int(math.Round(1000 * (s - draw/2)))
	l = int(math.Round(1000 * (1 - s - draw/2)))
	w, l = min(max(w, 0), 1000), min(max(l, 0), 1000-w)
	return w, 1000 - w - l, l
}
