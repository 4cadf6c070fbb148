package engine

import (
	"math/bits"
	"strings"
	"testing"
)

// setup builds a position of v: pieces maps a seat to the points it holds,
// then hands, side and pending fill the rest.
func setup(t *testing.T, v *Variant, pieces map[int]string, side int, hands ...int) Position {
	t.Helper()
	p := Position{LastRotation: NoRotation, Side: uint8(side)}
	for s, names := range pieces {
		for _, n := range strings.Fields(names) {
			pt := v.Board.Point(n)
			if pt < 0 {
				t.Fatalf("no point %q", n)
			}
			p.Pieces[s] |= 1 << pt
		}
	}
	for s, h := range hands {
		p.Hand[s] = uint8(h)
	}
	p.Hash = v.hash(&p)
	return p
}

func play(t *testing.T, v *Variant, p Position, moves ...string) Position {
	t.Helper()
	for _, m := range moves {
		a, err := v.ParseAction(&p, m)
		if err != nil {
			t.Fatal(err)
		}
		p = v.Apply(&p, a)
	}
	return p
}

func legalStrings(v *Variant, p *Position) []string {
	var out []string
	for _, a := range v.Legal(p, nil) {
		out = append(out, v.FormatAction(a))
	}
	return out
}

func TestRemoval_IsAnActionOfTheSameSeat(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7", 1: "b6 d6 a1"}, 0, 7, 6)
	p = play(t, v, p, "g7")
	if p.Side != 0 || !p.Removing() {
		t.Fatalf("after forming a mill: side %d removing %v, want seat 0 to remove", p.Side, p.Removing())
	}
	for _, a := range v.Legal(&p, nil) {
		if a.Kind() != Remove {
			t.Fatalf("legal %s while a removal is due", v.FormatAction(a))
		}
	}
	p = play(t, v, p, "xa1")
	if p.Side != 1 || p.Removing() {
		t.Fatalf("after the removal: side %d removing %v, want seat 1 to move", p.Side, p.Removing())
	}
}

func TestRemoval_PiecesInMillsAreProtected(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7", 1: "b6 d6 f6 a1"}, 0, 7, 5)
	p = play(t, v, p, "g7")
	if got := strings.Join(legalStrings(v, &p), " "); got != "xa1" {
		t.Fatalf("removals %q, want only xa1 (b6 d6 f6 is a mill)", got)
	}
}

func TestRemoval_AllInMills_AnyPieceMayBeRemoved(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7", 1: "b6 d6 f6"}, 0, 7, 6)
	p = play(t, v, p, "g7")
	if got := len(v.Legal(&p, nil)); got != 3 {
		t.Fatalf("%d removals, want 3: every piece is in a mill, so any may go", got)
	}
}

func TestRemoval_FromMillsAlways_AnyPieceMayBeRemoved(t *testing.T) {
	spec := mustLoad(t, "nine").Spec
	spec.RemoveFromMillsAlways = true
	v, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := setup(t, v, map[int]string{0: "a7 d7", 1: "b6 d6 f6 a1"}, 0, 7, 5)
	p = play(t, v, p, "g7")
	if got := strings.Join(legalStrings(v, &p), " "); len(strings.Fields(got)) != 4 {
		t.Fatalf("removals %q, want all four: remove_from_mills_always lets the mill b6 d6 f6 go too", got)
	}
}

func TestRemoval_OnePerAction_EvenWithTwoMills(t *testing.T) {
	v := mustLoad(t, "nine")
	// g7 completes a7-d7-g7 and g7-g4-g1 at once.
	p := setup(t, v, map[int]string{0: "a7 d7 g4 g1", 1: "b6 b2 c3 c5"}, 0, 5, 5)
	p = play(t, v, p, "g7")
	if p.Pending[1] != 1 {
		t.Fatalf("pending %d, want 1 removal for two mills", p.Pending[1])
	}
	p = play(t, v, p, "xb6")
	if p.Side != 1 {
		t.Fatal("turn did not pass after the one removal")
	}
}

