package selfplay

import (
	"fmt"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// Resignation, as AlphaZero's self-play (Silver et al., 2017-2018): a seat
// resigns, and the game ends with its loss, once its root value (the
// search's expected score for it, 0 a loss, 1/2 a draw, 1 a win) has been
// below Settings.ResignThreshold for ResignPlies of its own moves in a row
// (each action it searches counts: a mill and its removal are two). The
// value is read from every search, full or fast. A share ResignPlayout of
// the games, drawn per game from a random stream of its own (so that
// resignation never changes the other games' moves), never resigns: they
// record the first seat that would have, and count a false resignation when
// that seat then did not lose (won, or drew: its resignation would have
// turned a draw into a loss). The share of false resignations among the
// games that would have resigned is what to tune the threshold by (AlphaGo
// Zero kept it below 5%).
//
// Resignation is for 2-player variants only: Run refuses a resign_threshold
// with 3 or 4 seats, where a resigning seat would have to be eliminated
// while the others play on, which the engine's rules have no action for.

// resignState is a game's resignation bookkeeping.
type resignState struct {
	below    [engine.MaxSeats]int // each seat's own moves in a row with its root value below the threshold
	playout  bool                 // the game never resigns (the playout share)
	would    int                  // playout games: the first seat that would have resigned, or -1
	resigned int                  // the seat that resigned, or -1
}

// reset readies the bookkeeping of a new game.
func (r *resignState) reset(playout bool) {
	*r = resignState{playout: playout, would: -1, resigned: -1}
}

// checkResignation is whether resignation is on, and allowed with v.
func checkResignation(set *Settings, v *engine.Variant) error {
	if set.ResignThreshold > 0 && v.Players != 2 {
		return fmt.Errorf("selfplay: resign_threshold %v: resignation is for 2-player variants, %s has %d seats (set resign_threshold 0)",
			set.ResignThreshold, v.Name, v.Players)
	}
	return nil
}

// resigns updates the game's bookkeeping with the search res of the
// position where seat is to move, and reports whether seat resigns now.
func (w *worker) resigns(sl *slot, seat int, res *mcts.Result) bool {
	set := &w.job.Settings
	r := &sl.resign
	if !(res.Value[seat] < float32(set.ResignThreshold)) {
		r.below[seat] = 0
		return false
	}
	r.below[seat]++
	if r.below[seat] < set.ResignPlies {
		return false
	}
	if !r.playout {
		r.resigned = seat
		return true
	}
	if r.would < 0 {
		r.would = seat
	}
	return false
}

// ResignSummary is the resignation figures for a progress line: empty when
// no game resigned or would have, else a leading ", " and the counts.
func (s Stats) ResignSummary() string {
	if s.ResignedGames == 0 && s.WouldResign == 0 {
		return ""
	}
	return fmt.Sprintf(", %d resigned, %d played out that would have (%d falsely)", s.ResignedGames, s.WouldResign, s.FalseResigns)
}
