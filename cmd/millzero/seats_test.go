package main

import (
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestParseSeat_ColoursForTwoNumbersForMore(t *testing.T) {
	two, _ := engine.Load("nine")
	four, _ := engine.Load("moulin-rouge-4")
	cases := []struct {
		v    *engine.Variant
		in   string
		want int
		err  string
	}{
		{two, "white", 0, ""},
		{two, "Black", 1, ""},
		{two, "2", 1, ""},
		{two, "3", 0, "white, black, 1 or 2"},
		{four, "4", 3, ""},
		{four, "seat1", 0, ""},
		{four, "white", 0, "1..4"},
		{four, "0", 0, "1..4"},
	}
	for _, c := range cases {
		got, err := parseSeat(c.v, c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s %q: %d, %v; want %d", c.v.Name, c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), c.in)):
			t.Errorf("%s %q: error %v, want one naming %q and %q", c.v.Name, c.in, err, c.in, c.err)
		}
	}
	if seatName(four, 2) != "seat 3" || seatLabel(two, 1) != "black (@)" {
		t.Errorf("names: %q %q", seatName(four, 2), seatLabel(two, 1))
	}
}

func TestResultText_SaysWhoWonAndWhy(t *testing.T) {
	three, _ := engine.Load("three")
	g := engine.NewGame(three)
	for _, m := range strings.Fields("a3 a1 b3 b1 c3") {
		if err := g.PlayString(m); err != nil {
			t.Fatal(err)
		}
	}
	r, why := g.Outcome()
	if got := resultText(three, &g.Pos, r, why); got != "white wins: white formed a line of three" {
		t.Errorf("line: %q", got)
	}
	nine, _ := engine.Load("nine")
	p := nine.Start()
	cases := []struct {
		r    engine.Result
		why  engine.Reason
		want string
	}{
		{engine.WinFor(1), engine.NoLegalAction, "black wins: white has no legal action"},
		{engine.Draw, engine.RepetitionDraw, "draw: the same position arose 3 times"},
		{engine.Draw, engine.PlyCapDraw, "draw: the game reached its limit of"},
	}
	for _, c := range cases {
		if got := resultText(nine, &p, c.r, c.why); !strings.HasPrefix(got, c.want) {
			t.Errorf("%v %v: %q, want %q", c.r, c.why, got, c.want)
		}
	}
}
