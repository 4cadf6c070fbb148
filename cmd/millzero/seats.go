package main

import (
	"fmt"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// pieceChars are the symbols engine.Diagram draws the seats' pieces with.
const pieceChars = "O@X#"

// seatLabel is the seat's name with its symbol on the text board.
func seatLabel(v *engine.Variant, seat int) string {
	return fmt.Sprintf("%s (%c)", arena.SeatName(v, seat), pieceChars[seat])
}
