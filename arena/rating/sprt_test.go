package rating

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simulate plays the test on independent games of a true Elo difference
// with the given share of draws, and returns the decision.
func simulate(t SPRT, rng *rand.Rand, elo, drawRatio float64, maxPairs int) (Decision, int) {
	s := expectedScore(elo)
	win := s - drawRatio/2
	loss := 1 - s - drawRatio/2
	game := func() float64 {
		switch u := rng.Float64(); {
		case u < win:
			return 1
		case u < win+loss:
			return 0
		}
		return 0.5
	}
	var p Penta
	for i := 0; i < maxPairs; i++ {
		p.Add(game() + game())
		if d, _ := t.Decide(p); d != Continue {
			return d, i + 1
		}
	}
	return Continue, maxPairs
}

func TestSPRT_DecidesAtTheGivenErrorRates(t *testing.T) {
	test := SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	const runs = 200
	tests := []struct {
		name      string
		elo, draw float64
		want      Decision
	}{
		{"H0 true, no draws", 0, 0, AcceptH0},
		{"H1 true, no draws", 30, 0, AcceptH1},
		{"H0 true, a third drawn", 0, 1.0 / 3, AcceptH0},
		{"H1 true, a third drawn", 30, 1.0 / 3, AcceptH1},
		{"H0 true, 90% draws", 0, 0.9, AcceptH0},
		{"H1 true, 90% draws", 30, 0.9, AcceptH1},
		{"much weaker, 90% draws", -40, 0.9, AcceptH0},
		{"much stronger", 120, 0.2, AcceptH1},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			wrong, pairs := 0, 0
			for r := 0; r < runs; r++ {
				d, n := simulate(test, rng, tc.elo, tc.draw, 50000)
				pairs += n
				if d != tc.want {
					wrong++
				}
			}
			rate := float64(wrong) / runs
			t.Logf("wrong %d of %d, mean %.0f pairs", wrong, runs, float64(pairs)/runs)
			// The nominal rate is 5%; with 200 runs, 10% is over 3
			// standard errors above it.
			if rate > 0.10 {
				t.Errorf("wrong decision in %.1f%% of runs, want at most 5%% (10%% with sampling error)", 100*rate)
			}
		})
	}
}

func TestSPRT_ManyDrawsDecideSooner(t *testing.T) {
	// Draws lower the variance of a pair's score, so the same Elo
	// difference is decided with fewer pairs.
	test := SPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}
	mean := func(draw float64) float64 {
		rng := rand.New(rand.NewPCG(11, 13))
		total := 0
		for r := 0; r < 100; r++ {
			_, n := simulate(test, rng, 30, draw, 50000)
			total += n
		}
		return float64(total) / 100
	}
	if few, many := mean(0), mean(0.9); !(many < few) {
		t.Errorf("mean pairs with 90%% draws %.0f, without %.0f: want fewer", many, few)
	}
}

func TestSPRT_LLRMatchesTheNormalApproximation(t *testing.T) {
	// For a small Elo window the GSPRT LLR is close to the normal
	// approximation N·(s1-s0)·(2m̂-s0-s1)/(2σ̂²) of pair scores.
	test := SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
	p := Penta{100, 400, 1000, 450, 110}
	n := float64(p.Pairs())
	mean, sq := 0.0, 0.0
	for k, c := range p {
		x := float64(k) / 4
		mean += float64(c) * x / n
		sq += float64(c) * x * x / n
	}
	v := sq - mean*mean
	s0, s1 := expectedScore(test.Elo0), expectedScore(test.Elo1)
	want := n * (s1 - s0) * (2*mean - s0 - s1) / (2 * v)
	if got := test.LLR(p); math.Abs(got-want) > 0.02*math.Abs(want)+0.01 {
		t.Errorf("LLR %.4f, want about %.4f", got, want)
	}
}

func TestSPRT_BadSettingsAreErrors(t *testing.T) {
	for _, s := range []SPRT{
		{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05},
		{Elo0: 0, Elo1: 5, Alpha: 0, Beta: 0.05},
		{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.7},
		{Elo0: 0, Elo1: math.NaN(), Alpha: 0.05, Beta: 0.05},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}
