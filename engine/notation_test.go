package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestNotation_Actions(t *testing.T) {
	cases := []struct {
		variant, text string
		want          Action
	}{
		{"nine", "d6", PlaceAt(9)},
		{"nine", "d6-d5", MoveFromTo(9, 17)},
		{"nine", "xd7", RemoveAt(1)},
		{"nine", "A7", PlaceAt(0)},
		{"three", "b2", PlaceAt(8)},
		{"three", "a1-b2", MoveFromTo(6, 8)},
		{"moulin-rouge", "g1", PlaceAt(6)},
		{"moulin-rouge", "g1-g2", MoveFromTo(6, 14)},
		{"moulin-rouge", "xd2", RemoveAt(11)},
		{"moulin-rouge", "r1+", RotateRing(0, true)},
		{"moulin-rouge", "r3-", RotateRing(2, false)},
		{"four-square", "e9", PlaceAt(1)},
	}
	for _, c := range cases {
		v := mustLoad(t, c.variant)
		a, err := v.ParseActionSyntax(c.text)
		if err != nil || a != c.want {
			t.Errorf("%s: %q parses as %v (%v), want %s", c.variant, c.text, v.FormatAction(a), err, v.FormatAction(c.want))
		}
		if got := v.FormatAction(c.want); got != strings.ToLower(c.text) {
			t.Errorf("%s: %s prints as %q, want %q", c.variant, v.FormatAction(c.want), got, strings.ToLower(c.text))
		}
	}
}

func TestNotation_BadActionsNameTheTokenAndWhy(t *testing.T) {
	v := mustLoad(t, "nine")
	p := v.Start()
	cases := []struct{ text, want string }{
		{"z9", `no point "z9"`},
		{"", "empty"},
		{"d6-", `no point ""`},
		{"r1+", `no point "r1+"`},
		{"d6-d5", "pieces are still in hand"},
		{"xd7", "no mill was formed"},
	}
	for _, c := range cases {
		_, err := v.ParseAction(&p, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%q: error %v, want one naming the token and saying %q", c.text, err, c.want)
		}
	}
	p = play(t, v, p, "d6")
	if _, err := v.ParseAction(&p, "d6"); !errors.Is(err, ErrIllegal) || !strings.Contains(err.Error(), "occupied") {
		t.Errorf("placing on an occupied point: %v", err)
	}
}

func TestFEN_ReadsTheIssuePosition(t *testing.T) {
	v := mustLoad(t, "nine")
	fen := "**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20"
	p, err := v.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		point string
		seat  int
	}{{"g7", 0}, {"d1", 0}, {"a1", 0}, {"e4", 1}, {"c3", 1}, {"d6", 1}, {"f6", 1}, {"b4", 1}, {"d5", -1}} {
		if got := p.Owner(v.Board.Point(c.point)); got != c.seat {
			t.Errorf("%s holds seat %d, want %d", c.point, got, c.seat)
		}
	}
	if back, _ := v.FEN(&p); back != fen {
		t.Errorf("prints back as %q", back)
	}
}

func TestFEN_BadInputNamesTheField(t *testing.T) {
	v := mustLoad(t, "nine")
	cases := []struct{ fen, want string }{
		{"", "want 17"},
		{"**@**@**/@@****@*/*O**OO** x m s 3 0 5 0 0 0 0 0 0 0 0 0 20", "side"},
		{"**@**@**/@@****@*/*O**OO*Z w m s 3 0 5 0 0 0 0 0 0 0 0 0 20", "board"},
		{"**@**@**/@@****@* w m s 3 0 5 0 0 0 0 0 0 0 0 0 20", "2 rings"},
		{"**@**@**/@@****@*/*O**OO** w m s 4 0 5 0 0 0 0 0 0 0 0 0 20", "white on board"},
		{"**@**@**/@@****@*/*O**OO** w m s 3 9 5 0 0 0 0 0 0 0 0 0 20", "white in hand"},
		{"**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 -1 20", "no-capture counter"},
		{"**@**@**/@@****@*/*O**OO** w m r 3 0 5 0 0 0 0 0 0 0 0 0 20", "action"},
		{"**@**@**/@@****@*/*O**OO** w o s 3 0 5 0 0 0 0 0 0 0 0 0 20", "phase"},
	}
	for _, c := range cases {
		_, err := v.ParseFEN(c.fen)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FEN %q: error %v, want one naming %q", c.fen, err, c.want)
		}
	}
	if _, err := mustLoad(t, "moulin-rouge").ParseFEN("x"); err == nil {
		t.Error("a FEN for the ring board was accepted")
	}
}

