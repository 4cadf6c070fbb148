package engine

import (
	"strings"
	"testing"
)

func TestDiagram_NineShowsPiecesAndCoordinates(t *testing.T) {
	v := mustLoad(t, "nine")
	p := play(t, v, v.Start(), "a7", "d6", "g1")
	got := v.Diagram(&p)
	want := []string{
		"7  O-----------+-----------+",
		"6  |   +-------@-------+   |",
		"1  +-----------+-----------O",
		"   a   b   c   d   e   f   g",
		"@ to move",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("diagram lacks %q:\n%s", w, got)
		}
	}
}

func TestDiagram_EveryBoardDraws(t *testing.T) {
	for _, name := range Names() {
		v := mustLoad(t, name)
		p := v.Start()
		d := v.Diagram(&p)
		if strings.Count(d, "+") != v.Board.Points {
			t.Errorf("%s: %d points drawn, want %d:\n%s", name, strings.Count(d, "+"), v.Board.Points, d)
		}
	}
}
