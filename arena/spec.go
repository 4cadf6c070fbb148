package arena

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// SpecSettings are what a player spec does not say itself.
type SpecSettings struct {
	Simulations int           // search visits per move of model: and rollout: players without @N
	MoveTime    time.Duration // time per move of engine: players, and of search players when above 0 (visits then cap the search)
}

// DefaultSpecSettings: 400 visits per move, a second per engine move.
func DefaultSpecSettings() SpecSettings {
	return SpecSettings{Simulations: 400}
}

// SpecHelp lists the player specs ParsePlayer reads, one per line.
const SpecHelp = `random               uniformly random legal actions (Elo anchor, 0)
alphabeta:N          the classical alpha-beta yardstick searching N plies (2 and 4 are the reference)
rollout[@N]          PUCT search with random-playout evaluation, N visits per move
model:PATH[@N]       PUCT search with the network of checkpoint PATH, N visits per move
engine:PATH [ARGS]   an external engine speaking the UCI-style protocol (Sanmill's); --option NAME=VALUE
                     (repeatable) is sent to it as setoption after the variant's options`

// ParsePlayer builds the player a spec names (see SpecHelp) for variant v.
// A model checkpoint is loaded once and shared by the player's games.
func ParsePlayer(spec string, v *engine.Variant, set SpecSettings) (Player, error) {
	spec = strings.TrimSpace(spec)
	kind, arg, _ := strings.Cut(spec, ":")
	sims := func(s string) (string, int, error) {
		base, n, ok := strings.Cut(s, "@")
		if !ok {
			return s, set.Simulations, nil
		}
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 {
			return "", 0, fmt.Errorf("player %q: visits %q: want a whole number 1 or more after @", spec, n)
		}
		return base, k, nil
	}
	switch {
	case spec == RandomName:
		return Random{}, nil
	case kind == "alphabeta":
		d, err := strconv.Atoi(arg)
		if err != nil || d < 1 || d > MaxAlphaBetaDepth {
			return nil, fmt.Errorf("player %q: depth %q: want alphabeta:N with N in 1..%d", spec, arg, MaxAlphaBetaDepth)
		}
		return AlphaBeta{Depth: d}, nil
	case kind == "engine":
		f := strings.Fields(arg)
		if len(f) == 0 {
			return nil, fmt.Errorf("player %q: want engine:PATH [ARGS] [--option NAME=VALUE]...", spec)
		}
		e := &External{Label: "engine:" + filepath.Base(f[0]), Path: f[0], MoveTime: set.MoveTime}
		for i := 1; i < len(f); i++ {
			o, ok := strings.CutPrefix(f[i], "--option=")
			if !ok && f[i] == "--option" && i+1 < len(f) {
				i++
				o, ok = f[i], true
			}
			if !ok && f[i] != "--option" {
				e.Args = append(e.Args, f[i])
				continue
			}
			name, value, found := strings.Cut(o, "=")
			if !found || name == "" {
				return nil, fmt.Errorf("player %q: --option %q: want --option NAME=VALUE", spec, o)
			}
			e.Options = append(e.Options, EngineOption{name, value})
		}
		return e, nil
	case strings.HasPrefix(spec, "rollout"):
		_, n, err := sims(spec)
		if err != nil {
			return nil, err
		}
		if spec != "rollout" && !strings.HasPrefix(spec, "rollout@") {
			return nil, fmt.Errorf("player %q: want rollout or rollout@N", spec)
		}
		p := NewSearchPlayer(fmt.Sprintf("rollout@%d", n), ArenaSettings(n), Evaluation{})
		p.MoveTime = set.MoveTime
		return p, nil
	case kind == "model":
		path, n, err := sims(arg)
		if err != nil {
			return nil, err
		}
		if path == "" {
			return nil, fmt.Errorf("player %q: want model:PATH[@N]", spec)
		}
		ck, err := model.LoadCheckpointFor(path, v)
		if err != nil {
			return nil, fmt.Errorf("player %q: %w", spec, err)
		}
		p := NewSearchPlayer(fmt.Sprintf("model:%s@%d", strings.TrimSuffix(filepath.Base(path), ".safetensors"), n),
			ArenaSettings(n), Evaluation{Net: ck.Net, RandomSymmetry: true})
		p.MoveTime = set.MoveTime
		return p, nil
	}
	return nil, fmt.Errorf("player %q: unknown; the players are:\n%s", spec, SpecHelp)
}
