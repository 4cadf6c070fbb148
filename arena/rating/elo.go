package rating

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Game is one finished game as the fit reads it: the players by seat and
// where each finished.
type Game struct {
	Players []string // the players by seat, seat 0 first: 2, 3 or 4 of them
	Places  []int    // each seat's finishing place from 1, seats that ended together sharing one: with two seats 1 and 2, or 1 and 1 in a draw
	Winner  int      // the seat alone in first place, -1 when none is (a draw)
}

// score is what seat scores in g against the other seats, 0..1: the
// share of them it finished ahead of, a tie counting half.
func (g *Game) score(seat int) float64 {
	s := 0.0
	for o, p := range g.Places {
		switch me := g.Places[seat]; {
		case o == seat:
		case me < p:
			s++
		case me == p:
			s += 0.5
		}
	}
	return s / float64(len(g.Places)-1)
}

// EloSettings are the knobs of the rating fit.
type EloSettings struct {
	Anchor       string  // the player rated 0; "" means the first player seen
	VirtualDraws float64 // draws added to every pair of players that met, in games; keeps a perfect score finite (0 turns it off)

	// DropUnlinked leaves out the players no games link, through
	// opponents, to the anchor (all of them when the anchor played none)
	// instead of failing with ErrDisconnected: a part of a run's games
	// (its newest) may hold players whose other games are left out.
	DropUnlinked bool
}

// DefaultEloSettings add one virtual draw per pair of opponents: a player who won all of n games against another
// is rated as if it had scored n+0.5 of n+1, which is finite, and a few
// hundred real games swamp it.
func DefaultEloSettings() EloSettings { return EloSettings{VirtualDraws: 1} }

// Rating is one player's results and fitted Elo.
type Rating struct {
	Name                string  // the player
	Games               int     // games played (virtual draws not counted); with 3-4 seats, seats held (copies of a player count once each)
	Wins, Draws, Losses int     // its results; with 3-4 seats a win is first place alone, a draw first place shared
	Score               float64 // points: a win 1, a draw 0.5; with 3-4 seats the share of the other seats finished ahead of, a tie half
	Elo                 float64 // its rating, the anchor's being 0
	Low, High           float64 // the 95% interval of Elo, relative to the anchor
}

// eloK converts Elo to the natural scale of the logistic: a difference d
// gives an expected score 1/(1+10^(-d/400)) = 1/(1+exp(-eloK*d)).
const eloK = math.Ln10 / 400

// z95 is the two-sided 95% quantile of the normal distribution.
const z95 = 1.959963984540054

// ErrDisconnected is wrapped by the error for a player whose games do not
// link it, through opponents, to the anchor: its rating is undetermined.
var ErrDisconnected = errors.New("no games link the player to the anchor")

// FitElo rates every player of games by maximum likelihood under the
// Bradley-Terry (logistic Elo) model, a draw counting as half a win: the
// expected score of i against j is 1/(1+10^((Elo_j-Elo_i)/400)). It solves
// the likelihood equations by Newton's method with step halving (the
// log-likelihood is concave, so this converges from anywhere). The 95%
// intervals are ±1.96 standard errors from the inverse of the observed
// Fisher information with the anchor held at 0; since a draw has less
// variance than the binomial model assumes, they are conservative when
// draws are many. Ratings come back best first.
//
// A game of N = 3 or 4 seats counts as its N(N-1)/2 pairwise results over
// the finishing order (Game.Places): a seat placed ahead of another beat
// it, seats sharing a place drew. Each pairwise result weighs 1/(N-1) of a
// game, so a seat's N-1 results in one game weigh one game together: the
// pairs of one game are not independent, and counting each as a whole game
// would make the intervals too narrow by about sqrt(N-1). Seats of the same
// player (the candidate against copies of the best) say nothing about
// ratings and are skipped. With two seats this is exactly the fit above.
// A two-seat game of a player against itself is an error.
//
// Pairwise Bradley-Terry, not Plackett-Luce: Plackett-Luce models a strict
// finishing order, but ours has ties (the seats still in at a draw, the
// seats knocked out by the same capture), which it would need an extension
// for (Davidson-Luce) with a tie parameter to fit; pairwise Bradley-Terry
// takes a tie as the half point it is in two-player games, gives the same
// ratings as before for two-player games, and puts multi-player results on
// the same Elo scale as the gate's score (the mean of the same pairwise
// results, see Rounds), so the gate's SPRT bounds mean the same Elo.
func FitElo(games []Game, set EloSettings) ([]Rating, error) {
	rs, _, err := fitElo(games, set)
	return rs, err
}

