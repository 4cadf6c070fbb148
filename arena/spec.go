package arena

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/builtin"
)

// SpecSettings are what a player spec does not say itself.
type SpecSettings struct {
	Simulations int           // search visits per move of model: and rollout: players without @N
	MoveTime    time.Duration // time per move of engine: players, and of search players when above 0 (visits then cap the search)
}

// DefaultVisits is the visits a move of a search player that names none
// (model:PATH, rollout, --sims): the commands' default.
const DefaultVisits = 400

// DefaultOpeningPlies is the random legal plies that open each pair of a
// match unless told otherwise: the commands' default.
const DefaultOpeningPlies = 4

// DefaultSpecSettings: DefaultVisits a move, and no move time.
func DefaultSpecSettings() SpecSettings {
	return SpecSettings{Simulations: DefaultVisits}
}

// engineOption is the word of an engine: spec before an option sent to the
// engine (engine:PATH --option NAME=VALUE): the external engine's own
// syntax, not a flag of a command.
const engineOption = "--option"

// SpecHelp lists the player specs ParsePlayer reads, one per line.
const SpecHelp = `random               uniformly random legal actions (Elo anchor, 0)
alphabeta:N          the classical alpha-beta yardstick searching N plies (2 and 4 are the reference)
classic@TIME         the classical engine (iterative deepening, transposition table, endgame tables with
                     --tablebase) thinking TIME a move: classic@100ms, classic@300ms, classic@1s
classic:N            the classical engine searching N plies a move (1..64), the same on every machine
classic...,weights=W the classical engine evaluating with weights W: a file of millzero classic tune, or
                     hand (the first, hand-written weights: classic@1s,weights=hand)
rollout[@N][,K=V]    PUCT search with random-playout evaluation, N visits per move
model:PATH[@N][,K=V] search with the network of checkpoint PATH, N visits per move (a Gumbel root with
                     two seats, else PUCT); each ,K=V sets a search setting by its run-config name:
                     model:m.safetensors@400,root=puct,c_puct=1; ,orientations=N averages the network
                     over N distinct turns of the board a position (N times its work)
model:default[@N]    the built-in nine model that comes with millzero (a file named default: ./default)
engine:PATH [ARGS]   an external engine speaking the UCI-style protocol (Sanmill's); --option NAME=VALUE
                     (repeatable) is sent to it as setoption after the variant's options`

// ParsePlayer builds the player a spec names (see SpecHelp) for variant v.
// A model checkpoint is loaded once and shared by the player's games.
func ParsePlayer(spec string, v *engine.Variant, set SpecSettings) (Player, error) {
	spec = strings.TrimSpace(spec)
	kind, arg, _ := strings.Cut(spec, ":")
	search := func(base mcts.Settings, n int, opts []string) (mcts.Settings, string, error) {
		s, suffix, err := SearchSpec(base, n, opts)
		if err != nil {
			return s, "", fmt.Errorf("player %q: %w", spec, err)
		}
		return s, suffix, nil
	}
	sims := func(s string) (string, int, error) {
		base, n, ok := strings.Cut(s, "@")
		if !ok {
			return s, set.Simulations, nil
		}
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 {
			return "", 0, fmt.Errorf("player %q: visits %q: want a whole number 1..%d after @ (the most visits a move may take)", spec, n, mcts.MaxVisits)
		}
		return base, k, nil // the search's settings bound it (SearchSpec)
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
	case strings.HasPrefix(spec, "classic:") || strings.HasPrefix(spec, "classic@"):
		return parseClassic(spec, strings.TrimPrefix(spec, "classic"))
	case kind == "engine":
		f := strings.Fields(arg)
		if len(f) == 0 {
			return nil, fmt.Errorf("player %q: want engine:PATH [ARGS] [%s NAME=VALUE]...", spec, engineOption)
		}
		e := &External{Label: "engine:" + filepath.Base(f[0]), Path: f[0], MoveTime: set.MoveTime}
		for i := 1; i < len(f); i++ {
			o, ok := strings.CutPrefix(f[i], engineOption+"=")
			if !ok && f[i] == engineOption && i+1 < len(f) {
				i++
				o, ok = f[i], true
			}
			if !ok && f[i] != engineOption {
				e.Args = append(e.Args, f[i])
				continue
			}
			name, value, found := strings.Cut(o, "=")
			if !found || name == "" {
				return nil, fmt.Errorf("player %q: %s %q: want %s NAME=VALUE", spec, engineOption, o, engineOption)
			}
			e.Options = append(e.Options, EngineOption{name, value})
		}
		return e, nil
	case strings.HasPrefix(spec, "rollout"):
		head, opts := splitOptions(spec)
		_, n, err := sims(head)
		if err != nil {
			return nil, err
		}
		if head != "rollout" && !strings.HasPrefix(head, "rollout@") {
			return nil, fmt.Errorf("player %q: want rollout or rollout@N, then any ,K=V", spec)
		}
		s, suffix, err := search(ArenaSettings(n), n, opts)
		if err != nil {
			return nil, err
		}
		p := NewSearchPlayer("rollout"+suffix, s, Evaluation{})
		p.MoveTime = set.MoveTime
		return p, nil
	case kind == "model":
		head, opts := splitOptions(arg)
		path, n, err := sims(head)
		if err != nil {
			return nil, err
		}
		if path == "" {
			return nil, fmt.Errorf("player %q: want model:PATH[@N][,K=V]...", spec)
		}
		eval := Evaluation{RandomSymmetry: true}
		var searchOpts []string
		for _, o := range opts {
			val, ok := strings.CutPrefix(o, "orientations=")
			if !ok {
				searchOpts = append(searchOpts, o)
				continue
			}
			k, err := strconv.Atoi(val)
			if err != nil || k < 1 || k > v.NumSymmetries() {
				return nil, fmt.Errorf("player %q: orientations %q: want 1..%d (the symmetries of %s)", spec, val, v.NumSymmetries(), v.Name)
			}
			eval.Orientations = k
		}
		s, suffix, err := search(ModelSettings(v, n), n, searchOpts)
		if err != nil {
			return nil, err
		}
		if eval.Orientations > 0 {
			suffix += fmt.Sprintf(",orientations=%d", eval.Orientations)
		}
		ck, name, err := loadModel(path, v)
		if err != nil {
			return nil, fmt.Errorf("player %q: %w", spec, err)
		}
		eval.Net = ck.Net
		p := NewSearchPlayer("model:"+name+suffix, s, eval)
		p.MoveTime = set.MoveTime
		return p, nil
	}
	return nil, fmt.Errorf("player %q: unknown; the players are:\n%s", spec, SpecHelp)
}

