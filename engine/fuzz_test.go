package engine

import "testing"

// The parsers never panic, and what they accept prints back and parses to
// the same value. Run with: go test -fuzz FuzzParseFEN ./engine

func FuzzParseFEN(f *testing.F) {
	f.Add("**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20")
	f.Add("********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1")
	v, err := Load("nine")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := v.ParseFEN(s)
		if err != nil {
			return
		}
		fen, err := v.FEN(&p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := v.ParseFEN(fen)
		if err != nil || q != p {
			t.Fatalf("%q -> %q does not parse back to the same position: %v", s, fen, err)
		}
	})
}

func FuzzParsePosition(f *testing.F) {
	f.Add("nine", "********/********/******** side:0 hand:9,9 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:0")
	f.Add("moulin-rouge", "O*******/*@******/******** side:1 hand:9,9 rot:r1+")
	f.Add("three", "O*@*****/O side:0 hand:1,2")
	f.Fuzz(func(t *testing.T, name, s string) {
		v, err := Load(name)
		if err != nil {
			return
		}
		p, err := v.ParsePosition(s)
		if err != nil {
			return
		}
		v.Legal(&p, nil)
		q, err := v.ParsePosition(v.FormatPosition(&p))
		if err != nil || q != p {
			t.Fatalf("%q does not print and parse back: %v", s, err)
		}
	})
}

func FuzzParseAction(f *testing.F) {
	f.Add("nine", "d6")
	f.Add("nine", "d6-d5")
	f.Add("nine", "xd7")
	f.Add("moulin-rouge", "r2-")
	f.Fuzz(func(t *testing.T, name, s string) {
		v, err := Load(name)
		if err != nil {
			return
		}
		p := v.Start()
		a, err := v.ParseActionSyntax(s)
		if err != nil {
			return
		}
		if b, err := v.ParseActionSyntax(v.FormatAction(a)); err != nil || b != a {
			t.Fatalf("%q -> %s does not parse back", s, v.FormatAction(a))
		}
		if v.IsLegal(&p, a) {
			v.Apply(&p, a)
		}
	})
}

func FuzzParseVariant(f *testing.F) {
	f.Add("name: x\nbase: nine\npieces: 11\n")
	f.Add("name: y\nboard:\n  kind: rings\nplayers: 3\npieces: 5\nmax_plies: 10\n")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVariant([]byte(s))
		if err != nil {
			return
		}
		p := v.Start()
		v.Perft(&p, 2, nil)
	})
}
