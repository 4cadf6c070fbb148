package main

import (
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
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
	if arena.SeatName(four, 2) != "seat 3" || seatLabel(two, 1) != "black (@)" {
		t.Errorf("names: %q %q", arena.SeatName(four, 2), seatLabel(two, 1))
	}
}
