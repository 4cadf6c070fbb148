package selfplay

import (
	"fmt"
	mrand "math/rand/v2"

	"github.com/millzero/millzero/engine"
)

// Opening starts. A run's own games open alike: in the default Nine Men's
// Morris hour, of about 200 positions its games record at ply 4, 17 differ
// up to the board's symmetries, and at ply 8 60, while every strength
// measurement (the gate, bench strength, bench progress, the classical
// engine's games) opens with random legal plies: the network meets there
// placing positions its own games never reach, and the placing phase is
// where the diagnosis finds the most value lost. A share
// Settings.OpeningStarts of the games therefore begins with
// Settings.OpeningPlies uniformly random legal actions, as those
// measurements' openings do; the random plies are neither searched nor
// recorded. The draws use a random stream of their own, so a run without
// opening starts plays exactly the games it played before they existed.

// openingTries bounds the draws spent on one opening start whose random
// plies keep ending the game.
const openingTries = 1000

// randomOpening plays plies uniformly random legal actions of v on a new
// game and returns it, drawing again when they end the game.
func randomOpening(v *engine.Variant, plies int, rng *mrand.Rand) (*engine.Game, error) {
	for range openingTries {
		g := engine.NewGame(v)
		ok, err := g.PlayRandom(plies, rng)
		if err != nil {
			return nil, fmt.Errorf("selfplay: opening start of %s: %w", v.Name, err)
		}
		if ok {
			return g, nil
		}
	}
	return nil, fmt.Errorf("selfplay: no opening start of %d random plies of %s in %d tries that does not end the game: play fewer opening_plies", plies, v.Name, openingTries)
}
