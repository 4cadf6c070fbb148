package arena

import (
	"context"

	"github.com/millzero/millzero/engine"
)

// Player is a contestant: it names itself and makes a fresh GamePlayer for
// each game. A Player must be safe to call from many goroutines at once, so
// that games run in parallel; all per-game state (search trees, external
// processes, random streams) belongs to the GamePlayer.
type Player interface {
	// Name identifies the player in tables and game records; it is unique
	// within a match.
	Name() string
	// NewGame makes the player of one game of variant v, its randomness (if
	// any) drawn from seed.
	NewGame(v *engine.Variant, seed uint64) (GamePlayer, error)
}

// Configured is a Player whose play depends on more than its name says:
// Setup gives that in one line (a search player's settings, move time,
// tables and evaluation). A match records each seat's setup with every
// game, and a round robin reuses a stored match only between players of
// the same setups, so a search changed under the same name is played
// again rather than rated with the old one's games.
type Configured interface {
	Player
	Setup() string
}

// SetupOf is p's Setup, or "" when p is not Configured.
func SetupOf(p Player) string {
	if c, ok := p.(Configured); ok {
		return c.Setup()
	}
	return ""
}

// GamePlayer plays one game. It is used by one goroutine.
type GamePlayer interface {
	// Act returns the action to play in g, whose side to move is this
	// player's seat. g is the whole game from the start (its Actions and
	// Hashes); Act must not change it. An error, or an action that is not
	// legal, loses the game by forfeit.
	Act(ctx context.Context, g *engine.Game) (engine.Action, error)
	// Close releases what the game held (a process, a tree).
	Close() error
}
