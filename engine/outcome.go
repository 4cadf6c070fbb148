package engine

// Outcome is the result of p by the rules that p alone decides: the result
// stored by Apply, or a loss for the side to move when it has no legal
// action. Repetition needs the history: see Repetitions and Game.Outcome.
func (v *Variant) Outcome(p *Position) (Result, Reason) {
	if p.Result != Ongoing {
		return p.Result, p.Reason
	}
	// With 3-4 players Apply eliminates a seat that comes to move stuck.
	if v.Players == 2 && !v.HasLegal(p) {
		return WinFor(1 - int(p.Side)), NoLegalAction
	}
	return Ongoing, NotOver
}

// Repetitions counts the earlier positions in history (the hashes of the
// positions before p, oldest first, p not included) that equal p, looking
// back only as far as the last irreversible action.
func (v *Variant) Repetitions(p *Position, history []uint64) int {
	n := 0
	lo := len(history) - int(p.Quiet)
	if lo < 0 {
		lo = 0
	}
	for i := len(history) - 1; i >= lo; i-- {
		if history[i] == p.Hash {
			n++
		}
	}
	return n
}

// repeated reports whether p is drawn by repetition given its history.
func (v *Variant) repeated(p *Position, history []uint64) bool {
	return v.RepetitionDraw > 0 && int(p.Quiet) >= 4 && v.Repetitions(p, history)+1 >= v.RepetitionDraw
}
