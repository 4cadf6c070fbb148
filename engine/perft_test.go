package engine

import (
	"strings"
	"testing"
)

func mustLoad(t testing.TB, name string) *Variant {
	t.Helper()
	v, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The counts of an independent C++ engine.
func TestPerft_NineStart(t *testing.T) {
	v := mustLoad(t, "nine")
	want := []uint64{24, 552, 12144, 255024, 5100480}
	if !testing.Short() {
		want = append(want, 96223680)
	}
	p := v.Start()
	for d, n := range want {
		if got := v.Perft(&p, d+1, nil); got != n {
			t.Errorf("perft(%d) = %d, want %d", d+1, got, n)
		}
	}
}

func TestPerft_NineAfterPlacing(t *testing.T) {
	v := mustLoad(t, "nine")
	g := NewGame(v)
	for _, m := range strings.Fields("d6 f4 d2 b4 g4 d7 a4 d1 e4 d5 c4 d3 f6 b6 b2 f2 g7 g1") {
		if err := g.PlayString(m); err != nil {
			t.Fatal(err)
		}
	}
	want := []uint64{6, 36, 201, 1269, 7224, 46842, 280600}
	for d, n := range want {
		if got := v.Perft(&g.Pos, d+1, g.Hashes); got != n {
			t.Errorf("perft(%d) = %d, want %d", d+1, got, n)
		}
	}
}

func TestPerft_NineFEN(t *testing.T) {
	v := mustLoad(t, "nine")
	p, err := v.ParseFEN("**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20")
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{48, 577, 25530, 281978}
	for d, n := range want {
		if got := v.Perft(&p, d+1, nil); got != n {
			t.Errorf("perft(%d) = %d, want %d", d+1, got, n)
		}
	}
}

func TestNewGameAt_PlayAllThenWritePerft(t *testing.T) {
	v, err := Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGameAt(v, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.PlayAll("d6 d6"); err == nil || !strings.HasPrefix(err.Error(), "action 2: ") {
		t.Fatalf("d6 twice: %v, want an error naming action 2", err)
	}
	var b strings.Builder
	NewGame(v).WritePerft(&b, 2)
	if out := b.String(); !strings.Contains(out, "perft(1) = 24\nperft(2) = 552\n") {
		t.Errorf("perft of nine's start:\n%s", out)
	}
	b.Reset()
	NewGame(v).WritePerftDivide(&b, 1)
	if out := b.String(); strings.Count(out, ": 1\n") != 24 || !strings.Contains(out, "perft(1) = 24\n") {
		t.Errorf("divide of nine's start:\n%s", out)
	}
	if _, err := NewGameAt(v, "", "not a position"); err == nil {
		t.Error("a bad position string: no error")
	}
}
