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