// fitElo is FitElo, also saying how many Newton steps it took.
func fitElo(games []Game, set EloSettings) ([]Rating, int, error) {
	if set.VirtualDraws < 0 || math.IsNaN(set.VirtualDraws) {
		return nil, 0, fmt.Errorf("elo: virtual draws %v: want 0 or more", set.VirtualDraws)
	}
	index := map[string]int{}
	var ratings []Rating
	player := func(name string) int {
		i, ok := index[name]
		if !ok {
			i = len(ratings)
			index[name] = i
			ratings = append(ratings, Rating{Name: name})
		}
		return i
	}
	type pairKey struct{ i, j int }
	pairs := map[pairKey][2]float64{} // for i < j: games, i's score
	var idx []int
	for k := range games {
		g := &games[k]
		n := len(g.Players)
		switch {
		case n < 2 || len(g.Places) != n:
			return nil, 0, fmt.Errorf("elo: game %d: %d players and %d places: want two or more players and a place for each", k, n, len(g.Places))
		case n == 2 && g.Players[0] == g.Players[1]:
			return nil, 0, fmt.Errorf("elo: game %d: %q plays itself", k, g.Players[0])
		}
		idx = idx[:0]
		for s := 0; s < n; s++ {
			idx = append(idx, player(g.Players[s]))
			sc := g.score(s)
			rt := &ratings[idx[s]]
			rt.Games++
			rt.Score += sc
			switch {
			case g.Winner == s:
				rt.Wins++
			case g.Winner < 0 && g.Places[s] == 1:
				rt.Draws++
			default:
				rt.Losses++
			}
		}
		w := 1 / float64(n-1)
		for s := 0; s < n; s++ {
			for o := s + 1; o < n; o++ {
				a, b := idx[s], idx[o]
				if a == b {
					continue
				}
				sa := 0.5
				switch ps, po := g.Places[s], g.Places[o]; {
				case ps < po:
					sa = 1
				case ps > po:
					sa = 0
				}
				if a > b {
					a, b, sa = b, a, 1-sa
				}
				p := pairs[pairKey{a, b}]
				pairs[pairKey{a, b}] = [2]float64{p[0] + w, p[1] + w*sa}
			}
		}
	}
	n := len(ratings)
	if n == 0 {
		return nil, 0, nil
	}
	anchor := 0
	if set.Anchor != "" {
		i, ok := index[set.Anchor]
		if !ok && set.DropUnlinked {
			return nil, 0, nil
		}
		if !ok {
			return nil, 0, fmt.Errorf("elo: anchor %q played no game", set.Anchor)
		}
		anchor = i
	}
	// N[i][j]: games between i and j; S[i][j]: i's score against j.
	N := square(n)
	S := square(n)
	for k, g := range pairs {
		N[k.i][k.j], N[k.j][k.i] = g[0]+set.VirtualDraws, g[0]+set.VirtualDraws
		S[k.i][k.j], S[k.j][k.i] = g[1]+set.VirtualDraws/2, g[0]-g[1]+set.VirtualDraws/2
	}
	seen := linked(N, anchor)
	if set.DropUnlinked {
		ratings, N, S, anchor = keepLinked(seen, ratings, N, S, anchor)
	} else {
		for i, ok := range seen {
			if !ok {
				return nil, 0, fmt.Errorf("elo: player %q: %w %q", ratings[i].Name, ErrDisconnected, ratings[anchor].Name)
			}
		}
	}
	elo, cov, steps, err := newtonBT(N, S, anchor)
	if err != nil {
		return nil, 0, err
	}
	for i := range ratings {
		ratings[i].Elo = elo[i]
		half := 0.0
		if i != anchor {
			half = z95 * math.Sqrt(cov[i][i])
		}
		ratings[i].Low, ratings[i].High = elo[i]-half, elo[i]+half
	}
	sort.SliceStable(ratings, func(i, j int) bool { return ratings[i].Elo > ratings[j].Elo })
	return ratings, steps, nil
}

func square(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	return m
}

