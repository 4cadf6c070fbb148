package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// pieceChars are the symbols engine.Diagram draws the seats' pieces with.
const pieceChars = "O@X#"

// seatLabel is the seat's name with its symbol on the text board.
func seatLabel(v *engine.Variant, seat int) string {
	return fmt.Sprintf("%s (%c)", arena.SeatName(v, seat), pieceChars[seat])
}

// parseSeat reads a seat: white or black with two players, or its number
// 1..Players.
func parseSeat(v *engine.Variant, s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if v.Players == 2 {
		switch t {
		case "white", "w":
			return 0, nil
		case "black", "b":
			return 1, nil
		}
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(t, "seat")); err == nil && n >= 1 && n <= v.Players {
		return n - 1, nil
	}
	if v.Players == 2 {
		return 0, fmt.Errorf("seat %q: want white, black, 1 or 2", s)
	}
	return 0, fmt.Errorf("seat %q: want a seat number 1..%d", s, v.Players)
}
