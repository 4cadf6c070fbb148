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
