package engine

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// ErrIllegal is returned (wrapped, with the reason) for an action that is
// not legal in the position.
var ErrIllegal = errors.New("illegal action")

// ErrSyntax is returned (wrapped) for text that is not an action or a
// position of the variant.
var ErrSyntax = errors.New("malformed")

// FormatAction writes an action in the variant's notation: "d6" (place),
// "d6-d5" (move), "xd7" (remove), "r1+" / "r1-" (rotate ring 1 clockwise /
// anticlockwise).
func (v *Variant) FormatAction(a Action) string {
	b := v.Board
	switch a.Kind() {
	case Place:
		if a.To() < b.Points {
			return b.names[a.To()]
		}
	case Move:
		if a.To() < b.Points && a.From() < b.Points {
			return b.names[a.From()] + "-" + b.names[a.To()]
		}
	case Remove:
		if a.To() < b.Points {
			return "x" + b.names[a.To()]
		}
	case Rotate:
		if b.Rotating && a.To() < b.Rings {
			if a.Clockwise() {
				return fmt.Sprintf("r%d+", a.To()+1)
			}
			return fmt.Sprintf("r%d-", a.To()+1)
		}
	}
	return fmt.Sprintf("action(%#04x)", uint16(a))
}

// ParseActionSyntax reads an action in the variant's notation without
// checking that it is legal anywhere.
func (v *Variant) ParseActionSyntax(s string) (Action, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	b := v.Board
	point := func(name string) (int, error) {
		if p := b.Point(name); p >= 0 {
			return p, nil
		}
		return 0, fmt.Errorf("action %q: %w: no point %q on the %s board", s, ErrSyntax, name, v.Name)
	}
	switch {
	case t == "":
		return 0, fmt.Errorf("action %q: %w: empty", s, ErrSyntax)
	case t[0] == 'x':
		p, err := point(t[1:])
		return RemoveAt(p), err
	case b.Rotating && t[0] == 'r':
		if len(t) != 3 || t[1] < '1' || int(t[1]-'0') > b.Rings || (t[2] != '+' && t[2] != '-') {
			return 0, fmt.Errorf("action %q: %w: a rotation is r1+ .. r%d- (ring, + clockwise, - anticlockwise)", s, ErrSyntax, b.Rings)
		}
		return RotateRing(int(t[1]-'1'), t[2] == '+'), nil
	case strings.Contains(t, "-"):
		from, to, _ := strings.Cut(t, "-")
		f, err := point(from)
		if err != nil {
			return 0, err
		}
		q, err := point(to)
		return MoveFromTo(f, q), err
	}
	p, err := point(t)
	return PlaceAt(p), err
}

// ParseAction reads an action and checks that it is legal in p; an error
// names the token and says why it is not.
func (v *Variant) ParseAction(p *Position, s string) (Action, error) {
	a, err := v.ParseActionSyntax(s)
	if err != nil {
		return 0, err
	}
	if !v.IsLegal(p, a) {
		return 0, fmt.Errorf("action %q: %w: %s", s, ErrIllegal, v.whyIllegal(p, a))
	}
	return a, nil
}

