package engine

import "fmt"

// MaxSeats is the largest number of players a variant may have.
const MaxSeats = 4

// MaxPoints is the largest number of points a board may have: a bitboard is
// one uint32.
const MaxPoints = 32

// NoRotation is Position.LastRotation when the previous turn rotated nothing.
const NoRotation int8 = -1

// Kind is what an action does.
type Kind uint8

// The kinds of action. Every action is one ply.
const (
	Place  Kind = iota // put a piece from the hand on an empty point
	Move               // slide (or fly) a piece from one point to another
	Remove             // take an opponent's piece after forming a mill
	Rotate             // turn a whole ring one cell (rotating-ring board)
)

// Action is one ply, packed in 16 bits:
//
//	15  12 11  10 9      5 4      0
//	+------+------+--------+--------+
//	|  0   | kind |  from  |   to   |
//	+------+------+--------+--------+
//
// Place and Remove use only `to`. Move uses both. Rotate keeps the ring in
// `to` and the direction in `from` (0 clockwise, 1 anticlockwise).
type Action uint16

// PlaceAt is the action that places a piece on point p.
func PlaceAt(p int) Action { return Action(Place)<<10 | Action(p) }

// MoveFromTo is the action that moves the piece on from to to.
func MoveFromTo(from, to int) Action { return Action(Move)<<10 | Action(from)<<5 | Action(to) }

// RemoveAt is the action that removes the opponent piece on point p.
func RemoveAt(p int) Action { return Action(Remove)<<10 | Action(p) }

// RotateRing is the action that turns ring one cell, clockwise or not.
func RotateRing(ring int, clockwise bool) Action {
	dir := Action(1)
	if clockwise {
		dir = 0
	}
	return Action(Rotate)<<10 | dir<<5 | Action(ring)
}

// Kind reports what the action does.
func (a Action) Kind() Kind { return Kind(a >> 10 & 3) }

// To is the destination point (Place, Move), the removed point (Remove) or
// the ring (Rotate).
func (a Action) To() int { return int(a & 31) }

// From is the origin point of a Move, or 1 for an anticlockwise Rotate.
func (a Action) From() int { return int(a >> 5 & 31) }

// Clockwise reports the direction of a Rotate.
func (a Action) Clockwise() bool { return a>>5&31 == 0 }

// Result is how a game ended: Ongoing, Draw, or a win for one seat.
type Result uint8

// The results that are not wins; a win for seat s is WinFor(s).
const (
	Ongoing Result = 0
	Draw    Result = 1
)

// WinFor is the result in which seat wins.
func WinFor(seat int) Result { return Result(2 + seat) }

// Winner reports the winning seat, if the result is a win.
func (r Result) Winner() (seat int, ok bool) {
	if r < 2 {
		return 0, false
	}
	return int(r) - 2, true
}

// Class is the result as an outcome class of the value head: the winning
// seat, or players for a draw. It is -1 for Ongoing.
func (r Result) Class(players int) int {
	switch r {
	case Ongoing:
		return -1
	case Draw:
		return players
	}
	return int(r) - 2
}

// Score is what seat scores under the result: 1 for a win, 1/players for a
// draw, 0 for a loss (docs/rules.md, "Outcomes and values").
func (r Result) Score(seat, players int) float64 {
	switch r {
	case Ongoing:
		return 0
	case Draw:
		return 1 / float64(players)
	}
	if int(r)-2 == seat {
		return 1
	}
	return 0
}

func (r Result) String() string {
	switch r {
	case Ongoing:
		return "ongoing"
	case Draw:
		return "draw"
	}
	return fmt.Sprintf("seat %d wins", int(r)-2)
}

// Reason says why a game ended.
type Reason uint8

// The reasons a game ends.
const (
	NotOver        Reason = iota
	NoLegalAction         // the side to move cannot act and loses
	TooFewPieces          // a player was left with fewer than 3 pieces
	LineFormed            // a line wins (Three Men's Morris, first-mill-wins)
	LastStanding          // every other player was eliminated
	NoCaptureDraw         // no removal for no_capture_draw plies
	RepetitionDraw        // the same position for the repetition_draw-th time
	EndgameDraw           // both at 3 pieces for endgame_draw plies
	BoardFullDraw         // the board filled up
	PlyCapDraw            // the game reached max_plies
)

var reasonNames = [...]string{"not over", "no legal action", "too few pieces", "line formed",
	"last player standing", "no-capture draw", "repetition draw", "endgame draw",
	"board full", "ply cap"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// Position is the whole state of a game but its history, as a value of a few
// words: copy it freely. Bit i of a bitboard is point i of the board (see
// Board for the numbering).
type Position struct {
	Pieces       [MaxSeats]uint32 // bitboard of each seat's pieces on the board
	Hash         uint64           // Zobrist hash of everything that decides the legal actions
	Hand         [MaxSeats]uint8  // pieces each seat has still to place
	Pending      [MaxSeats]uint8  // removals the side to move still owes, from each seat
	Side         uint8            // the seat to move
	Out          uint8            // bitmask of eliminated seats (3-4 players)
	LastRotation int8             // ring*2+dir rotated by the previous turn, or NoRotation
	Result       Result           // Ongoing until the game ends
	Reason       Reason           // why it ended
	NoCapture    uint16           // place/move/rotate plies since the last removal
	Endgame      uint16           // plies since both players were down to 3 pieces
	Quiet        uint16           // plies since the last irreversible action (place, remove)
	Ply          uint16           // actions played since the start
}

// Removing reports whether the side to move owes a removal.
func (p *Position) Removing() bool {
	return p.Pending[0]|p.Pending[1]|p.Pending[2]|p.Pending[3] != 0
}
