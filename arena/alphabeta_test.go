package arena

import (
	"context"
	"testing"

	"github.com/millzero/millzero/engine"
)

func loadVariant(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// score is A's total score over recs.
func scoreOf(name string, recs []Record) (wins, draws, losses int) {
	for i := range recs {
		r := &recs[i]
		seat := 0
		if r.Player1 == name {
			seat = 1
		}
		switch r.Score(seat) {
		case 1:
			wins++
		case 0.5:
			draws++
		default:
			losses++
		}
	}
	return
}

func TestAlphaBeta_BeatsRandomNearlyAlways(t *testing.T) {
	v := loadVariant(t, "nine")
	for _, depth := range []int{2, 4} {
		m := Match{Variant: v, A: AlphaBeta{Depth: depth}, B: Random{}, Pairs: 4, OpeningPlies: 4, Seed: 1}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		w, d, l := scoreOf(m.A.Name(), recs)
		t.Logf("%s vs random: +%d =%d -%d", m.A.Name(), w, d, l)
		if l > 0 || w < len(recs)-1 {
			t.Errorf("%s vs random: +%d =%d -%d, want every game won (one draw at most)", m.A.Name(), w, d, l)
		}
	}
}

func TestAlphaBeta_Depth4BeatsDepth2(t *testing.T) {
	v := loadVariant(t, "nine")
	m := Match{Variant: v, A: AlphaBeta{Depth: 4}, B: AlphaBeta{Depth: 2}, Pairs: 4, OpeningPlies: 4, Seed: 2}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, d, l := scoreOf(m.A.Name(), recs)
	t.Logf("depth 4 vs depth 2: +%d =%d -%d", w, d, l)
	for _, r := range recs {
		t.Logf("pair %d game %d: %s vs %s %s (%s, %d plies)", r.Pair, r.Game, r.Player0, r.Player1, r.ResultString(), r.Reason, r.Plies)
	}
	if w <= l {
		t.Errorf("depth 4 vs depth 2: +%d =%d -%d, want more wins than losses", w, d, l)
	}
}