// whyIllegal explains, for a person, why a is not legal in p.
func (v *Variant) whyIllegal(p *Position, a Action) string {
	if r, why := v.Outcome(p); r != Ongoing {
		return fmt.Sprintf("the game is over (%s: %s)", r, why)
	}
	s := int(p.Side)
	b := v.Board
	occ := p.Occupied()
	if p.Removing() && a.Kind() != Remove {
		return "a mill was formed: the same player must now remove a piece (xPOINT)"
	}
	switch a.Kind() {
	case Place:
		switch {
		case p.Hand[s] == 0:
			return "no pieces left in hand: move a piece (FROM-TO)"
		case occ>>a.To()&1 != 0:
			return "point " + b.names[a.To()] + " is occupied"
		}
	case Move:
		f, t := a.From(), a.To()
		switch {
		case p.Hand[s] > 0 && !v.MoveWhilePlacing:
			return "pieces are still in hand: place one first"
		case p.Pieces[s]>>f&1 == 0:
			return "no piece of the side to move on " + b.names[f]
		case occ>>t&1 != 0:
			return "point " + b.names[t] + " is occupied"
		case !v.CanFly(p, s) && b.Adjacent[f]>>t&1 == 0:
			return b.names[t] + " is not next to " + b.names[f]
		}
	case Remove:
		t := a.To()
		o := p.Owner(t)
		switch {
		case !p.Removing():
			return "no mill was formed, so nothing may be removed"
		case o < 0:
			return "point " + b.names[t] + " is empty"
		case o == s:
			return "that is the mover's own piece"
		case o != p.removalSeat(v.Players):
			return fmt.Sprintf("remove from seat %d first", p.removalSeat(v.Players))
		default:
			return "the piece on " + b.names[t] + " stands in a mill"
		}
	case Rotate:
		r, dir := a.To(), a.From()
		switch {
		case !b.Rotating:
			return "rings do not turn on this board"
		case p.Pieces[s]&RingMask(r) == 0:
			return "the mover has no piece on that ring"
		case p.LastRotation == int8(r*2+1-dir):
			return "that undoes the previous player's rotation"
		case v.ForbidOpponentMills:
			return "it would form a mill of another colour (Pro)"
		}
	}
	return "not a legal action here"
}

// SeatChars are the symbols of the seats' pieces, seat s's at index s, in
// position strings and diagrams: the first two are Sanmill's.
const SeatChars = "O@X#"

// FEN writes p in Sanmill's FEN. Only the 24-point square boards with two
// players have one; other boards use FormatPosition. FEN holds neither the
// endgame counter, the quiet-ply count nor the exact ply: those come back
// as zero (ply from the move number).
func (v *Variant) FEN(p *Position) (string, error) {
	if err := v.fenBoard(); err != nil {
		return "", err
	}
	var sb strings.Builder
	for fr := 0; fr < 3; fr++ {
		if fr > 0 {
			sb.WriteByte('/')
		}
		r := 2 - fr
		for j := 0; j < 8; j++ {
			pt := 8*r + (j+1)%8
			switch p.Owner(pt) {
			case 0:
				sb.WriteByte('O')
			case 1:
				sb.WriteByte('@')
			default:
				sb.WriteByte('*')
			}
		}
	}
	side := "w"
	if p.Side == 1 {
		side = "b"
	}
	phase := "m"
	switch r, _ := v.Outcome(p); {
	case r != Ongoing:
		phase = "o"
	case p.Hand[0]+p.Hand[1] > 0:
		phase = "p"
	}
	act := "s"
	switch {
	case p.Removing():
		act = "r"
	case p.Hand[p.Side] > 0:
		act = "p"
	}
	var remove [2]int
	remove[p.Side] = int(p.Pending[1-p.Side])
	fmt.Fprintf(&sb, " %s %s %s %d %d %d %d %d %d 0 0 0 0 0 %d %d", side, phase, act,
		bits.OnesCount32(p.Pieces[0]), p.Hand[0], bits.OnesCount32(p.Pieces[1]), p.Hand[1],
		remove[0], remove[1], p.NoCapture, int(p.Ply)/2+1)
	return sb.String(), nil
}

func (v *Variant) fenBoard() error {
	if v.Board.Spec.Kind != "square" || v.Board.Points != 24 || v.Players != 2 {
		return fmt.Errorf("FEN: variant %s: FEN is only for 24-point square boards with two players; use the position string", v.Name)
	}
	return nil
}

