package rating

import "testing"

func TestPentaElo_EveryScoreHasAnIntervalOfSomeWidth(t *testing.T) {
	cases := []struct {
		name  string
		p     Penta
		score float64
	}{
		{"every pair split (a variance of 0)", Penta{0, 0, 50, 0, 0}, 0.5},
		{"every pair drawn twice over, 3 pairs", Penta{0, 0, 3, 0, 0}, 0.5},
		{"every pair three quarters", Penta{0, 0, 0, 40, 0}, 0.75},
		{"a usual spread", Penta{5, 10, 20, 10, 5}, 0.5},
	}
	for _, c := range cases {
		elo, low, high, clamped := PentaElo(c.p, c.score)
		if clamped || !(low < elo && elo < high) || high-low < 1 {
			t.Errorf("%s: Elo %+.1f [%+.1f, %+.1f] (clamped %v): want an interval around it at least 1 Elo wide", c.name, elo, low, high, clamped)
		}
	}
	// More pairs alike narrow the interval.
	_, l3, h3, _ := PentaElo(Penta{0, 0, 3, 0, 0}, 0.5)
	_, l50, h50, _ := PentaElo(Penta{0, 0, 50, 0, 0}, 0.5)
	if h50-l50 >= h3-l3 {
		t.Errorf("50 split pairs: [%+.0f, %+.0f], not narrower than 3's [%+.0f, %+.0f]", l50, h50, l3, h3)
	}
}
