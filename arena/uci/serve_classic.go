package uci

import (
	"context"
	"fmt"
	"github.com/millzero/millzero/arena"
	"strings"
	"time"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

// thinkClassic searches g with the classical engine under lim: go depth
// N, movetime MS and nodes N are its limits, infinite searches until
// stop, and a go with none of them searches by the player's own limit
// (classic@TIME, classic:N). It says one `info depth D nodes N nps R time
// T score cp S pv ...` line per completed iteration: S in hundredths of a
// piece for the side to move, beyond ±30000 a win or loss it has found.
func (x *dialog) thinkClassic(ctx context.Context, cg *arena.ClassicGame, g *engine.Game, lim goLimits) (engine.Action, []engine.Action, error) {
	l := classic.Limits{Depth: min(lim.depth, classic.MaxDepth), MoveTime: lim.moveTime, Nodes: int64(lim.nodes)}
	if lim.infinite {
		l = classic.Limits{Depth: classic.MaxDepth}
	}
	var sb strings.Builder
	var pv []engine.Action
	res, err := cg.Analyse(ctx, g, l, func(i classic.Info) {
		pv = append(pv[:0], i.PV...)
		sb.Reset()
		ms := i.Time.Milliseconds()
		fmt.Fprintf(&sb, "info depth %d nodes %d nps %d time %d score cp %d pv", i.Depth, i.Nodes,
			i.Nodes*int64(time.Second)/max(int64(i.Time), 1), ms, i.Score)
		for _, a := range i.PV {
			sb.WriteByte(' ')
			sb.WriteString(g.V.FormatAction(a))
		}
		x.say("%s", sb.String())
	})
	if err != nil {
		return 0, nil, err
	}
	if len(pv) == 0 || pv[0] != res.Best {
		pv = []engine.Action{res.Best}
	}
	return res.Best, pv, nil
}
