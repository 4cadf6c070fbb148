package uci

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// EngineOptions are the settings of a Server that `setoption` changes: our
// own (Variant, Model, Run, Visits, Threads, Seed), the protocol's
// (UCI_ShowWDL, Ponder) and the variant's rules by the option names of
// Sanmill's engine (see arena.RuleOptionNames).
type EngineOptions struct {
	Variant string // the variant's name; "" the model's, or nine
	Model   string // a checkpoint file; "" none
	Run     string // a run directory (or URL) whose best model plays; "" none
	Visits  int    // search visits of a go without limits
	Threads int    // search threads, 1..MaxThreads: each its own tree of the position (root parallelism)
	Seed    uint64 // seeds each game's player, with the game's number
	ShowWDL bool   // UCI_ShowWDL: info lines carry wdl W D L (two players)
	Ponder  bool   // Ponder: the client may ponder; bestmove names the expected reply (bestmove M ponder R)

	// Rules are the rule options set, by their canonical names (as
	// arena.RuleOptionNames spells them), applied over the variant by ApplyRules.
	// Set copies the map before changing it, so copies of EngineOptions
	// never share a change.
	Rules map[string]string
}

// MaxThreads is the most search threads a Server takes.
const MaxThreads = 64

// ownOptions are our own options and the protocol's; sims and
// simulations also name Visits.
const ownOptions = "Variant, Model, Run, Visits, Threads, Seed, UCI_ShowWDL, Ponder"

// ProtocolOption reports whether the option name (any case) changes only
// how the server answers (UCI_ShowWDL, Ponder), not the engine it plays.
func ProtocolOption(name string) bool {
	switch strings.ToLower(name) {
	case "uci_showwdl", "ponder":
		return true
	}
	return false
}

// parseCheck reads the value of a check option: true or false.
func parseCheck(name, value string) (bool, error) {
	switch strings.ToLower(value) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("setoption %s %q: want true or false", name, value)
}

// Set sets the option name (any case) to value, or says why the value is
// bad and changes nothing. Whether the options make an engine is Load's to
// say (the variant and model exist, the rules fit the board).
func (o *EngineOptions) Set(name, value string) error {
	var err error
	switch strings.ToLower(name) {
	case "variant":
		o.Variant = value
	case "model":
		o.Model = value
	case "run":
		o.Run = value
	case "visits", "sims", "simulations":
		n, perr := strconv.Atoi(value)
		set := mcts.DefaultSettings()
		set.Simulations = n
		if verr := set.Validate(); perr != nil || verr != nil {
			return fmt.Errorf("setoption %s %q: want a whole number in 1..%d (the most visits a move may take)", name, value, mcts.MaxVisits)
		}
		o.Visits = n
	case "uci_showwdl":
		o.ShowWDL, err = parseCheck("UCI_ShowWDL", value)
	case "ponder":
		o.Ponder, err = parseCheck("Ponder", value)
	case "threads":
		n, perr := strconv.Atoi(value)
		if perr != nil || n < 1 || n > MaxThreads {
			return fmt.Errorf("setoption Threads %q: want a whole number in 1..%d", value, MaxThreads)
		}
		o.Threads = n
	case "seed":
		n, perr := strconv.ParseUint(value, 10, 64)
		if perr != nil {
			return fmt.Errorf("setoption Seed %q: want a whole number 0 or more", value)
		}
		o.Seed = n
	default:
		canonical, known, err := arena.RuleOption(name, value)
		if err != nil {
			return err
		}
		if !known {
			return fmt.Errorf("setoption: unknown option %q (the options: %s, %s)", name,
				ownOptions, strings.Join(arena.RuleOptionNames(), ", "))
		}
		rules := maps.Clone(o.Rules)
		if rules == nil {
			rules = map[string]string{}
		}
		rules[canonical] = value
		o.Rules = rules
		return nil
	}
	return err
}

// ApplyRules is v with the rule options of o (arena.ApplyRules).
func (o EngineOptions) ApplyRules(v *engine.Variant) (*engine.Variant, error) {
	return arena.ApplyRules(v, o.Rules)
}

// uciOptions are the `option` lines (without "option ") of o, the rule
// options' defaults those of v; v nil lists our own options only.
func (o EngineOptions) uciOptions(v *engine.Variant) []string {
	empty := func(s string) string {
		if s == "" {
			return "<empty>"
		}
		return s
	}
	lines := []string{
		"name Variant type string default " + empty(o.Variant),
		"name Model type string default " + empty(o.Model),
		"name Run type string default " + empty(o.Run),
		fmt.Sprintf("name Visits type spin default %d min 1 max %d", o.Visits, mcts.MaxVisits),
		fmt.Sprintf("name Threads type spin default %d min 1 max %d", max(o.Threads, 1), MaxThreads),
		fmt.Sprintf("name Seed type spin default %d min 0 max 9223372036854775807", o.Seed),
		fmt.Sprintf("name Ponder type check default %t", o.Ponder),
		fmt.Sprintf("name UCI_ShowWDL type check default %t", o.ShowWDL),
	}
	if v == nil {
		return lines
	}
	return append(lines, arena.RuleOptionLines(v)...)
}
