package arena

import (
	"math"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena/rating"
)

// games makes n records of a (seat 0) against b with the given wins,
// draws and losses for a.
func games(a, b string, wins, draws, losses int) []Record {
	var recs []Record
	add := func(k int, winner int8) {
		for i := 0; i < k; i++ {
			recs = append(recs, Record{Player0: a, Player1: b, Winner: winner, Forfeit: -1})
		}
	}
	add(wins, 0)
	add(draws, -1)
	add(losses, 1)
	return recs
}

func ratingOf(t *testing.T, rs []rating.Rating, name string) rating.Rating {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no rating for %q in %+v", name, rs)
	return rating.Rating{}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFitElo_AnchorIsRandomAtZero(t *testing.T) {
	recs := append(games("A", "B", 6, 2, 2), games("random", "B", 1, 0, 9)...)
	rs, err := FitElo(recs, rating.DefaultEloSettings())
	if err != nil {
		t.Fatal(err)
	}
	r := ratingOf(t, rs, "random")
	if r.Elo != 0 || r.Low != 0 || r.High != 0 {
		t.Errorf("random: %+v, want 0 ± 0", r)
	}
	if rs[0].Name != "A" || rs[len(rs)-1].Name != "random" {
		t.Errorf("order %v, want A first and random last", rs)
	}
}

func TestFitElo_APlayerAgainstItselfIsAnErrorNamingTheGame(t *testing.T) {
	recs := []Record{{Match: "m", Pair: 3, Game: 1, Player0: "A", Player1: "A", Winner: 0, Forfeit: -1}}
	_, err := FitElo(recs, rating.DefaultEloSettings())
	if err == nil || !strings.Contains(err.Error(), "m/3/1") {
		t.Errorf("error %v, want one naming game m/3/1", err)
	}
}

func TestFitElo_TwoSeatRecordsRateAsTheirPlaces(t *testing.T) {
	// The records' winner and places reach the fit: 3 wins, a draw and a
	// loss of A against random.
	rs, err := FitElo(games("A", RandomName, 3, 1, 1), rating.DefaultEloSettings())
	if err != nil {
		t.Fatal(err)
	}
	a := ratingOf(t, rs, "A")
	if a.Games != 5 || a.Wins != 3 || a.Draws != 1 || a.Losses != 1 || a.Score != 3.5 || !(a.Elo > 0) {
		t.Errorf("A: %+v, want 5 games, 3 won, 1 drawn, 1 lost, 3.5 points and an Elo above random's 0", a)
	}
}
