package gen

import "testing"

func TestName_IsZeroPaddedAndParsesBack(t *testing.T) {
	for _, g := range []int{0, 7, 123456, 1234567} {
		if got, ok := Parse(Name(g)); !ok || got != g {
			t.Errorf("Parse(Name(%d) = %q) = %d, %v", g, Name(g), got, ok)
		}
	}
	if Name(7) != "gen-000007" {
		t.Errorf("Name(7) = %q; want gen-000007", Name(7))
	}
}

func TestParse_RefusesWhatNameNeverWrites(t *testing.T) {
	for _, name := range []string{"gen-7", "gen-0000007", "gen--00007", "gen-+00007", "gen-", "gen-00000x", "Gen-000007", "000007", ""} {
		if g, ok := Parse(name); ok {
			t.Errorf("Parse(%q) = %d; want not a generation", name, g)
		}
	}
}

func TestCut_ReadsTheGenerationAtTheStart(t *testing.T) {
	for _, c := range []struct {
		s, rest string
		g       int
		ok      bool
	}{
		{"gen-000003-random", "random", 3, true},
		{"gen-000012-alphabeta2", "alphabeta2", 12, true},
		{"gen-000012", "", 12, true},
		{"gen-12-random", "", 0, false},
		{"gate-gen-000012", "", 0, false},
	} {
		g, rest, ok := Cut(c.s)
		if g != c.g || rest != c.rest || ok != c.ok {
			t.Errorf("Cut(%q) = %d, %q, %v; want %d, %q, %v", c.s, g, rest, ok, c.g, c.rest, c.ok)
		}
	}
}