// linked says which players games link, through opponents, to the anchor.
func linked(N [][]float64, anchor int) []bool {
	seen := make([]bool, len(N))
	seen[anchor] = true
	stack := []int{anchor}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for j := range N {
			if N[i][j] > 0 && !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	return seen
}

// keepLinked restricts the players, their game and score matrices and the
// anchor's index to the players seen.
func keepLinked(seen []bool, ratings []Rating, N, S [][]float64, anchor int) ([]Rating, [][]float64, [][]float64, int) {
	var keep []int
	for i, ok := range seen {
		if ok {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(seen) {
		return ratings, N, S, anchor
	}
	kr, kN, kS, ka := make([]Rating, len(keep)), square(len(keep)), square(len(keep)), 0
	for a, i := range keep {
		kr[a] = ratings[i]
		if i == anchor {
			ka = a
		}
		for b, j := range keep {
			kN[a][b], kS[a][b] = N[i][j], S[i][j]
		}
	}
	return kr, kN, kS, ka
}

// maxEloMagnitude is where a fit is declared divergent: a player who won
// or lost every game with no virtual draws has no finite rating.
const maxEloMagnitude = 20000

// newtonBT maximises the Bradley-Terry log-likelihood with the anchor's
// rating fixed at 0, and returns the ratings and the covariance (inverse
// observed information) of the free ones, indexed like the players (the
// anchor's row and column are 0).
func newtonBT(N, S [][]float64, anchor int) ([]float64, [][]float64, int, error) {
	n := len(N)
	r := make([]float64, n)
	free := make([]int, 0, n-1)
	for i := 0; i < n; i++ {
		if i != anchor {
			free = append(free, i)
		}
	}
	loglik := func(r []float64) float64 {
		ll := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if S[i][j] > 0 {
					// log p_ij = -log(1+exp(-k(ri-rj))), computed stably.
					ll -= S[i][j] * softplus(-eloK*(r[i]-r[j]))
				}
			}
		}
		return ll
	}
	slot := make([]int, n) // player -> its row among the free ones; -1 for the anchor
	for i := range slot {
		slot[i] = -1
	}
	for a, i := range free {
		slot[i] = a
	}
	info := func(r []float64) ([]float64, [][]float64) {
		m := len(free)
		grad := make([]float64, m)
		h := square(m) // observed information: minus the Hessian
		for a, i := range free {
			for j := 0; j < n; j++ {
				if N[i][j] == 0 {
					continue
				}
				p := 1 / (1 + math.Exp(-eloK*(r[i]-r[j])))
				grad[a] += eloK * (S[i][j] - N[i][j]*p)
				w := eloK * eloK * N[i][j] * p * (1 - p)
				h[a][a] += w
				if b := slot[j]; b >= 0 {
					h[a][b] -= w
				}
			}
		}
		return grad, h
	}
	ll := loglik(r)
	trial := make([]float64, n)
	steps := 0
	for ; steps < 500; steps++ {
		grad, h := info(r)
		hinv, err := invert(h)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("elo: %w", err)
		}
		step := make([]float64, len(free))
		biggest := 0.0
		for a := range free {
			for b := range free {
				step[a] += hinv[a][b] * grad[b]
			}
			biggest = max(biggest, math.Abs(step[a]))
		}
		if biggest < 1e-9 {
			break
		}
		// Halve the step until the likelihood does not fall. Near the
		// maximum the step stops shrinking at the floor of the
		// floating-point error (1e-5 Elo with a few hundred players whose
		// scores are perfect, where the information is nearly singular)
		// while the likelihood no longer moves: that is the maximum too.
		scale, before := 1.0, ll
		for h := 0; h < 60; h++ {
			copy(trial, r)
			for a, i := range free {
				trial[i] += scale * step[a]
			}
			if l := loglik(trial); l >= ll-1e-12 {
				ll = l
				break
			}
			scale /= 2
		}
		copy(r, trial)
		if ll-before <= 1e-12*(1+math.Abs(ll)) && biggest < 1e-3 {
			break
		}
		for _, x := range r {
			if math.Abs(x) > maxEloMagnitude {
				return nil, nil, 0, fmt.Errorf("elo: the fit diverges: a player won or lost every game against every opponent (set virtual draws above 0)")
			}
		}
	}
	_, h := info(r)
	hinv, err := invert(h)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("elo: %w", err)
	}
	cov := square(n)
	for a, i := range free {
		for b, j := range free {
			cov[i][j] = hinv[a][b]
		}
	}
	return r, cov, steps, nil
}

// softplus is log(1+exp(x)) without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// invert inverts a symmetric positive definite matrix by Gauss-Jordan
// elimination with partial pivoting.
func invert(a [][]float64) ([][]float64, error) {
	n := len(a)
	m := square(n)
	inv := square(n)
	for i := range a {
		copy(m[i], a[i])
		inv[i][i] = 1
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if !(math.Abs(m[p][c]) > 1e-300) {
			return nil, fmt.Errorf("the fit diverges: a player won or lost every game against every opponent (set virtual draws above 0)")
		}
		m[c], m[p] = m[p], m[c]
		inv[c], inv[p] = inv[p], inv[c]
		d := m[c][c]
		for k := 0; k < n; k++ {
			m[c][k] /= d
			inv[c][k] /= d
		}
		for r := 0; r < n; r++ {
			if r == c || m[r][c] == 0 {
				continue
			}
			f := m[r][c]
			for k := 0; k < n; k++ {
				m[r][k] -= f * m[c][k]
				inv[r][k] -= f * inv[c][k]
			}
		}
	}
	return inv, nil
}
