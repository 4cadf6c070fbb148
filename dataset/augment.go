package dataset

import "github.com/millzero/millzero/engine"

// augment maps s by board symmetry sym of v: the position (its hash
// recomputed by the engine) and every policy entry's action id, so the
// policy stays a distribution over the mapped position's legal actions;
// the reply and the pieces at the game's end likewise.
func augment(v *engine.Variant, s *Sample, sym int) {
	if sym == 0 {
		return
	}
	s.Position = v.MapPosition(sym, s.Position)
	for i := range s.Policy {
		a := v.ActionAt(int(s.Policy[i].Action))
		s.Policy[i].Action = uint16(v.ActionIndex(v.MapAction(sym, a)))
	}
	if s.Reply >= 0 {
		s.Reply = v.ActionIndex(v.MapAction(sym, v.ActionAt(s.Reply)))
	}
	for seat := 0; seat < v.Players; seat++ {
		s.End.Pieces[seat] = v.MapPoints(sym, s.End.Pieces[seat])
	}
}
