package rating

import "math"

// PentaElo is the Elo difference of a mean score and its 95% interval from
// the variance of the pair scores in p, in Wilson's form: the score
// interval is Wilson's score interval with the pairs' variance in place of
// a coin's, so that it is never of zero width, even when every pair scored
// alike (all drawn, or every pair split: a variance of 0). A score of 0 or
// 1 has no finite Elo: the Elo is taken a quarter pair from the edge, the
// bound towards the middle is the rule of three's (with no pair won, the
// 95% upper bound of the score is 3/pairs), and it is said to be clamped.
func PentaElo(p Penta, score float64) (elo, low, high float64, clamped bool) {
	n := float64(p.Pairs())
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), false
	}
	var mean, sq float64
	for k, c := range p {
		x := float64(k) / 4 // the pair's mean score per game
		mean += float64(c) * x
		sq += float64(c) * x * x
	}
	mean /= n
	variance := max(sq/n-mean*mean, 0)
	const z = 1.96
	center := (score + z*z/(2*n)) / (1 + z*z/n)
	half := z / (1 + z*z/n) * math.Sqrt(variance/n+z*z/(4*n*n))
	edge := 1 / (4 * n)
	clamp := func(s float64) float64 { return min(max(s, edge), 1-edge) }
	switch {
	case score < edge:
		elo = EloOfScore(edge)
		return elo, elo, EloOfScore(clamp(min(3/n, 0.5))), true
	case score > 1-edge:
		elo = EloOfScore(1 - edge)
		return elo, EloOfScore(clamp(max(1-3/n, 0.5))), elo, true
	}
	return EloOfScore(score), EloOfScore(clamp(center - half)), EloOfScore(clamp(center + half)), false
}

// EloOfScore is the Elo difference whose expected score per game is s,
// 0 < s < 1: the inverse of 1/(1+10^(-d/400)).
func EloOfScore(s float64) float64 { return -400*math.Log10(1/s-1) + 0 } // + 0: no "-0" at an even score
