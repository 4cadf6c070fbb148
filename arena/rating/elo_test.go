package rating

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// games makes the games of a (seat 0) against b with the given wins,
// draws and losses for a.
func games(a, b string, wins, draws, losses int) []Game {
	var gs []Game
	add := func(k int, places []int, winner int) {
		for i := 0; i < k; i++ {
			gs = append(gs, Game{Players: []string{a, b}, Places: places, Winner: winner})
		}
	}
	add(wins, []int{1, 2}, 0)
	add(draws, []int{1, 1}, -1)
	add(losses, []int{2, 1}, 1)
	return gs
}

func ratingOf(t *testing.T, rs []Rating, name string) Rating {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no rating for %q in %+v", name, rs)
	return Rating{}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFitElo_HandComputedCases(t *testing.T) {
	// 75% over 100 games: d = 400 log10(3) = 190.849; information
	// k^2 * 100 * 0.75 * 0.25 with k = ln10/400, so sd = 40.120 and the
	// 95% half-width 1.96 sd = 78.634.
	d75 := 400 * math.Log10(3)
	sd75 := 1 / (eloK * math.Sqrt(100*0.75*0.25))
	anchored := EloSettings{Anchor: "random"}
	tests := []struct {
		name     string
		gs       []Game
		set      EloSettings
		player   string
		elo, sd  float64
		wantWins int
	}{
		{"three quarters of the points is 191 Elo", games("A", "random", 75, 0, 25), anchored, "A", d75, sd75, 75},
		{"draws count as half a win", games("A", "random", 50, 50, 0), anchored, "A", d75, sd75, 50},
		{"seats do not matter", append(games("A", "random", 40, 0, 10), games("random", "A", 15, 0, 35)...), anchored, "A", d75, sd75, 75},
		{"all draws is equal strength", games("A", "random", 0, 30, 0), anchored, "A", 0, 1 / (eloK * math.Sqrt(30*0.25)), 0},
		{"a chain adds ratings and variances", append(games("A", "B", 75, 0, 25), games("B", "random", 75, 0, 25)...), anchored, "A", 2 * d75, sd75 * math.Sqrt2, 75},
		// 10 of 10 with one virtual draw is 10.5 of 11: 400 log10(21).
		{"a perfect score is finite with a virtual draw", games("A", "random", 10, 0, 0), onRandom(), "A", 400 * math.Log10(21), 1 / (eloK * math.Sqrt(11*(10.5/11)*(0.5/11))), 10},
		{"the anchor can be named", games("A", "B", 25, 0, 75), EloSettings{Anchor: "A"}, "B", d75, sd75, 75},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := FitElo(tc.gs, tc.set)
			if err != nil {
				t.Fatal(err)
			}
			r := ratingOf(t, rs, tc.player)
			if !near(r.Elo, tc.elo, 1e-6) {
				t.Errorf("Elo %.6f, want %.6f", r.Elo, tc.elo)
			}
			if half := (r.High - r.Low) / 2; !near(half, z95*tc.sd, 1e-6) {
				t.Errorf("95%% half-width %.6f, want %.6f", half, z95*tc.sd)
			}
			if r.Wins != tc.wantWins {
				t.Errorf("wins %d, want %d", r.Wins, tc.wantWins)
			}
		})
	}
}

func TestFitElo_AnchorIsTheFirstPlayerSeenUnlessNamed(t *testing.T) {
	gs := append(games("A", "B", 6, 2, 2), games("random", "B", 1, 0, 9)...)
	rs, err := FitElo(gs, DefaultEloSettings())
	if err != nil {
		t.Fatal(err)
	}
	if a := ratingOf(t, rs, "A"); a.Elo != 0 || a.Low != 0 || a.High != 0 {
		t.Errorf("A: %+v, want 0 ± 0", a)
	}
	set := DefaultEloSettings()
	set.Anchor = "B"
	if rs, err = FitElo(gs, set); err != nil {
		t.Fatal(err)
	}
	if b := ratingOf(t, rs, "B"); b.Elo != 0 || b.Low != 0 || b.High != 0 {
		t.Errorf("B: %+v, want 0 ± 0", b)
	}
	if rs[0].Name != "A" || rs[len(rs)-1].Name != "random" {
		t.Errorf("order %v, want A first and random last", rs)
	}
}