// ParseFEN reads a position in Sanmill's FEN (see FEN). An error names the
// field and says what is wrong.
func (v *Variant) ParseFEN(fen string) (Position, error) {
	if err := v.fenBoard(); err != nil {
		return Position{}, err
	}
	bad := func(field, why string, args ...any) (Position, error) {
		return Position{}, fmt.Errorf("FEN %q: %w: %s: %s", fen, ErrSyntax, field, fmt.Sprintf(why, args...))
	}
	f := strings.Fields(fen)
	if len(f) != 17 {
		return bad("fields", "%d fields, want 17 (board, side, phase, action and 13 numbers)", len(f))
	}
	p := Position{LastRotation: NoRotation}
	rings := strings.Split(f[0], "/")
	if len(rings) != 3 {
		return bad("board", "%q has %d rings, want 3 (inner/middle/outer)", f[0], len(rings))
	}
	for fr, ring := range rings {
		if len(ring) != 8 {
			return bad("board", "ring %q has %d points, want 8", ring, len(ring))
		}
		for j := 0; j < 8; j++ {
			pt := 8*(2-fr) + (j+1)%8
			switch ring[j] {
			case 'O':
				p.Pieces[0] |= 1 << pt
			case '@':
				p.Pieces[1] |= 1 << pt
			case '*':
			default:
				return bad("board", "%q is not a piece: want O (white), @ (black) or * (empty)", ring[j])
			}
		}
	}
	switch f[1] {
	case "w":
	case "b":
		p.Side = 1
	default:
		return bad("side", "%q: want w or b", f[1])
	}
	if f[2] != "p" && f[2] != "m" && f[2] != "o" {
		return bad("phase", "%q: want p (placing), m (moving) or o (game over)", f[2])
	}
	if f[3] != "p" && f[3] != "s" && f[3] != "r" {
		return bad("action", "%q: want p (place), s (select and move) or r (remove)", f[3])
	}
	names := [13]string{"white on board", "white in hand", "black on board", "black in hand",
		"white to remove", "black to remove", "last mill square", "last mill square",
		"last mill square", "last mill square", "mill mask", "no-capture counter", "move number"}
	var n [13]int
	for i := range n {
		x, err := strconv.Atoi(f[4+i])
		if err != nil || x < 0 {
			return bad(names[i], "%q is not a count", f[4+i])
		}
		n[i] = x
	}
	for s := 0; s < 2; s++ {
		if on := bits.OnesCount32(p.Pieces[s]); n[2*s] != on {
			return bad(names[2*s], "%d, but the board has %d", n[2*s], on)
		}
		if n[2*s+1] > v.Pieces || n[2*s]+n[2*s+1] > v.Pieces {
			return bad(names[2*s+1], "%d in hand and %d on board is more than the %d pieces of %s", n[2*s+1], n[2*s], v.Pieces, v.Name)
		}
		p.Hand[s] = uint8(n[2*s+1])
	}
	if n[4+1-p.Side] != 0 {
		return bad(names[4+1-p.Side], "%d, but it is not that side's turn", n[4+1-p.Side])
	}
	if rem := n[4+p.Side]; rem > 0 {
		o := 1 - int(p.Side)
		if rem > bits.OnesCount32(v.removable(&p, o)) {
			return bad(names[4+p.Side], "%d, but only %d pieces may be removed", rem, bits.OnesCount32(v.removable(&p, o)))
		}
		p.Pending[o] = uint8(rem)
	}
	if (f[3] == "r") != p.Removing() {
		return bad("action", "%q does not agree with the counts to remove", f[3])
	}
	if n[11] > 60000 || n[12] > 30000 || n[12] < 1 {
		return bad("counters", "no-capture %d, move number %d out of range", n[11], n[12])
	}
	p.NoCapture = uint16(n[11])
	p.Ply = uint16(2*(n[12]-1) + int(p.Side))
	v.settle(&p, f[2] == "o")
	if r, _ := v.Outcome(&p); (f[2] == "o") != (r != Ongoing) {
		return bad("phase", "%q does not agree with the position (result: %s)", f[2], p.Result)
	}
	return p, nil
}