func TestRemoval_NothingToRemove_TurnPasses(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7"}, 0, 7, 9)
	p = play(t, v, p, "g7")
	if p.Removing() || p.Side != 1 {
		t.Fatal("a mill against an empty board should pass the turn")
	}
}

func TestFlying_AtThreePieces(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7 g4", 1: "b6 d6 f6 f4"}, 0, 0, 0)
	if n := len(v.Legal(&p, nil)); n != 3*17 {
		t.Fatalf("%d moves, want 3 pieces x 17 empty points", n)
	}
	vn := mustLoad(t, "nine-noflying")
	if n := len(vn.Legal(&p, nil)); n >= 3*17 {
		t.Fatalf("nine-noflying: %d moves: it flies", n)
	}
}

func TestFlying_NotWhileHoldingPieces(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7", 1: "b6"}, 0, 1, 3)
	if v.CanFly(&p, 0) {
		t.Fatal("a player with a piece in hand flies")
	}
}

func TestLoss_FewerThanThreePieces(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7 g4 g1", 1: "b6 d6 a1"}, 0, 0, 0)
	p = play(t, v, p, "g4-g7", "xa1")
	if r, why := v.Outcome(&p); r != WinFor(0) || why != TooFewPieces {
		t.Fatalf("outcome %s (%s), want seat 0 wins by too few pieces", r, why)
	}
	if len(v.Legal(&p, nil)) != 0 {
		t.Fatal("a finished game has legal actions")
	}
}

func TestLoss_NoLegalAction(t *testing.T) {
	v := mustLoad(t, "nine")
	// Black's pieces on a7 d7 g7 a4: blocked by white on b6 d6 f6 g4 a1.
	p := setup(t, v, map[int]string{0: "d6 f6 g4 a1 b4 b6", 1: "a7 d7 g7 a4"}, 1, 0, 0)
	if n := len(v.Legal(&p, nil)); n != 0 {
		t.Fatalf("black has %d moves, want 0: %v", n, legalStrings(v, &p))
	}
	if r, why := v.Outcome(&p); r != WinFor(0) || why != NoLegalAction {
		t.Fatalf("outcome %s (%s), want a win for seat 0 by no legal action", r, why)
	}
}

func TestDraw_NoCapture(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7 g4 g1", 1: "b6 d6 f2 b2"}, 0, 0, 0)
	p.NoCapture = uint16(v.NoCaptureDraw - 1)
	p = play(t, v, p, "g4-f4")
	if p.Result != Draw || p.Reason != NoCaptureDraw {
		t.Fatalf("result %s (%s), want a no-capture draw", p.Result, p.Reason)
	}
}

func TestDraw_NoCapture_RemovalResetsCounter(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7 g4 a1", 1: "b6 d6 f2 b2"}, 0, 0, 0)
	p.NoCapture = uint16(v.NoCaptureDraw - 1)
	p = play(t, v, p, "g4-g7", "xf2")
	if p.Result != Ongoing || p.NoCapture != 0 {
		t.Fatalf("result %s, no-capture %d: a removal should reset the counter", p.Result, p.NoCapture)
	}
}

