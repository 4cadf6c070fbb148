package engine

import (
	"math/bits"
	"testing"
)

// ApplyTo is Apply without the returned copy: the same position, also when
// it makes the action in place (dst == p).
func TestApplyTo_SameAsApply_AlsoInPlace(t *testing.T) {
	for _, name := range Names() {
		v := mustLoad(t, name)
		randomGames(t, v, 20, 11, func(g *Game) {
			for _, a := range v.Legal(&g.Pos, nil) {
				want := v.Apply(&g.Pos, a)
				var got Position
				v.ApplyTo(&got, &g.Pos, a)
				inPlace := g.Pos
				v.ApplyTo(&inPlace, &inPlace, a)
				if got != want || inPlace != want {
					t.Fatalf("%s: %s in %s: ApplyTo %+v, in place %+v, Apply %+v",
						name, v.FormatAction(a), v.FormatPosition(&g.Pos), got, inPlace, want)
				}
			}
		})
	}
}

// The mills a place or move forms are counted over every line through the
// point reached, also on boards whose points lie on 3 or 4 lines: the
// removals owed are those mills (one per action unless remove_per_mill),
// capped by the removable pieces.
func TestApply_MillsFormedOnEveryLineThroughThePoint(t *testing.T) {
	formed := 0
	for _, name := range Names() {
		v := mustLoad(t, name)
		if v.LineWins || v.Board.Rotating {
			continue
		}
		randomGames(t, v, 20, 12, func(g *Game) {
			p := &g.Pos
			s := int(p.Side)
			for _, a := range v.Legal(p, nil) {
				if a.Kind() != Place && a.Kind() != Move {
					continue
				}
				q := v.Apply(p, a)
				mills := 0
				for _, l := range v.Board.Lines {
					if l>>a.To()&1 != 0 && q.Pieces[s]&l == l {
						mills++
					}
				}
				want := 0
				if mills > 0 {
					formed++
					want = 1
					if v.RemovePerMill {
						want = mills
					}
				}
				o := 1 - s
				want = min(want, bits.OnesCount32(v.removable(&q, o)))
				if int(q.Pending[o]) != want {
					t.Fatalf("%s: %s in %s forms %d mills: %d removals owed, want %d",
						name, v.FormatAction(a), v.FormatPosition(p), mills, q.Pending[o], want)
				}
			}
		})
	}
	if formed == 0 {
		t.Fatal("no action formed a mill: the test checked nothing")
	}
}
