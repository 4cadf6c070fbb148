package arena

import (
	"context"
	"strings"

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

// SameSetup tells whether a stored game's setup is current's. Settings
// that are off print as zero (Name:0, Name:false, Name:) and are left out
// of both, so a search setting added after a game was stored, off by
// default, leaves that game its player's own until the setting is turned
// on. Any other difference, or a setup stored empty, is another player.
func SameSetup(stored, current string) bool {
	return stored == current || setupTerms(stored) == setupTerms(current)
}

// setupTerms is setup's words without braces and without the settings
// that are zero.
func setupTerms(setup string) string {
	var b strings.Builder
	for _, w := range strings.Fields(strings.NewReplacer("{", " ", "}", " ").Replace(setup)) {
		if i := strings.IndexByte(w, ':'); i > 0 {
			switch w[i+1:] {
			case "", "0", "false":
				continue
			}
		}
		b.WriteString(w)
		b.WriteByte(' ')
	}
	return b.String()
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