// settle fills in what a position read from a FEN derives: its hash and
// the result that Apply would have stored, as far as the FEN tells it
// (gameOver is FEN's phase "o").
func (v *Variant) settle(p *Position, gameOver bool) {
	p.Hash = v.hash(p)
	for s := 0; s < v.Players; s++ {
		switch {
		case v.LineWins && v.inMills(p.Pieces[s]) != 0:
			p.Result, p.Reason = WinFor(s), LineFormed
		case !v.LineWins && p.PiecesLeft(s) < 3:
			p.Result, p.Reason = WinFor(1-s), TooFewPieces
		}
	}
	if p.Result != Ongoing || !gameOver {
		return
	}
	switch {
	case v.BoardFullDraw && p.Occupied() == v.Board.All:
		p.Result, p.Reason = Draw, BoardFullDraw
	case v.NoCaptureDraw > 0 && int(p.NoCapture) >= v.NoCaptureDraw:
		p.Result, p.Reason = Draw, NoCaptureDraw
	case int(p.Ply) >= v.MaxPlies:
		p.Result, p.Reason = Draw, PlyCapDraw
	case v.EndgameDraw > 0 && p.PiecesLeft(0) == 3 && p.PiecesLeft(1) == 3:
		// FEN has no endgame counter: a finished game at 3 pieces each
		// that no other rule ended was drawn by it.
		p.Result, p.Reason = Draw, EndgameDraw
	}
}

// FormatPosition writes p in the project's own position string, which every
// board has and which holds every field of Position. The board comes first,
// ring by ring (ring 0 first, each from its top-left point clockwise; the
// 3x3 board is its border then its centre), O @ X # for seats 0..3 and *
// for empty; then key:value fields.
//
//	********/********/******** side:0 hand:9,9 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:0
func (v *Variant) FormatPosition(p *Position) string {
	var sb strings.Builder
	for pt := 0; pt < v.Board.Points; pt++ {
		if pt > 0 && pt%8 == 0 {
			sb.WriteByte('/')
		}
		if o := p.Owner(pt); o >= 0 {
			sb.WriteByte(SeatChars[o])
		} else {
			sb.WriteByte('*')
		}
	}
	list := func(xs [MaxSeats]uint8) string {
		parts := make([]string, v.Players)
		for s := range parts {
			parts[s] = strconv.Itoa(int(xs[s]))
		}
		return strings.Join(parts, ",")
	}
	rot := "-"
	if p.LastRotation >= 0 {
		rot = v.FormatAction(RotateRing(int(p.LastRotation)/2, p.LastRotation%2 == 0))
	}
	fmt.Fprintf(&sb, " side:%d hand:%s pending:%s out:%d rot:%s nocap:%d endgame:%d quiet:%d ply:%d",
		p.Side, list(p.Hand), list(p.Pending), p.Out, rot, p.NoCapture, p.Endgame, p.Quiet, p.Ply)
	if p.Result != Ongoing {
		fmt.Fprintf(&sb, " over:%d,%d", p.Result, p.Reason)
	}
	return sb.String()
}

// ParseFENOrPosition reads text as a FEN (the 24-point square boards) or,
// when it is not one, as a position string; the error names both readings.
func (v *Variant) ParseFENOrPosition(text string) (Position, error) {
	p, err := v.ParseFEN(text)
	if err == nil {
		return p, nil
	}
	p, err2 := v.ParsePosition(text)
	if err2 != nil {
		return Position{}, fmt.Errorf("not a FEN (%w) nor a position string (%w)", err, err2)
	}
	return p, nil
}

