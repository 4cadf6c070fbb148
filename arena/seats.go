package arena

import (
	"fmt"
	"strconv"

	"github.com/millzero/millzero/engine"
)

// SeatName names a seat for people: white and black with two players,
// seat 1..4 otherwise.
func SeatName(v *engine.Variant, seat int) string {
	if v.Players == 2 {
		return [2]string{"white", "black"}[seat]
	}
	return "seat " + strconv.Itoa(seat+1)
}

// ResultText says who won (or that it is a draw) and why, for people; p
// is the final position.
func ResultText(v *engine.Variant, p *engine.Position, r engine.Result, why engine.Reason) string {
	head := "draw"
	if w, ok := r.Winner(); ok {
		head = SeatName(v, w) + " wins"
	}
	var reason string
	switch why {
	case engine.NoLegalAction:
		reason = SeatName(v, int(p.Side)) + " has no legal action"
	case engine.TooFewPieces:
		reason = "too few pieces are left"
		for s := 0; s < v.Players; s++ {
			if w, ok := r.Winner(); ok && s != w && p.PiecesLeft(s) < 3 {
				reason = SeatName(v, s) + " is down to " + strconv.Itoa(p.PiecesLeft(s)) + " pieces"
				break
			}
		}
	case engine.LineFormed:
		reason = "a line of three was formed"
		if w, ok := r.Winner(); ok {
			reason = SeatName(v, w) + " formed a line of three"
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
