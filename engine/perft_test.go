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
