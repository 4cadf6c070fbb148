package runconfig

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// fixedSettings are the settings of a run's config that may not change
// once it has games and checkpoints, by key prefix, with the reason.
var fixedSettings = []struct{ prefix, why string }{
	{"variant", "the run's games and checkpoints are of its variant; start a new --run"},
	{"model.", "the run's checkpoints have its network shape; grow it with loop.grow (the same function, then trained on), or start a new --run"},
	{"train.optimizer", "the run's checkpoints hold the optimizer's state, which another optimizer cannot resume"},
}

// changeableSettings are the settings under a fixed prefix that may change
// all the same: the orientation a network sees boards in is not its shape
// (the next candidate takes it up with the same weights).
var changeableSettings = []string{"model.orientation"}

// Reconfigure lays the config file at path (as LoadConfig reads it) over
// an existing run's resolved config stored, and returns the new config,
// its YAML and the settings that changed ("key: old -> new"). A change to
// a setting that may not change (fixedSettings) is an error naming each
// one with the reason; budgets, simulation counts, the learning rate, the
// window and the other settings of a generation may change.
func Reconfigure(stored []byte, path string) (Config, []byte, []string, error) {
	var c Config
	if err := decodeStrict(stored, &c); err != nil {
		return c, nil, nil, fmt.Errorf("run.yaml: %w", err)
	}
	text, err := readConfigFile(path)
	if err != nil {
		return c, nil, nil, err
	}
	stored0 := c
	if err := decodeStrict(text, &c); err != nil {
		return c, nil, nil, fmt.Errorf("config %s: %w", path, err)
	}
	if err := sameVariantIfNamed(&stored0, text, path); err != nil {
		return c, nil, nil, err
	}
	if err := c.validate(); err != nil {
		return c, nil, nil, fmt.Errorf("config %s over the run's run.yaml: %w", path, err)
	}
	out, err := yaml.Marshal(&c)
	if err != nil {
		return c, nil, nil, err
	}
	changes, err := configChanges(stored, out)
	if err != nil {
		return c, nil, nil, err
	}
	var refused []string
	for _, ch := range changes {
		for _, f := range fixedSettings {
			if strings.HasPrefix(ch, f.prefix) && !slices.ContainsFunc(changeableSettings, func(k string) bool { return strings.HasPrefix(ch, k+":") }) {
				refused = append(refused, fmt.Sprintf("%s (%s)", ch, f.why))
			}
		}
	}
	if len(refused) > 0 {
		return c, nil, nil, fmt.Errorf("config %s changes what a run cannot change: %s", path, strings.Join(refused, "; "))
	}
	return c, out, changes, nil
}

// configChanges lists the settings whose values differ between two
// resolved configs, as "key: old -> new", keys dotted and sorted.
func configChanges(old, new []byte) ([]string, error) {
	a, b := map[string]string{}, map[string]string{}
	for _, x := range []struct {
		text []byte
		into map[string]string
	}{{old, a}, {new, b}} {
		var m map[string]any
		if err := yaml.NewDecoder(bytes.NewReader(x.text)).Decode(&m); err != nil {
			return nil, fmt.Errorf("compare configs: %w", err)
		}
		flatten("", m, x.into)
	}
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s: %s -> %s", k, orNone(a[k]), orNone(b[k])))
		}
	}
	return slices.Clip(out), nil
}

// flatten puts the leaves of m into out under dotted keys.
func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			flatten(prefix+k+".", sub, out)
			continue
		}
		out[prefix+k] = flowText(v)
	}
}

// flowText is a leaf as YAML's flow style writes it, the way a config file
// gives a list: [{generation: 100, simulations: 192}], keys in order.
func flowText(v any) string {
	switch t := v.(type) {
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = flowText(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		for i, k := range keys {
			keys[i] = k + ": " + flowText(t[k])
		}
		return "{" + strings.Join(keys, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// CheckBeforeGames finds what fails only when settings meet, before the
// first game rather than in the generation that needs it: the openings of
// the gate's and the ladder's matches, and the arena's search.
func CheckBeforeGames(c *Config, v *engine.Variant) error {
	if err := c.Train.CheckVariant(v); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	g := c.Gate
	for _, m := range []struct {
		what  string
		pairs int
	}{{"gate: max_games", (g.MaxGames + 1) / 2}, {"gate: ladder_pairs", g.LadderPairs}} {
		if m.pairs == 0 {
			continue
		}
		if _, err := arena.Openings(v, m.pairs, g.OpeningPlies, c.Loop.Seed); err != nil {
			return fmt.Errorf("%s, opening_plies %d: %w", m.what, g.OpeningPlies, err)
		}
	}
	s := c.GateSearch()
	if err := s.Validate(); err != nil {
		return fmt.Errorf("gate: the arena's search: %w", err)
	}
	return nil
}

// sameVariantIfNamed refuses a config file that names the run's variant
// (the same name or file, without a spec) whose rules now differ from the
// run's stored spec, naming each difference: a variant file may have
// changed since the run began. A file that names no variant keeps the
// run's; one that names another is refused as a change (fixedSettings).
func sameVariantIfNamed(stored *Config, text []byte, path string) error {
	var named struct {
		Variant     *string    `yaml:"variant"`
		VariantSpec *yaml.Node `yaml:"variant_spec"`
	}
	if err := yaml.Unmarshal(text, &named); err != nil || named.Variant == nil || named.VariantSpec != nil || *named.Variant != stored.Variant {
		return nil // a decoding error is decodeStrict's to report; another variant or a spec is refused as a change
	}
	v, err := engine.LoadNameOrFile(*named.Variant)
	if err != nil {
		return fmt.Errorf("config %s: variant: %w", path, err)
	}
	spec := v.Spec
	spec.Base = ""
	if err := stored.CheckSameVariant(&Config{Variant: *named.Variant, VariantSpec: &spec}, "--config"); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}
