package selfplay

import (
	"fmt"
	mrand "math/rand/v2"

	"github.com/millzero/millzero/engine"
)

// Endgame starts. As a run's network gets stronger, fewer of its own games
// reach the endgame: in the default Nine Men's Morris hour the share of
// recorded positions with a side down to three (flying) falls from 14% in
// the first generations to 3-5% after 500, the network's endgame play gets
// worse with it (the table oracle's share of right moves falls from 80% to
// 71%), and most games its model then loses to alpha-beta are lost from a
// drawn endgame. A share Settings.EndgameStarts of the games therefore
// begins from a random endgame: a material of a v b pieces drawn uniformly
// from those with at least 3 a side and at most Settings.EndgamePieces in
// all, the pieces on random points with nothing in hand, a random side to
// move. The network plays it with its own searches and the game's result is
// the outcome, as in any other game; no table is consulted. Its first
// search.temperature_plies moves are drawn with the temperature, as a
// game's first moves are. Measured at 0.1 over one-core hours on two seeds
// (docs/experiments.md, "Endgame starts"): level in strength, the endgame
// better on one seed only; off in the default run.
//
// The draw uses a random stream of its own, so a run without endgame starts
// plays the same games as before they existed.

// endgameMaterials are the (a, b) piece counts an endgame start draws from.
func endgameMaterials(v *engine.Variant, most int) [][2]int {
	var m [][2]int
	for a := 3; a <= v.Pieces; a++ {
		for b := 3; b <= v.Pieces && a+b <= most; b++ {
			m = append(m, [2]int{a, b})
		}
	}
	return m
}

// checkEndgameStarts refuses endgame starts the variant cannot have.
func checkEndgameStarts(s *Settings, v *engine.Variant) error {
	if s.EndgameStarts == 0 {
		return nil
	}
	switch {
	case v.Players != 2:
		return fmt.Errorf("selfplay settings: endgame_starts %v: variant %s has %d players; endgame starts are for two", s.EndgameStarts, v.Name, v.Players)
	case v.LineWins:
		return fmt.Errorf("selfplay settings: endgame_starts %v: variant %s is won by the first line, it has no endgame", s.EndgameStarts, v.Name)
	case len(endgameMaterials(v, s.EndgamePieces)) == 0:
		return fmt.Errorf("selfplay settings: endgame_pieces %d: variant %s has no material of 3 or more a side within it (%d pieces a side)", s.EndgamePieces, v.Name, v.Pieces)
	case s.EndgamePieces >= v.Board.Points:
		return fmt.Errorf("selfplay settings: endgame_pieces %d: variant %s has %d points, want fewer pieces than points", s.EndgamePieces, v.Name, v.Board.Points)
	}
	return nil
}

// randomEndgame is a random endgame start: a material of mats, its pieces
// on random points, a random side to move, the game not already over.
func randomEndgame(v *engine.Variant, mats [][2]int, rng *mrand.Rand) (engine.Position, error) {
	for try := 0; try < 1000; try++ {
		m := mats[rng.IntN(len(mats))]
		// Every point of a board is on it (Board.All is its first Points
		// bits): the first m[0] of a shuffle are seat 0's, the next m[1]
		// seat 1's.
		var pieces [2]uint32
		pts := rng.Perm(v.Board.Points)
		for _, pt := range pts[:m[0]] {
			pieces[0] |= 1 << pt
		}
		for _, pt := range pts[m[0] : m[0]+m[1]] {
			pieces[1] |= 1 << pt
		}
		removed := 2*v.Pieces - m[0] - m[1]
		side := rng.IntN(2)
		// The plies a game takes to get here at the least: every placement
		// and every removal.
		p, err := v.Placed(pieces, side, min(2*v.Pieces+removed, v.MaxPlies-1))
		if err != nil {
			return engine.Position{}, err
		}
		if r, _ := v.Outcome(&p); r == engine.Ongoing {
			return p, nil
		}
	}
	return engine.Position{}, fmt.Errorf("selfplay: no endgame start of %s in 1000 tries", v.Name)
}