func TestDraw_Repetition(t *testing.T) {
	v := mustLoad(t, "nine")
	g := NewGameFrom(v, setup(t, v, map[int]string{0: "a7 d7 g4 a1", 1: "b6 d6 f2 b2"}, 0, 0, 0))
	cycle := []string{"g4-g1", "f2-f4", "g1-g4", "f4-f2"}
	for i := 0; i < 2; i++ {
		for _, m := range cycle {
			if r, _ := g.Outcome(); r != Ongoing {
				t.Fatalf("game over before the third occurrence, at %s", m)
			}
			if err := g.PlayString(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r, why := g.Outcome(); r != Draw || why != RepetitionDraw {
		t.Fatalf("outcome %s (%s) at the third occurrence, want a repetition draw", r, why)
	}
}

func TestDraw_Endgame(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7 g4", 1: "b6 d6 f2"}, 0, 0, 0)
	moves := []string{"g4-g1", "f2-f4", "g1-g4", "f4-f2"}
	for i := 0; i < v.EndgameDraw; i++ {
		if p.Result != Ongoing {
			t.Fatalf("game over after %d plies, want %d", i, v.EndgameDraw)
		}
		p = play(t, v, p, moves[i%4])
	}
	if p.Result != Draw || p.Reason != EndgameDraw {
		t.Fatalf("result %s (%s), want an endgame draw after %d plies at 3 pieces each", p.Result, p.Reason, v.EndgameDraw)
	}
}

func TestDraw_PlyCap(t *testing.T) {
	v := mustLoad(t, "nine")
	p := setup(t, v, map[int]string{0: "a7 d7 g4 a1", 1: "b6 d6 f2 b2"}, 0, 0, 0)
	p.Ply = uint16(v.MaxPlies - 1)
	p = play(t, v, p, "g4-g1")
	if p.Result != Draw || p.Reason != PlyCapDraw {
		t.Fatalf("result %s (%s), want a draw at max_plies", p.Result, p.Reason)
	}
}

func TestDraw_BoardFull_TwelvePieceVariants(t *testing.T) {
	for _, name := range []string{"twelve", "morabaraba"} {
		v := mustLoad(t, name)
		// Fill the board with no mill: alternate colours so no line is one colour.
		p := v.Start()
		order := fillWithoutMills(t, v)
		for _, pt := range order {
			if p.Result != Ongoing {
				t.Fatalf("%s: over before the board is full", name)
			}
			p = v.Apply(&p, PlaceAt(pt))
			if p.Removing() {
				t.Fatalf("%s: fill order formed a mill", name)
			}
		}
		if p.Result != Draw || p.Reason != BoardFullDraw {
			t.Fatalf("%s: result %s (%s), want a board-full draw", name, p.Result, p.Reason)
		}
	}
}

// fillWithoutMills finds an order of placements, alternating seats, that
// fills the board with no line of one colour (by search over colourings).
func fillWithoutMills(t *testing.T, v *Variant) []int {
	n := v.Board.Points
	var colour [MaxPoints]int
	var rec func(pt, c0, c1 int) bool
	rec = func(pt, c0, c1 int) bool {
		if pt == n {
			return true
		}
		for c := 0; c < 2; c++ {
			if (c == 0 && c0 == n/2) || (c == 1 && c1 == n/2) {
				continue
			}
			colour[pt] = c
			ok := true
			for _, l := range v.Board.Lines {
				if l>>pt&1 == 0 || l>>(pt+1) != 0 {
					continue // only lines completed at pt
				}
				same := true
				for m := l; m != 0; m &= m - 1 {
					same = same && colour[bits.TrailingZeros32(m)] == c
				}
				ok = ok && !same
			}
			if ok && rec(pt+1, c0+1-c, c1+c) {
				return true
			}
		}
		return false
	}
	if !rec(0, 0, 0) {
		t.Fatal("no mill-free colouring")
	}
	var seat [2][]int
	for pt := 0; pt < n; pt++ {
		seat[colour[pt]] = append(seat[colour[pt]], pt)
	}
	var order []int
	for i := range seat[0] {
		order = append(order, seat[0][i], seat[1][i])
	}
	return order
}

func TestTwelvePlacing_FirstMillWins(t *testing.T) {
	v := mustLoad(t, "twelve-placing")
	p := play(t, v, v.Start(), "a7", "b6", "d7", "d6", "g7")
	if r, why := v.Outcome(&p); r != WinFor(0) || why != LineFormed {
		t.Fatalf("outcome %s (%s), want seat 0 wins by its first mill", r, why)
	}
}

func TestTwelvePlacing_FullBoardDraws(t *testing.T) {
	v := mustLoad(t, "twelve-placing")
	p := v.Start()
	for _, pt := range fillWithoutMills(t, v) {
		p = v.Apply(&p, PlaceAt(pt))
	}
	if p.Result != Draw || p.Reason != BoardFullDraw {
		t.Fatalf("result %s (%s), want a board-full draw", p.Result, p.Reason)
	}
}

func TestThree_LineWinsWhilePlacing(t *testing.T) {
	v := mustLoad(t, "three")
	p := play(t, v, v.Start(), "a1", "a2", "b2", "a3", "c3")
	if r, why := v.Outcome(&p); r != WinFor(0) || why != LineFormed {
		t.Fatalf("outcome %s (%s), want seat 0 wins on the diagonal", r, why)
	}
	vn := mustLoad(t, "three-nodiagonal")
	p = play(t, vn, vn.Start(), "a1", "a2", "b2", "a3", "c3")
	if p.Result != Ongoing {
		t.Fatal("three-nodiagonal: a diagonal won")
	}
}

func TestThree_LineWinsWhileMoving(t *testing.T) {
	v := mustLoad(t, "three")
	p := setup(t, v, map[int]string{0: "a1 b1 c2", 1: "a3 b2 a2"}, 0, 0, 0)
	p = play(t, v, p, "c2-c1")
	if r, why := v.Outcome(&p); r != WinFor(0) || why != LineFormed {
		t.Fatalf("outcome %s (%s), want seat 0 wins by moving into a line", r, why)
	}
}

func TestThree_Adjacency(t *testing.T) {
	cases := []struct {
		variant string
		from    string
		want    int // neighbours
	}{
		{"three", "b2", 8}, {"three", "a1", 3}, {"three", "b1", 3},
		{"three-nodiagonal", "b2", 4}, {"three-nodiagonal", "a1", 2},
		{"three-cross", "b1", 5}, {"three-cross", "b2", 4},
	}
	for _, c := range cases {
		v := mustLoad(t, c.variant)
		if got := bits.OnesCount32(v.Board.Adjacent[v.Board.Point(c.from)]); got != c.want {
			t.Errorf("%s: %s has %d neighbours, want %d", c.variant, c.from, got, c.want)
		}
	}
}

func TestThree_NoLegalMoveLoses(t *testing.T) {
	v := mustLoad(t, "three-nodiagonal")
	// Seat 1 on a1 a2 b1 is boxed in by seat 0 on a3 b2 c1 (no line without diagonals).
	p := setup(t, v, map[int]string{0: "a3 b2 c1", 1: "a1 a2 b1"}, 1, 0, 0)
	if n := len(v.Legal(&p, nil)); n != 0 {
		t.Fatalf("seat 1 has %d moves, want 0", n)
	}
	if r, why := v.Outcome(&p); r != WinFor(0) || why != NoLegalAction {
		t.Fatalf("outcome %s (%s), want a win for seat 0", r, why)
	}
}

func TestBoards_Shape(t *testing.T) {
	cases := []struct {
		variant      string
		points, syms int
		lines        int
	}{
		{"nine", 24, 16, 16}, {"nine-diagonal", 24, 16, 20}, {"corner-spokes", 24, 16, 16},
		{"four-square", 32, 16, 24}, {"three", 9, 8, 8}, {"three-nodiagonal", 9, 8, 6},
		{"moulin-rouge", 24, 32, 8},
	}
	for _, c := range cases {
		v := mustLoad(t, c.variant)
		if v.Board.Points != c.points || v.NumSymmetries() != c.syms || len(v.Board.Lines) != c.lines {
			t.Errorf("%s: %d points %d symmetries %d lines, want %d %d %d", c.variant,
				v.Board.Points, v.NumSymmetries(), len(v.Board.Lines), c.points, c.syms, c.lines)
		}
	}
}

func TestCoordinates_RulesExamples(t *testing.T) {
	v := mustLoad(t, "nine")
	for pt, name := range map[int]string{0: "a7", 1: "d7", 3: "g4", 16: "c5"} {
		if got := v.Board.Name(pt); got != name {
			t.Errorf("point %d is %s, want %s (docs/rules.md, \"Point numbering\")", pt, got, name)
		}
	}
	if got := mustLoad(t, "four-square").Board.Name(0); got != "a9" {
		t.Errorf("four-square point 0 is %s, want a9", got)
	}
}

// Moulin Rouge (docs/rules.md, "Moulin Rouge").

func TestRotation_RingWithoutOwnPieceIsIllegal(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	p := setup(t, v, map[int]string{0: "a1", 1: "a2"}, 0, 9, 9)
	for _, s := range legalStrings(v, &p) {
		if strings.HasPrefix(s, "r2") || strings.HasPrefix(s, "r3") {
			t.Fatalf("legal %s: seat 0 has no piece on that ring", s)
		}
	}
	if _, err := v.ParseAction(&p, "r1+"); err != nil {
		t.Fatal(err)
	}
}

func TestRotation_NoImmediateUndo(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	p := setup(t, v, map[int]string{0: "a1", 1: "b1"}, 0, 9, 9)
	p = play(t, v, p, "r1+")
	if _, err := v.ParseAction(&p, "r1-"); err == nil {
		t.Fatal("the next player undid the rotation")
	}
	if _, err := v.ParseAction(&p, "r1+"); err != nil {
		t.Fatalf("same direction should stay legal: %v", err)
	}
	p = play(t, v, p, "d3")
	if _, err := v.ParseAction(&p, "r1-"); err != nil {
		t.Fatalf("a turn later the rotation may be undone: %v", err)
	}
}

func TestRotation_CarriesPieces(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	p := setup(t, v, map[int]string{0: "a1 h1", 1: "b1 b2"}, 0, 8, 8)
	p = play(t, v, p, "r1+")
	want := setup(t, v, map[int]string{0: "b1 a1", 1: "c1 b2"}, 1, 8, 8)
	if p.Pieces != want.Pieces {
		t.Fatalf("after r1+: %s", v.FormatPosition(&p))
	}
}

func TestRotation_FormsSeveralOwnMills_CapturesEachTimes(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	// Seat 0 holds spokes a and b on rings 2 and 3, and h1 a1 on ring 1:
	// r1+ brings them to a1 b1, forming two mills.
	p := setup(t, v, map[int]string{0: "a2 a3 b2 b3 h1 a1", 1: "d1 e1 f2 g3"}, 0, 4, 6)
	p = play(t, v, p, "r1+")
	if p.Side != 0 || p.Pending[1] != 2 {
		t.Fatalf("pending %v side %d, want two captures from seat 1", p.Pending, p.Side)
	}
	// d1 and e1 turned with the ring to e1 and f1.
	p = play(t, v, p, "xe1")
	if p.Side != 0 || p.Pending[1] != 1 {
		t.Fatalf("after one capture: pending %v", p.Pending)
	}
	p = play(t, v, p, "xf1")
	if p.Side != 1 || p.Removing() {
		t.Fatal("turn did not pass after both captures")
	}
}

func TestRotation_OpponentMillsProtectAndCaptureNothing(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	// Seat 1 has c2 c3 and b1: r1+ makes spoke c seat 1's mill, and seat 0's
	// own mill on spoke a (h1 -> a1).
	p := setup(t, v, map[int]string{0: "a2 a3 h1", 1: "c2 c3 b1 e1"}, 0, 7, 6)
	p = play(t, v, p, "r1+")
	if p.Pending[1] != 1 {
		t.Fatalf("pending %v, want one capture for seat 0's one mill", p.Pending)
	}
	// e1 turned to f1; c1 c2 c3 is seat 1's mill now, so protected.
	if got := strings.Join(legalStrings(v, &p), " "); got != "xf1" {
		t.Fatalf("removals %q, want only xf1 (spoke c is protected)", got)
	}
}

func TestMoulinRouge_MillPiecesNeverCaptured(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	p := setup(t, v, map[int]string{0: "a1 a2", 1: "c1 c2 c3"}, 0, 8, 7)
	p = play(t, v, p, "a3")
	if p.Removing() || p.Side != 1 {
		t.Fatal("with every opponent piece in a mill the capture should be forfeited")
	}
}

func TestMoulinRouge_PlacingIsPerPlayer(t *testing.T) {
	v := mustLoad(t, "moulin-rouge")
	p := setup(t, v, map[int]string{0: "a1 c1 e1", 1: "b2"}, 0, 0, 9)
	for _, a := range v.Legal(&p, nil) {
		if a.Kind() == Place {
			t.Fatal("seat 0 has no pieces in hand but may place")
		}
	}
	p.Side = 1
	p.Hash = v.hash(&p)
	for _, a := range v.Legal(&p, nil) {
		if a.Kind() == Move {
			t.Fatal("seat 1 still holds pieces but may move")
		}
	}
}

func TestPro_NoActionFormsAnOpponentMill(t *testing.T) {
	v := mustLoad(t, "moulin-rouge-pro")
	p := setup(t, v, map[int]string{0: "d1 a3", 1: "c1 d2 d3"}, 0, 8, 7)
	// r1+ would carry c1 to d1's spoke... c1 -> d1 makes seat 1's spoke d.
	if _, err := v.ParseAction(&p, "r1+"); err == nil {
		t.Fatal("Pro: a rotation forming seat 1's mill is legal")
	}
	vb := mustLoad(t, "moulin-rouge")
	if _, err := vb.ParseAction(&p, "r1+"); err != nil {
		t.Fatalf("the basic game allows it: %v", err)
	}
}

func TestMultiplayer_EliminatedPiecesStayAndTurnsSkip(t *testing.T) {
	v := mustLoad(t, "moulin-rouge-3")
	p := setup(t, v, map[int]string{0: "a2 a3", 1: "c1 c2 e3", 2: "g1 g2 h3"}, 0, 1, 0, 0)
	p = play(t, v, p, "a1")
	if p.Pending[1] != 1 || p.Pending[2] != 1 {
		t.Fatalf("pending %v: a mill captures one from each opponent", p.Pending)
	}
	p = play(t, v, p, "xc1", "xg1")
	if p.Out != 1<<1|1<<2 {
		// both fell to 2 pieces
		t.Fatalf("out %b, want seats 1 and 2 eliminated", p.Out)
	}
	if r, why := v.Outcome(&p); r != WinFor(0) || why != LastStanding {
		t.Fatalf("outcome %s (%s), want seat 0 last standing", r, why)
	}
}

func TestMultiplayer_EliminatedSeatIsSkipped(t *testing.T) {
	v := mustLoad(t, "moulin-rouge-3")
	p := setup(t, v, map[int]string{0: "a2 a3 e1", 1: "c1 c2 e3", 2: "g1 g2 h3 b3"}, 0, 1, 0, 0)
	p = play(t, v, p, "a1", "xc1")
	if p.Out != 1<<1 {
		t.Fatalf("out %b, want seat 1 eliminated", p.Out)
	}
	p = play(t, v, p, "xg1")
	if p.Side != 2 {
		t.Fatalf("side %d, want seat 2 (seat 1 is out)", p.Side)
	}
	if p.PiecesLeft(1) != 2 || p.Pieces[1] == 0 {
		t.Fatal("an eliminated seat's pieces should stay on the board")
	}
	p = play(t, v, p, "g2-g1")
	if p.Side != 0 {
		t.Fatalf("side %d after seat 2, want seat 0", p.Side)
	}
}
