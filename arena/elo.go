package arena

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/millzero/millzero/arena/rating"
)

// FitElo rates the players of the finished games of recs (an unfinished
// game has no result to rate) by rating.FitElo. With no anchor set, the
// random player is the anchor when it played, else the first player seen.
func FitElo(recs []Record, set rating.EloSettings) ([]rating.Rating, error) {
	games, err := ratingGames(recs)
	if err != nil {
		return nil, err
	}
	if set.Anchor == "" {
		for _, g := range games {
			if slices.Contains(g.Players, RandomName) {
				set.Anchor = RandomName
				break
			}
		}
	}
	return rating.FitElo(games, set)
}

// ratingGames is the finished games of recs as the rating fit reads them:
// each seat's player and place (Record.Place), and the winner.
func ratingGames(recs []Record) ([]rating.Game, error) {
	seats := 0
	for i := range recs {
		if recs[i].Unfinished == "" {
			seats += recs[i].Seats()
		}
	}
	// One backing array each for the players and places of every game.
	players, places := make([]string, 0, seats), make([]int, 0, seats)
	games := make([]rating.Game, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		if r.Unfinished != "" {
			continue // no result to rate
		}
		n := r.Seats()
		if n == 2 && r.Player0 == r.Player1 {
			return nil, fmt.Errorf("elo: game %s/%d/%d: %q plays itself", r.Match, r.Pair, r.Game, r.Player0)
		}
		from := len(players)
		for s := 0; s < n; s++ {
			players = append(players, r.PlayerAt(s))
			places = append(places, r.Place(s))
		}
		games = append(games, rating.Game{Players: players[from:len(players):len(players)], Places: places[from:len(places):len(places)], Winner: int(r.Winner)})
	}
	return games, nil
}

// WriteRatings fits Elo to recs and prints a row per player, best first.
func WriteRatings(out io.Writer, recs []Record) error {
	ratings, err := FitElo(recs, rating.DefaultEloSettings())
	if err != nil {
		return err
	}
	width := len("player")
	for _, r := range ratings {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(out, "\n%-*s %6s %7s %6s %6s %6s %8s %8s\n", width, "player", "games", "score", "wins", "draws", "losses", "Elo", "±95%")
	for _, r := range ratings {
		pct := 0.0
		if r.Games > 0 {
			pct = 100 * r.Score / float64(r.Games)
		}
		fmt.Fprintf(out, "%-*s %6d %6.1f%% %6d %6d %6d %8.0f %8.0f\n", width, r.Name, r.Games, pct,
			r.Wins, r.Draws, r.Losses, r.Elo, math.Max(r.High-r.Elo, r.Elo-r.Low))
	}
	fmt.Fprintln(out, "\nElo: maximum likelihood (Bradley-Terry, a draw half a win, one virtual draw per pair of opponents), random = 0 when it played; ±95% from the inverse Fisher information.")
	return nil
}
