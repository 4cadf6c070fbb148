package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/millzero/millzero/engine"
)

// pieceChars are the symbols engine.Diagram draws the seats' pieces with.
const pieceChars = "O@X#"

// seatName names a seat for people: white and black with two players,
// seat 1..4 otherwise.
func seatName(v *engine.Variant, seat int) string {
	if v.Players == 2 {
		return [2]string{"white", "black"}[seat]
	}
	return "seat " + strconv.Itoa(seat+1)
}

// seatLabel is the seat's name with its symbol on the text board.
func seatLabel(v *engine.Variant, seat int) string {
	return fmt.Sprintf("%s (%c)", seatName(v, seat), pieceChars[seat])
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

// resultText says who won (or that it is a draw) and why, for people; p
// is the final position.
func resultText(v *engine.Variant, p *engine.Position, r engine.Result, why engine.Reason) string {
	head := "draw"
	if w, ok := r.Winner(); ok {
		head = seatName(v, w) + " wins"
	}
	var reason string
	switch why {
	case engine.NoLegalAction:
		reason = seatName(v, int(p.Side)) + " has no legal action"
	case engine.TooFewPieces:
		reason = "too few pieces are left"
		for s := 0; s < v.Players; s++ {
			if w, ok := r.Winner(); ok && s != w && p.PiecesLeft(s) < 3 {
				reason = seatName(v, s) + " is down to " + strconv.Itoa(p.PiecesLeft(s)) + " pieces"
				break
			}
		}
	case engine.LineFormed:
		reason = "a line of three was formed"
		if w, ok := r.Winner(); ok {
			reason = seatName(v, w) + " formed a line of three"
		}
	case engine.LastStanding:
		reason = "every other player was eliminated"
	case engine.NoCaptureDraw:
		reason = fmt.Sprintf("no piece was removed in %d actions", v.NoCaptureDraw)
	case engine.RepetitionDraw:
		reason = fmt.Sprintf("the same position arose %d times", v.RepetitionDraw)
	case engine.EndgameDraw:
		reason = fmt.Sprintf("%d actions with both sides down to 3 pieces", v.EndgameDraw)
	case engine.BoardFullDraw:
		reason = "the board is full"
	case engine.PlyCapDraw:
		reason = fmt.Sprintf("the game reached its limit of %d actions", v.MaxPlies)
	default:
		reason = why.String()
	}
	return head + ": " + reason
}