func TestPosition_BadInputNamesTheToken(t *testing.T) {
	v := mustLoad(t, "nine")
	cases := []struct{ text, want string }{
		{"", "empty"},
		{"********/********/******* side:0 hand:9,9", "23 points"},
		{"********/********/******** side:2 hand:9,9", "side:2"},
		{"********/********/******** side:0 hand:9", "hand:9"},
		{"********/********/******** side:0 hand:9,9 colour:red", "unknown key"},
		{"X*******/********/******** side:0 hand:9,9", "not a piece"},
		{"********/********/******** hand:9,9", "required"},
	}
	for _, c := range cases {
		_, err := v.ParsePosition(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.text, err, c.want)
		}
	}
}

func TestVariants_UnknownNameIsAnError(t *testing.T) {
	_, err := Load("ninety")
	if !errors.Is(err, ErrUnknownVariant) || !strings.Contains(err.Error(), "ninety") || !strings.Contains(err.Error(), "nine") {
		t.Fatalf("error %v, want ErrUnknownVariant naming the input and the known ones", err)
	}
}

func TestVariants_UserFileNeedsNoCode(t *testing.T) {
	v, err := ParseVariant([]byte("name: eleven\nbase: nine\npieces: 11\nboard:\n  kind: square\n  squares: 4\n  spokes: both\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Pieces != 11 || v.Board.Points != 32 || v.FlyAt != 3 {
		t.Fatalf("got %d pieces, %d points, fly at %d", v.Pieces, v.Board.Points, v.FlyAt)
	}
	p := v.Start()
	if n := v.Perft(&p, 2, nil); n != 32*31 {
		t.Fatalf("perft(2) = %d, want %d", n, 32*31)
	}
}

func TestVariants_BadFilesNameTheProblem(t *testing.T) {
	cases := []struct{ text, want string }{
		{"name: x\nbase: nine\ncolour: red\n", "colour"},
		{"name: x\nbase: nine\npieces: 2\n", "pieces 2"},
		{"name: x\nbase: nine\nplayers: 3\n", "players 3"},
		{"name: x\nbase: nine\nboard:\n  kind: hexagon\n", "hexagon"},
		{"name: x\nbase: nine\nboard:\n  kind: square\n  squares: 5\n  spokes: both\n", "squares 5"},
		{"name: x\nbase: ninety\n", "ninety"},
		{"name: [\n", "variant file"},
	}
	for _, c := range cases {
		_, err := ParseVariant([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %q", c.text, err, c.want)
		}
	}
}

func TestVariants_EveryNamedVariantLoads(t *testing.T) {
	names := Names()
	if len(names) != 15 {
		t.Fatalf("%d named variants, want the 15 of docs/rules.md, \"The named variants\": %v", len(names), names)
	}
	for _, n := range names {
		if v, err := Load(n); err != nil || v.Name != n {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestParseFENOrPosition_ReadsEitherAndNamesBothOnError(t *testing.T) {
	v, err := Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	start := v.Start()
	fen, err := v.FEN(&start)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{fen, v.FormatPosition(&start)} {
		p, err := v.ParseFENOrPosition(text)
		if err != nil || p.Hash != start.Hash {
			t.Errorf("%q: %v, hash %x, want the start (%x)", text, err, p.Hash, start.Hash)
		}
	}
	if _, err := v.ParseFENOrPosition("nonsense"); err == nil || !strings.Contains(err.Error(), "not a FEN") || !strings.Contains(err.Error(), "position string") {
		t.Errorf("nonsense: %v, want an error naming both readings", err)
	}
}
