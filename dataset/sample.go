package dataset

import "github.com/millzero/millzero/engine"

// PolicyEntry is one action of a searched policy: the variant's action index
// (engine.Variant.ActionIndex) and its probability.
type PolicyEntry struct {
	Action uint16
	Prob   float32
}

// Sample is one recorded position: the raw state, not features, so the
// encoding can change without regenerating games.
type Sample struct {
	Variant     string          // the variant's name
	GameID      string          // unique across processes and machines
	Ply         int             // actions played before this position
	Generation  int             // model generation that played the game
	Position    engine.Position // the state before the searched action
	Repetitions int             // earlier occurrences of this position in the game
	Policy      []PolicyEntry   // search visit distribution over legal actions
	RootValue   float32         // the search's value for the side to move (its expected score 0..1), or the tables' exact score where they rescored it
	Outcome     int             // the game's result as engine.Result.Class: winning seat, or players for a draw
	Simulations int             // simulations of the search that made the policy
	Full        bool            // a full search (a policy target), not a fast one

	// What the game did after this position, the auxiliary targets'
	// source. A shard of format 1 has none of them: End.Ply is 0 there.
	Reply int     // the action (Variant.ActionIndex) played after the searched one, by whichever seat moved next; -1 after the game's last action
	End   EndInfo // the game's last position
}

// EndInfo is what a sample keeps of its game's last position: where each
// seat's pieces stood, what each had still in hand, and the plies played
// (Position.Ply: 1 or more in a game that had a move after the sample's
// position; 0 unknown, a shard written before it was recorded).
type EndInfo struct {
	Pieces [engine.MaxSeats]uint32
	Hand   [engine.MaxSeats]uint8
	Ply    int
}

// Known reports whether the game's end was recorded.
func (e *EndInfo) Known() bool { return e.Ply > 0 }

// EndOf is the EndInfo of a game's last position p.
func EndOf(p *engine.Position) EndInfo {
	return EndInfo{Pieces: p.Pieces, Hand: p.Hand, Ply: int(p.Ply)}
}
