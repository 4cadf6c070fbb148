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
		// A shallow search may fail to convert a won ending before the
		// N-move rule: a draw now and then, never a loss.
		if l > 0 || 4*w < 3*len(recs) {
			t.Errorf("%s vs random: +%d =%d -%d, want no loss and three quarters won", m.A.Name(), w, d, l)
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

// gameAfter plays moves (the variant's notation) from the start.
func gameAfter(t testing.TB, v *engine.Variant, moves ...string) *engine.Game {
	t.Helper()
	g := engine.NewGame(v)
	for _, m := range moves {
		if err := g.PlayString(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestAlphaBeta_RemovalIsTheSameSeatsAction(t *testing.T) {
	// White holds a7 and d7: g7 closes the mill, and the removal that
	// follows is white's own action. Backing it up as the opponent's
	// would make the mill look bad.
	v := loadVariant(t, "nine")
	// (Deeper searches rightly prefer a4 or d6 here: a fork that keeps
	// g7 in hand; TestAlphaBeta_MillThatWinsIsPlayedAtAnyDepth covers them.)
	for _, depth := range []int{1, 2} {
		g := gameAfter(t, v, "a7", "b6", "d7", "c5")
		gp, err := AlphaBeta{Depth: depth}.NewGame(v, 0)
		if err != nil {
			t.Fatal(err)
		}
		a, err := gp.Act(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.FormatAction(a); got != "g7" {
			t.Errorf("depth %d: played %s, want g7 (closing the mill)", depth, got)
		}
	}
}

func TestAlphaBeta_BlocksAMillAtDepthTwo(t *testing.T) {
	v := loadVariant(t, "nine")
	g := gameAfter(t, v, "a7", "b6", "d7")
	gp, err := AlphaBeta{Depth: 2}.NewGame(v, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := gp.Act(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.FormatAction(a); got != "g7" {
		t.Errorf("played %s, want g7 (blocking white's mill)", got)
	}
}

func TestAlphaBeta_DeterministicAndAllocationFree(t *testing.T) {
	v := loadVariant(t, "nine")
	g := gameAfter(t, v, "a7", "b6", "d7", "c5", "d1", "f4")
	first := map[int]engine.Action{}
	for round := 0; round < 2; round++ {
		gp, err := AlphaBeta{Depth: 3}.NewGame(v, uint64(round))
		if err != nil {
			t.Fatal(err)
		}
		a, err := gp.Act(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			first[0] = a
		} else if a != first[0] {
			t.Errorf("second search played %s, first %s", v.FormatAction(a), v.FormatAction(first[0]))
		}
		if allocs := testing.AllocsPerRun(3, func() { gp.Act(context.Background(), g) }); allocs != 0 {
			t.Errorf("Act allocates %.0f times, want 0", allocs)
		}
	}
}

func TestAlphaBeta_BadSettingsAreErrors(t *testing.T) {
	if _, err := (AlphaBeta{Depth: 0}).NewGame(loadVariant(t, "nine"), 0); err == nil {
		t.Errorf("depth 0: no error")
	}
}

func TestAlphaBeta_PlaysEveryTwoPlayerVariant(t *testing.T) {
	for _, name := range engine.Names() {
		v := loadVariant(t, name)
		if v.Players != 2 {
			continue
		}
		m := Match{Variant: v, A: AlphaBeta{Depth: 2}, B: Random{}, Pairs: 1, OpeningPlies: 2, Seed: 4}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w, d, l := scoreOf(m.A.Name(), recs)
		t.Logf("%s: +%d =%d -%d", name, w, d, l)
	}
}

// BenchmarkAlphaBeta_Depth4 measures one depth-4 move in the placing
// phase of Nine Men's Morris, in nodes per second.
func BenchmarkAlphaBeta_Depth4(b *testing.B) {
	v := loadVariant(b, "nine")
	g := gameAfter(b, v, "a7", "b6", "d7", "c5", "d1", "f4")
	gp, err := AlphaBeta{Depth: 4}.NewGame(v, 0)
	if err != nil {
		b.Fatal(err)
	}
	s := gp.(*alphaBetaSearch)
	b.ReportAllocs()
	nodes := int64(0)
	for b.Loop() {
		if _, err := gp.Act(context.Background(), g); err != nil {
			b.Fatal(err)
		}
		nodes += s.nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/move")
}

func TestAlphaBeta_MillThatWinsIsPlayedAtAnyDepth(t *testing.T) {
	// White slides g4-g7 to close a7-d7-g7, then removes one of black's
	// three pieces and wins: two actions of the same seat.
	v := loadVariant(t, "nine")
	p, err := v.ParsePosition("OO*O****/@****@**/****O*@* side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40")
	if err != nil {
		t.Fatal(err)
	}
	for depth := 1; depth <= 6; depth++ {
		gp, err := AlphaBeta{Depth: depth}.NewGame(v, 0)
		if err != nil {
			t.Fatal(err)
		}
		g := engine.NewGameFrom(v, p)
		a, err := gp.Act(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.FormatAction(a); got != "g4-g7" {
			t.Errorf("depth %d: played %s, want g4-g7 (the winning mill)", depth, got)
		}
	}
}
