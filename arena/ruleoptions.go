package arena

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/millzero/millzero/engine"
)

// ruleOption is one of Sanmill's rule options and the field of
// engine.Spec it sets. A check is read as 0 (false) or 1 (true).
type ruleOption struct {
	name     string
	check    bool
	min, max int
	get      func(s *engine.Spec) int
	set      func(s *engine.Spec, n int) error
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ruleOptions are the rule options, in the order Sanmill's clients send
// them. Sanmill counts its N-move rules in plies (its move history holds
// one entry per ply), as our draw counters do.
func ruleOptions() []ruleOption {
	return []ruleOption{
		{name: "PiecesCount", min: 3, max: engine.MaxPoints, // pieces each player starts with
			get: func(s *engine.Spec) int { return s.Pieces },
			set: func(s *engine.Spec, n int) error { s.Pieces = n; return nil }},
		{name: "HasDiagonalLines", check: true, // the board's diagonals: spokes both (square), diagonals (3x3)
			get: hasDiagonals, set: setDiagonals},
		{name: "MayFly", check: true, // a player at fly_at pieces flies; true on a variant without flying sets fly_at 3 (Sanmill's FlyPieceCount)
			get: func(s *engine.Spec) int { return b2i(s.FlyAt > 0) },
			set: func(s *engine.Spec, n int) error {
				if n == 0 {
					s.FlyAt = 0
				} else if s.FlyAt == 0 {
					s.FlyAt = 3
				}
				return nil
			}},
		{name: "NMoveRule", min: 0, max: 60000, // no_capture_draw: plies without a removal; 0 off
			get: func(s *engine.Spec) int { return s.NoCaptureDraw },
			set: func(s *engine.Spec, n int) error { s.NoCaptureDraw = n; return nil }},
		{name: "EndgameNMoveRule", min: 0, max: 60000, // endgame_draw: plies with both players at 3 pieces; 0 off
			get: func(s *engine.Spec) int { return s.EndgameDraw },
			set: func(s *engine.Spec, n int) error { s.EndgameDraw = n; return nil }},
		{name: "ThreefoldRepetitionRule", check: true, // repetition_draw 3 (true) or 0 (false)
			get: func(s *engine.Spec) int { return b2i(s.RepetitionDraw > 0) },
			set: func(s *engine.Spec, n int) error { s.RepetitionDraw = 3 * n; return nil }},
		{name: "MayRemoveFromMillsAlways", check: true, // remove_from_mills_always
			get: func(s *engine.Spec) int { return b2i(s.RemoveFromMillsAlways) },
			set: func(s *engine.Spec, n int) error { s.RemoveFromMillsAlways = n == 1; return nil }},
	}
}

// hasDiagonals reads HasDiagonalLines off a board: a square board's spokes
// other than the midpoints' are diagonal, a 3x3 board's diagonals are, the
// ring board has none.
func hasDiagonals(s *engine.Spec) int {
	switch s.Board.Kind {
	case "square":
		return b2i(s.Board.Spokes != "midpoints")
	case "grid3":
		return b2i(s.Board.Diagonals)
	}
	return 0
}

func setDiagonals(s *engine.Spec, n int) error {
	if hasDiagonals(s) == n {
		return nil
	}
	switch b := &s.Board; {
	case b.Kind == "grid3":
		b.Diagonals = n == 1
	case b.Kind == "square" && n == 1:
		b.Spokes = "both"
	case b.Kind == "square" && b.Spokes == "both":
		b.Spokes = "midpoints"
	case b.Kind == "square":
		return fmt.Errorf("the %s board's spokes are its diagonals: it has no board without them", b.Spokes)
	default:
		return fmt.Errorf("the %s board has no diagonal lines", b.Kind)
	}
	return nil
}

// RuleOptionNames are the names of the rule options, as Sanmill's engine
// spells them.
func RuleOptionNames() []string {
	var names []string
	for _, r := range ruleOptions() {
		names = append(names, r.name)
	}
	return names
}

// parseRule reads the value of rule option r: true or false for a check, a
// whole number in min..max for a spin.
func (r ruleOption) parse(value string) (int, error) {
	if r.check {
		switch strings.ToLower(value) {
		case "true":
			return 1, nil
		case "false":
			return 0, nil
		}
		return 0, fmt.Errorf("setoption %s %q: want true or false", r.name, value)
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < r.min || n > r.max {
		return 0, fmt.Errorf("setoption %s %q: want a whole number in %d..%d", r.name, value, r.min, r.max)
	}
	return n, nil
}

// EngineOption is one setoption: a name and a value.
type EngineOption struct {
	Name, Value string
}

// RuleValues are the rule options that describe v's rules, in the order
// Sanmill's clients send them: what the arena's engine players send before
// a game.
func RuleValues(v *engine.Variant) []EngineOption {
	var out []EngineOption
	for _, r := range ruleOptions() {
		n := r.get(&v.Spec)
		val := strconv.Itoa(n)
		if r.check {
			val = strconv.FormatBool(n == 1)
		}
		out = append(out, EngineOption{r.name, val})
	}
	return out
}

// RuleOption checks a setoption of a rule option: known says whether name
// (any case) is one, canonical is its name as RuleOptionNames spells it,
// and err says why value does not fit it.
func RuleOption(name, value string) (canonical string, known bool, err error) {
	for _, r := range ruleOptions() {
		if strings.EqualFold(r.name, name) {
			_, err := r.parse(value)
			return r.name, true, err
		}
	}
	return "", false, nil
}

// ApplyRules is v with the rule options of rules (values by the canonical
// names, as RuleOptionNames spells them): v itself when they change
// nothing, else the variant of v's spec with their fields set, which keeps
// v's name (a model of v plays it, when the board's shape is the same) and
// says the options in its description.
func ApplyRules(v *engine.Variant, rules map[string]string) (*engine.Variant, error) {
	spec := v.Spec
	var said []string
	for _, r := range ruleOptions() {
		value, ok := rules[r.name]
		if !ok {
			continue
		}
		n, err := r.parse(value)
		if err != nil {
			return nil, err
		}
		if r.get(&spec) == n {
			continue
		}
		if err := r.set(&spec, n); err != nil {
			return nil, fmt.Errorf("%s %s on variant %s: %w", r.name, value, v.Name, err)
		}
		said = append(said, r.name+" "+value)
	}
	if len(said) == 0 {
		return v, nil
	}
	spec.Description = fmt.Sprintf("%s, with %s", v.Description, strings.Join(said, ", "))
	nv, err := engine.New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(said, ", "), err)
	}
	return nv, nil
}

// RuleOptionLines are the protocol's `option` lines (without "option ")
// of the rule options, their defaults v's rules.
func RuleOptionLines(v *engine.Variant) []string {
	var lines []string
	for _, r := range ruleOptions() {
		n := r.get(&v.Spec)
		if r.check {
			lines = append(lines, fmt.Sprintf("name %s type check default %t", r.name, n == 1))
		} else {
			lines = append(lines, fmt.Sprintf("name %s type spin default %d min %d max %d", r.name, n, r.min, r.max))
		}
	}
	return lines
}
