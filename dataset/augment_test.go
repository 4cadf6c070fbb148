package dataset

import (
	"slices"
	"testing"

	"github.com/millzero/millzero/engine"
)

// Under every symmetry of every variant, a policy over all legal actions
// stays a policy over all legal actions of the mapped position, each action
// keeping its probability.
func TestAugment_EverySymmetryKeepsThePolicyOnTheLegalActions(t *testing.T) {
	buf := make([]engine.Action, 0, engine.MaxActions)
	for _, name := range engine.Names() {
		v, err := engine.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		samples := playGames(t, name, 1, 21, 0, 60)
		for sym := 0; sym < v.NumSymmetries(); sym++ {
			for i := range samples {
				orig := &samples[i]
				s := *orig
				s.Policy = slices.Clone(orig.Policy)
				augment(v, &s, sym)
				want := map[uint16]float32{}
				for _, a := range v.Legal(&s.Position, buf) {
					want[uint16(v.ActionIndex(a))] = -1
				}
				for j, e := range s.Policy {
					a := v.ActionAt(int(orig.Policy[j].Action))
					if mapped := uint16(v.ActionIndex(v.MapAction(sym, a))); e.Action != mapped || e.Prob != orig.Policy[j].Prob {
						t.Fatalf("%s sym %d: entry %d is %+v, want action %d prob %v", name, sym, j, e, mapped, orig.Policy[j].Prob)
					}
					if _, ok := want[e.Action]; !ok {
						t.Fatalf("%s sym %d ply %d: action %s not legal in the mapped position", name, sym, s.Ply, v.FormatAction(v.ActionAt(int(e.Action))))
					}
					delete(want, e.Action)
				}
				if len(want) != 0 {
					t.Fatalf("%s sym %d ply %d: %d legal actions of the mapped position have no policy entry", name, sym, s.Ply, len(want))
				}
				if sym == 0 && s.Position != orig.Position {
					t.Fatalf("%s: the identity moved the position", name)
				}
			}
		}
	}
}

// A symmetry maps the game's end and the reply as it maps the position:
// replaying the game's actions mapped from the mapped position reaches the
// mapped end, so the reply is legal after the mapped searched action.
func TestAugment_MapsTheReplyAndTheEndWithThePosition(t *testing.T) {
	buf := make([]engine.Action, 0, engine.MaxActions)
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	samples := playGames(t, "nine", 4, 33, 0, 200)
	checked := 0
	for sym := 1; sym < v.NumSymmetries(); sym++ {
		for i := range samples {
			orig := &samples[i]
			s := *orig
			s.Policy = slices.Clone(orig.Policy)
			augment(v, &s, sym)
			for seat := 0; seat < v.Players; seat++ {
				if got, want := s.End.Pieces[seat], v.MapPosition(sym, engine.Position{Pieces: orig.End.Pieces}).Pieces[seat]; got != want {
					t.Fatalf("sym %d: seat %d's pieces at the end %032b, want %032b", sym, seat, got, want)
				}
			}
			if s.End.Ply != orig.End.Ply || s.End.Hand != orig.End.Hand {
				t.Fatalf("sym %d: the end's ply or hands changed: %+v, was %+v", sym, s.End, orig.End)
			}
			if orig.Reply < 0 || i+1 >= len(samples) || samples[i+1].GameID != orig.GameID {
				continue
			}
			// The sample after this one is the position the searched
			// action led to (every ply is recorded here): the mapped reply
			// is legal in its mapped position.
			next := v.MapPosition(sym, samples[i+1].Position)
			if !slices.Contains(v.Legal(&next, buf), v.ActionAt(s.Reply)) {
				t.Fatalf("sym %d ply %d: the mapped reply %s is not legal in the mapped next position", sym, s.Ply, v.FormatAction(v.ActionAt(s.Reply)))
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no reply checked")
	}
}
