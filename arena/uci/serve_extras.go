package uci

import (
	"fmt"
	"github.com/millzero/millzero/internal/textline"
	"strings"

	"github.com/millzero/millzero/engine"
)

// What the server echoes of its input is bounded: a word it names in an
// answer is cut to maxEchoBytes, a whole error line to maxErrorBytes, so a
// line of a megabyte is never sent back.
const (
	maxEchoBytes  = 64
	maxErrorBytes = 512
)

// setDebug reads `debug on|off`.
func (x *dialog) setDebug(f []string) error {
	switch {
	case len(f) == 1 && f[0] == "on":
		x.debug.Store(true)
	case len(f) == 1 && f[0] == "off":
		x.debug.Store(false)
	default:
		return fmt.Errorf("debug: want debug on or debug off")
	}
	return nil
}

// debugf says an `info string debug: ...` line when debug is on.
func (x *dialog) debugf(format string, args ...any) {
	if x.debug.Load() {
		x.say("info string debug: "+format, args...)
	}
}

// JudgeGame is the result of g by the rules: the game's own outcome, or,
// for a position given whole (a FEN or position string without its
// result), the end its pieces show: a two-player side down to fewer than
// three pieces with none in hand has lost (the side to move when both are).
// It sets the result it finds on g's position, so that a search refuses
// the game as over.
func JudgeGame(g *engine.Game) (engine.Result, engine.Reason) {
	if r, why := g.Outcome(); r != engine.Ongoing {
		return r, why
	}
	v, p := g.V, &g.Pos
	if v.Players != 2 || v.LineWins {
		return engine.Ongoing, engine.NotOver
	}
	side := int(p.Side)
	for _, s := range []int{side, 1 - side} {
		if p.PiecesLeft(s) < 3 {
			p.Result, p.Reason = engine.WinFor(1-s), engine.TooFewPieces
			return p.Result, p.Reason
		}
	}
	return engine.Ongoing, engine.NotOver
}

// searchMoves reads the actions of `go searchmoves M1 M2 ...` in g's
// position: each must be legal there.
func searchMoves(g *engine.Game, moves []string) ([]engine.Action, error) {
	if len(moves) == 0 {
		return nil, nil
	}
	out := make([]engine.Action, 0, len(moves))
	for _, m := range moves {
		a, err := g.V.ParseAction(&g.Pos, m)
		if err != nil {
			return nil, fmt.Errorf("go searchmoves %q: %w", textline.Clip(m, maxEchoBytes), err)
		}
		out = append(out, a)
	}
	return out, nil
}

// debugLimits says a go's limits when debug is on.
func (x *dialog) debugLimits(lim goLimits, threads int) {
	if !x.debug.Load() {
		return
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "go: visits %d, movetime %s, depth %d, infinite %t, ponder %t, threads %d", lim.nodes, lim.moveTime, lim.depth, lim.infinite, lim.ponder, threads)
	if len(lim.searchMoves) > 0 {
		fmt.Fprintf(&sb, ", searchmoves %s", strings.Join(lim.searchMoves, " "))
	}
	x.debugf("%s", sb.String())
}

// debugRoot says, when debug is on, the root actions the threads visited
// most, with their visits summed over the threads, and thread 0's tree
// size.
func (x *dialog) debugRoot(ts []threadState, g *engine.Game, nodes int) {
	if !x.debug.Load() {
		return
	}
	sum := map[engine.Action]int64{}
	var order []engine.Action
	for _, t := range ts {
		for k, a := range t.actions {
			if _, ok := sum[a]; !ok {
				order = append(order, a)
			}
			sum[a] += int64(t.visits[k])
		}
	}
	for i := 1; i < len(order); i++ { // by visits, most first (few actions: insertion sort)
		for j := i; j > 0 && sum[order[j]] > sum[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "root: %d actions, tree %d nodes; most visited:", len(order), nodes)
	for _, a := range order[:min(len(order), 5)] {
		fmt.Fprintf(&sb, " %s %d", g.V.FormatAction(a), sum[a])
	}
	x.debugf("%s", sb.String())
}
