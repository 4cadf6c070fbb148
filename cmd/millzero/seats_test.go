package main

import (
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

func TestSeatLabel_NameAndSymbol(t *testing.T) {
	two, _ := engine.Load("nine")
	four, _ := engine.Load("moulin-rouge-4")
	if arena.SeatName(four, 2) != "seat 3" || seatLabel(two, 1) != "black (@)" {
		t.Errorf("names: %q %q", arena.SeatName(four, 2), seatLabel(two, 1))
	}
}
