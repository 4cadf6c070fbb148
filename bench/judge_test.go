package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

func TestPhaseOf_PlacingMovingFlying(t *testing.T) {
	nine, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	spec := nine.Spec
	spec.FlyAt = 0
	noFly, err := engine.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	start := nine.Start()
	placed := start // seat 0 has placed all but one; seat 1 all, and is to move
	placed.Hand = [engine.MaxSeats]uint8{1, 0}
	placed.Pieces = [engine.MaxSeats]uint32{0xff, 0xff00}
	placed.Side = 1
	three := placed // seat 1 down to three pieces
	three.Pieces[1] = 0x700
	threeToMove0 := three
	threeToMove0.Side = 0
	for _, c := range []struct {
		name string
		v    *engine.Variant
		p    engine.Position
		want string
	}{
		{"the start", nine, start, "placing"},
		{"every piece placed", nine, placed, "moving"},
		{"three pieces", nine, three, "flying"},
		{"three pieces where no one flies", noFly, three, "moving"},
		{"the other side at three, pieces in hand", nine, threeToMove0, "placing"},
	} {
		if got := phaseGroups[phaseOf(c.v, &c.p)]; got != c.want {
			t.Errorf("%s: phase %s, want %s", c.name, got, c.want)
		}
	}
	if got := materialGroups[materialOf(&three)]; got != "<=-3" {
		t.Errorf("three pieces against eight and one in hand: material %s, want <=-3", got)
	}
}

func TestJudge_LeavingAMillOpenAtThreePiecesIsABlunder(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	// White, to move, and black fly with three pieces each; black closes
	// a7-d7-g7 next unless white takes g7, and a mill then leaves white
	// two pieces.
	p := engine.Position{LastRotation: engine.NoRotation}
	for seat, pts := range []string{"b6 f2 e4", "a7 d7 c3"} {
		for _, name := range strings.Fields(pts) {
			p.Pieces[seat] |= 1 << v.Board.Point(name)
		}
	}
	p, err = v.ParsePosition(v.FormatPosition(&p))
	if err != nil {
		t.Fatal(err)
	}
	j, err := (&Diagnose{HashMB: 1}).newJudge(v, nil, nil, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		move             string
		blunder          bool
		minLost, maxLost float64
	}{
		{"b6-d6", true, 3.5, 8},
		{"f2-g7", false, 0, 0.5}, // a block; the engine may prefer another piece to block with
	} {
		g := engine.NewGameFrom(v, p)
		a, err := v.ParseAction(&g.Pos, c.move)
		if err != nil {
			t.Fatal(err)
		}
		m, err := j.action(context.Background(), g, a)
		if err != nil {
			t.Fatal(err)
		}
		if m.blunder != c.blunder || c.blunder && m.agree || m.lost < c.minLost || m.lost > c.maxLost || phaseGroups[m.phase] != "flying" {
			t.Errorf("%s: %+v: want blunder %v (and then not the engine's best), %v..%v pieces lost, flying", c.move, m, c.blunder, c.minLost, c.maxLost)
		}
		if g.Pos != p || len(g.Actions) != 0 {
			t.Errorf("%s: the game moved on: %s", c.move, v.FormatPosition(&g.Pos))
		}
	}
}

func TestJudge_AMillThatLeavesTwoPiecesIsScoredWon(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	// White, to move, flies c3 to g7 and closes a7-d7-g7; the removal
	// that follows leaves black two pieces.
	p := engine.Position{LastRotation: engine.NoRotation}
	for seat, pts := range []string{"a7 d7 c3", "b4 f4 d2"} {
		for _, name := range strings.Fields(pts) {
			p.Pieces[seat] |= 1 << v.Board.Point(name)
		}
	}
	p, err = v.ParsePosition(v.FormatPosition(&p))
	if err != nil {
		t.Fatal(err)
	}
	j, err := (&Diagnose{HashMB: 1}).newJudge(v, nil, nil, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	g := engine.NewGameFrom(v, p)
	a, err := v.ParseAction(&g.Pos, "c3-g7")
	if err != nil {
		t.Fatal(err)
	}
	m, err := j.action(context.Background(), g, a)
	if err != nil {
		t.Fatal(err)
	}
	if m.best <= classic.Decisive || !m.agree || m.lost != 0 {
		t.Errorf("c3-g7: %+v: want the position scored won (beyond %d), the mill the engine's best, nothing lost", m, classic.Decisive)
	}
}
