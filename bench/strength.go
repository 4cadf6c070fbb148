package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// DefaultClassic is the strength benchmark's classical yardsticks: times
// a move that a strong network does not saturate.
const DefaultClassic = "classic@100ms,classic@300ms,classic@1s"

// ClassicYardsticks are the classical-engine players of specs
// (classic@TIME or classic:N each, with any ,weights=W), comma separated;
// none or "" is none.
func ClassicYardsticks(specs string) ([]arena.Player, error) {
	if specs == "none" || specs == "" {
		return nil, nil
	}
	// A spec's own options (classic@1s,weights=hand) follow it after a
	// comma too: they join the spec before them.
	var fields []string
	for _, f := range strings.Split(specs, ",") {
		if f = strings.TrimSpace(f); strings.HasPrefix(f, "weights=") && len(fields) > 0 {
			fields[len(fields)-1] += "," + f
			continue
		}
		fields = append(fields, f)
	}
	var out []arena.Player
	for _, f := range fields {
		p, err := arena.ParsePlayer(f, nil, arena.SpecSettings{})
		if err == nil {
			if _, ok := p.(arena.Classic); !ok {
				err = fmt.Errorf("player %q: want classic@TIME or classic:N", f)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// DepthYardsticks are the alpha-beta players of the depths, comma
// separated; "" is none.
func DepthYardsticks(depths string) ([]arena.Player, error) {
	if depths == "" {
		return nil, nil
	}
	var out []arena.Player
	for _, f := range strings.Split(depths, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 || d > arena.MaxAlphaBetaDepth {
			return nil, fmt.Errorf("%q is not a depth in 1..%d", f, arena.MaxAlphaBetaDepth)
		}
		out = append(out, arena.AlphaBeta{Depth: d})
	}
	return out, nil
}

// StrengthPlayer is the model of ck as the strength benchmark measures
// it in v: sims visits a move with the model settings of the arena, the
// search options opts (as in a run config) laid over them, a random turn
// of the board every evaluation.
func StrengthPlayer(v *engine.Variant, ck *model.Checkpoint, sims int, opts []string) (*arena.SearchPlayer, error) {
	set, suffix, err := arena.SearchSpec(arena.ModelSettings(v, sims), sims, opts)
	if err != nil {
		return nil, err
	}
	return arena.NewSearchPlayer(store.ModelName(ck.Generation)+suffix, set,
		arena.Evaluation{Net: ck.Net, RandomSymmetry: true}), nil
}
