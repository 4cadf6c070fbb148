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
}