// splitOptions cuts a player spec at its first comma: what comes before,
// and the ,K=V options after it (none without a comma).
func splitOptions(spec string) (string, []string) {
	head, opts, found := strings.Cut(spec, ",")
	if !found {
		return head, nil
	}
	return head, strings.Split(opts, ",")
}

// SearchSpec is the settings of a search player with n visits, base with
// opts (",K=V" options, see SearchOptions) laid over it, and the suffix of
// its name: "@N" and then the options as given ("@400,root=puct"). The
// settings are validated (mcts.Settings.Validate: n at most mcts.MaxVisits,
// also on a placing move).
func SearchSpec(base mcts.Settings, n int, opts []string) (mcts.Settings, string, error) {
	base.Simulations = n
	s, err := SearchOptions(base, opts)
	if err != nil {
		return s, "", err
	}
	if err := s.Validate(); err != nil {
		return s, "", err
	}
	suffix := fmt.Sprintf("@%d", n)
	if len(opts) > 0 {
		suffix += "," + strings.Join(opts, ",")
	}
	return s, suffix, nil
}

// optionKey and optionValue are what a search option's key and value may
// hold: enough for the settings' names and numbers, too little to be
// other YAML.
var optionKey, optionValue = regexp.MustCompile(`^[a-z][a-z_]*$`), regexp.MustCompile(`^[A-Za-z0-9._+-]+$`)

// SearchOptions lays options ("c_puct=1", "root=gumbel": the search
// settings' names in a run config) over s, and checks the result. The
// visits are a spec's @N, not an option.
func SearchOptions(s mcts.Settings, opts []string) (mcts.Settings, error) {
	if len(opts) == 0 {
		return s, nil
	}
	var doc strings.Builder
	for _, o := range opts {
		k, val, _ := strings.Cut(o, "=")
		switch {
		case !optionKey.MatchString(k) || !optionValue.MatchString(val):
			return s, fmt.Errorf("search option %q: want KEY=VALUE, a search setting of a run config (c_puct=1, root=gumbel, ...)", o)
		case k == "simulations":
			return s, fmt.Errorf("search option %q: give the visits as @N", o)
		case !slices.Contains(searchKeys, k):
			return s, fmt.Errorf("search option %q: no search setting %s; the settings: %s", o, k, strings.Join(searchKeys, ", "))
		}
		fmt.Fprintf(&doc, "%s: %s\n", k, val)
	}
	dec := yaml.NewDecoder(strings.NewReader(doc.String()))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("search options %s: %w", strings.Join(opts, ","), err)
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("search options %s: %w", strings.Join(opts, ","), err)
	}
	return s, nil
}

// searchKeys is the names of the search settings in a run config (the
// YAML keys of mcts.Settings) but the visits, read once.
var searchKeys = settingKeys()

func settingKeys() []string {
	var keys []string
	t := reflect.TypeFor[mcts.Settings]()
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "simulations" {
			keys = append(keys, k)
		}
	}
	return keys
}

// BuiltinModel is the model:PATH of the model that comes with millzero
// (package builtin); a checkpoint file of that name is ./default.
const BuiltinModel = "default"

// loadModel loads the checkpoint of a model: player, the built-in model
// for BuiltinModel, and its player name.
func loadModel(path string, v *engine.Variant) (*model.Checkpoint, string, error) {
	if path != BuiltinModel {
		ck, err := model.LoadCheckpointFor(path, v)
		return ck, strings.TrimSuffix(filepath.Base(path), ".safetensors"), err
	}
	ck, err := builtin.Nine()
	if err == nil {
		err = ck.CheckVariant(v)
	}
	if err != nil {
		return nil, "", fmt.Errorf("the built-in model: %w", err)
	}
	return ck, BuiltinModel, nil
}