// ParsePosition reads the project's position string (see FormatPosition).
// An error names the token and says what is wrong.
func (v *Variant) ParsePosition(s string) (Position, error) {
	bad := func(tok, why string, args ...any) (Position, error) {
		return Position{}, fmt.Errorf("position %q: %w: token %q: %s", s, ErrSyntax, tok, fmt.Sprintf(why, args...))
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return bad("", "empty")
	}
	p := Position{LastRotation: NoRotation}
	board := strings.ReplaceAll(f[0], "/", "")
	if len(board) != v.Board.Points {
		return bad(f[0], "%d points, want %d for %s", len(board), v.Board.Points, v.Name)
	}
	for pt := 0; pt < len(board); pt++ {
		if board[pt] == '*' {
			continue
		}
		seat := strings.IndexByte(SeatChars, board[pt])
		if seat < 0 || seat >= v.Players {
			return bad(f[0], "%q is not a piece of a %d-player game", board[pt], v.Players)
		}
		p.Pieces[seat] |= 1 << pt
	}
	seen := map[string]bool{}
	for _, tok := range f[1:] {
		key, val, ok := strings.Cut(tok, ":")
		if !ok || seen[key] {
			return bad(tok, "want key:value, each key once")
		}
		seen[key] = true
		num := func(max int) (int, bool) {
			x, err := strconv.Atoi(val)
			return x, err == nil && x >= 0 && x <= max
		}
		seats := func(dst *[MaxSeats]uint8, max int) bool {
			parts := strings.Split(val, ",")
			if len(parts) != v.Players {
				return false
			}
			for i, part := range parts {
				x, err := strconv.Atoi(part)
				if err != nil || x < 0 || x > max {
					return false
				}
				dst[i] = uint8(x)
			}
			return true
		}
		switch key {
		case "side":
			x, ok := num(v.Players - 1)
			if !ok {
				return bad(tok, "want a seat 0..%d", v.Players-1)
			}
			p.Side = uint8(x)
		case "hand":
			if !seats(&p.Hand, v.Pieces) {
				return bad(tok, "want %d counts of 0..%d", v.Players, v.Pieces)
			}
		case "pending":
			if !seats(&p.Pending, v.Pieces) {
				return bad(tok, "want %d counts of removals", v.Players)
			}
		case "out":
			x, ok := num(1<<v.Players - 1)
			if !ok {
				return bad(tok, "want a bitmask of seats")
			}
			p.Out = uint8(x)
		case "rot":
			if val != "-" {
				a, err := v.ParseActionSyntax(val)
				if err != nil || a.Kind() != Rotate {
					return bad(tok, "want - or a rotation such as r1+")
				}
				p.LastRotation = int8(a.To()*2 + a.From())
			}
		case "nocap", "endgame", "quiet", "ply":
			x, ok := num(65535)
			if !ok {
				return bad(tok, "want a count")
			}
			*map[string]*uint16{"nocap": &p.NoCapture, "endgame": &p.Endgame, "quiet": &p.Quiet, "ply": &p.Ply}[key] = uint16(x)
		case "over":
			rs, ws, ok := strings.Cut(val, ",")
			r, err1 := strconv.Atoi(rs)
			w, err2 := strconv.Atoi(ws)
			if !ok || err1 != nil || err2 != nil || r < 1 || r > 1+v.Players || w < 1 || w >= len(reasonNames) {
				return bad(tok, "want result,reason codes")
			}
			p.Result, p.Reason = Result(r), Reason(w)
		default:
			return bad(tok, "unknown key (side, hand, pending, out, rot, nocap, endgame, quiet, ply, over)")
		}
	}
	if !seen["side"] || !seen["hand"] {
		return bad(s, "side: and hand: are required")
	}
	for o := 0; o < v.Players; o++ {
		if p.PiecesLeft(o) > v.Pieces {
			return bad(f[0], "seat %d has %d pieces, more than %d", o, p.PiecesLeft(o), v.Pieces)
		}
		if int(p.Pending[o]) > bits.OnesCount32(v.removable(&p, o)) || (p.Pending[o] > 0 && o == int(p.Side)) {
			return bad("pending:", "seat %d cannot have %d pieces removed", o, p.Pending[o])
		}
	}
	p.Hash = v.hash(&p)
	return p, nil
}