func TestFitElo_BadInputIsAnError(t *testing.T) {
	tests := []struct {
		name string
		gs   []Game
		set  EloSettings
		want error
	}{
		{"players not linked to the anchor", append(games("A", "random", 3, 0, 3), games("C", "D", 2, 0, 1)...), DefaultEloSettings(), ErrDisconnected},
		{"perfect score without virtual draws", games("A", "random", 5, 0, 0), EloSettings{}, nil},
		{"unknown anchor", games("A", "random", 1, 0, 1), EloSettings{Anchor: "Z"}, nil},
		{"negative virtual draws", games("A", "random", 1, 0, 1), EloSettings{VirtualDraws: -1}, nil},
		{"a player against itself", games("A", "A", 1, 0, 0), DefaultEloSettings(), nil},
		{"a place missing", []Game{{Players: []string{"A", "B", "C"}, Places: []int{1, 2}, Winner: 0}}, DefaultEloSettings(), nil},
		{"one player", []Game{{Players: []string{"A"}, Places: []int{1}, Winner: 0}}, DefaultEloSettings(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FitElo(tc.gs, tc.set)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

func TestFitElo_DropUnlinkedRatesOnlyThePlayersLinkedToTheAnchor(t *testing.T) {
	var gs []Game
	gs = append(gs, games("A", "random", 3, 1, 1)...)
	gs = append(gs, games("B", "A", 2, 0, 2)...)           // linked through A
	gs = append(gs, games("C", "D", 1, 1, 1)...)           // an island
	gs = append(gs, games("E", "alphabeta:2", 1, 0, 0)...) // another
	set := DefaultEloSettings()
	set.DropUnlinked = true
	got, err := FitElo(gs, set)
	if err != nil {
		t.Fatal(err)
	}
	// The 9 games of A and B alone give the same ratings.
	want, err := FitElo(gs[:9], DefaultEloSettings())
	if err != nil {
		t.Fatalf("the linked games do not fit: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("rated %+v, want the players of A's and B's 9 games %+v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Games != want[i].Games || !near(got[i].Elo, want[i].Elo, 1e-9) {
			t.Errorf("rated %+v, want %+v", got[i], want[i])
		}
	}
	if _, err := FitElo(gs, DefaultEloSettings()); !errors.Is(err, ErrDisconnected) {
		t.Errorf("all the games without DropUnlinked: %v, want ErrDisconnected", err)
	}
	set.Anchor = "alphabeta:4"
	if rs, err := FitElo(gs, set); err != nil || len(rs) != 0 {
		t.Errorf("an anchor that played no game: %+v, %v; want no ratings", rs, err)
	}
}

func TestFitElo_CopiesOfOnePlayerAreNotRatedAgainstThemselves(t *testing.T) {
	// The candidate against two copies of the best: the copies' result
	// between themselves is no evidence, the candidate's against each is.
	var gs []Game
	for k := 0; k < 30; k++ {
		places := [3][]int{{1, 2, 3}, {2, 1, 3}, {3, 2, 1}}[k%3] // cand first, second, then third
		gs = append(gs, Game{Players: []string{"cand", "best", "best"}, Places: places, Winner: -1})
	}
	rs, err := FitElo(gs, EloSettings{Anchor: "best"})
	if err != nil {
		t.Fatal(err)
	}
	// cand scores 1, 0.5 and 0 against the copies: even.
	if c := ratingOf(t, rs, "cand"); !near(c.Elo, 0, 1e-6) {
		t.Errorf("cand %.3f Elo above best, want 0", c.Elo)
	}
}

// onRandom is DefaultEloSettings anchored on the random player, as a
// run's ladder is.
func onRandom() EloSettings {
	set := DefaultEloSettings()
	set.Anchor = "random"
	return set
}

// ungatedLadder is the arena games of the first 284 generations of a
// default run without a gate (testdata/ungated-ladder.csv, counted by
// player pair): every model met random and alphabeta:2 only, most of them
// winning every game.
func ungatedLadder(t testing.TB) []Game {
	var gs []Game
	for _, row := range readCSV(t, filepath.Join("testdata", "ungated-ladder.csv"))[1:] {
		var n [3]int
		for k := range n {
			var err error
			if n[k], err = strconv.Atoi(row[2+k]); err != nil {
				t.Fatal(err)
			}
		}
		gs = append(gs, games(row[0], row[1], n[0], n[1], n[2])...)
	}
	return gs
}

// Hundreds of players with perfect scores make the information nearly
// singular: the Newton step stops shrinking at about 1e-5 Elo while the
// likelihood no longer moves, and the fit used to run all its 500 steps
// (18 s a generation in the loop after 40 minutes of the default run).
func TestFitElo_StopsAtTheMaximumWithHundredsOfPerfectScores(t *testing.T) {
	gs := ungatedLadder(t)
	rs, steps, err := fitElo(gs, onRandom())
	if err != nil {
		t.Fatal(err)
	}
	if steps > 30 {
		t.Errorf("%d Newton steps for %d players; the likelihood is flat after about 8", steps, len(rs))
	}
	for _, r := range rs {
		if math.IsNaN(r.Elo) || math.IsInf(r.Elo, 0) || r.Low > r.Elo || r.High < r.Elo {
			t.Errorf("%s: Elo %v [%v, %v]", r.Name, r.Elo, r.Low, r.High)
		}
	}
}

// go test -run '^$' -bench FitElo ./arena/rating
func BenchmarkFitElo_UngatedLadder(b *testing.B) {
	gs := ungatedLadder(b)
	for range b.N {
		if _, err := FitElo(gs, onRandom()); err != nil {
			b.Fatal(err)
		}
	}
}
