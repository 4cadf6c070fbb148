// Package runconfig is a run's config: the run.yaml schema (Config),
// every default defined once (the embedded configs/runs/nine.yaml, over
// which a config file lays what differs), its checks, the settings that
// may change between generations, the variant of a run, and the endgame
// tables its tablebase key names. The loop, play, bench and the commands
// read a run's config here without linking the loop.
package runconfig

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/configs"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
	trainconfig "github.com/millzero/millzero/train/config"
)

// DefaultConfigName is the embedded config a run starts from: every
// default of a run is defined there, once, and a config file sets only what
// differs.
const DefaultConfigName = "runs/nine.yaml"

// Config is a run's whole configuration: configs/runs/nine.yaml names
// and comments every field.
type Config struct {
	Variant  string             `yaml:"variant"`
	Model    model.Config       `yaml:"model"`
	Train    trainconfig.Config `yaml:"train"`
	SelfPlay selfplay.Settings  `yaml:"selfplay"`
	Loop     LoopConfig         `yaml:"loop"`
	Gate     GateConfig         `yaml:"gate"`
	Strength StrengthConfig     `yaml:"strength"`

	// Tablebase is a directory of endgame tables of the variant (millzero
	// tablebase build), local on every machine that plays; "auto" the
	// tables of every material up to AutoTablePieces pieces in the user's
	// cache directory, built there once (seconds); "" plays without.
	// selfplay.tables says what self-play does with them; the loop's
	// strength benchmark adds the table oracle.
	Tablebase string `yaml:"tablebase"`

	// VariantSpec is the variant's resolved spec, which run.yaml records:
	// a run rebuilds its variant from it, never again from Variant (a
	// name, or a variant file that may change or go). LoadConfig sets it
	// from Variant when the config does not give it, as in configs and
	// run.yaml files written before specs travelled.
	VariantSpec *engine.Spec `yaml:"variant_spec,omitempty"`
}

// LoopConfig is the shape of a generation and the run's budget.
type LoopConfig struct {
	Generations       int     `yaml:"generations"`        // stop after this many generations; 0 = no limit
	Hours             float64 `yaml:"hours"`              // stop after this much wall time of one invocation; 0 = no limit
	RunHours          float64 `yaml:"run_hours"`          // stop once the run has this many hours in all, every invocation's (metrics/generations.csv's hours); 0 = no limit
	Games             int     `yaml:"games"`              // self-play games per generation
	Steps             int     `yaml:"steps"`              // training steps per generation
	WindowGenerations int     `yaml:"window_generations"` // train on the games of the newest this many generations
	WindowSamples     int     `yaml:"window_samples"`     // and at most this many newest positions
	WindowGrowth      float64 `yaml:"window_growth"`      // KataGo's rule: at generation g the window is W(1 + b((g/W)^0.75 - 1)/0.75) generations, W window_generations, b this; 0 fixed at W (see WindowAt)
	Shuffle           int     `yaml:"shuffle"`            // shuffle buffer, in samples
	ValFraction       float64 `yaml:"val_fraction"`       // fraction of games held out for validation
	ValBatches        int     `yaml:"val_batches"`        // validation batches per generation (0 = none)
	Seed              uint64  `yaml:"seed"`               // seeds self-play, training order and openings
	// Reanalyse searches older positions of the window again with the
	// newest best model after each generation's self-play: this share of
	// the positions the generation's games recorded, drawn from the
	// window's earlier generations, their fresh targets written beside the
	// games (selfplay.Reanalyse); 0 off.
	Reanalyse float64 `yaml:"reanalyse"`
	// Grow widens and deepens the network during the run: from each
	// step's generation on, the loop trains a network of the step's trunk,
	// grown from the last checkpoint as the same function (model.Grow).
	// A network never shrinks: a trunk smaller than the checkpoint's in
	// either dimension keeps the checkpoint's there.
	Grow []GrowStep `yaml:"grow"`
	// Visits deepens self-play's full searches as the run matures: from
	// each step's generation on, a full search (the recorded moves') spends
	// the step's simulations instead of selfplay.search.simulations. The
	// fast searches keep fast_simulations.
	Visits []VisitStep `yaml:"visits"`
}

// VisitStep is one change of the full searches' visits (LoopConfig.Visits).
type VisitStep struct {
	Generation  int `yaml:"generation"`  // the first generation whose games search so
	Simulations int `yaml:"simulations"` // visits of a full search from then on
}

// GrowStep is one widening of the network (LoopConfig.Grow).
type GrowStep struct {
	Generation int `yaml:"generation"` // the first generation trained at this trunk
	Width      int `yaml:"width"`      // units of every hidden layer from then on
	Blocks     int `yaml:"blocks"`     // residual blocks from then on
}

// WindowAt is the window, in generations, of the candidate trained at
// generation g: window_generations, grown with window_growth by KataGo's
// rule (its samples, here generations, of which a run makes about as many
// positions each: c(1 + b((N/c)^a - 1)/a), a 0.75, b the growth, c the
// starting window), so that the window widens as the run's data does,
// ever slower. window_samples still caps it.
func (l LoopConfig) WindowAt(g int) int {
	w := l.WindowGenerations
	if l.WindowGrowth <= 0 || g <= w {
		return w
	}
	const a = 0.75
	x := float64(g) / float64(w)
	return int(math.Round(float64(w) * (1 + l.WindowGrowth*(math.Pow(x, a)-1)/a)))
}

// TrunkAt is the trunk the loop trains at generation g: the model's,
// widened by every grow step of generation g or earlier.
func (c *Config) TrunkAt(g int) model.Config {
	m := c.Model
	for _, s := range c.Loop.Grow {
		if s.Generation <= g {
			m = model.Config{Width: s.Width, Blocks: s.Blocks, Features: c.Model.Features, Orientation: c.Model.Orientation, Symmetric: c.Model.Symmetric, Kind: c.Model.Kind}
		}
	}
	return m
}

// SelfPlayAt is the self-play of generation g's games: selfplay's
// settings with the full searches' visits of every loop.visits step of
// generation g or earlier.
func (c *Config) SelfPlayAt(g int) selfplay.Settings {
	s := c.SelfPlay
	for _, v := range c.Loop.Visits {
		if v.Generation <= g {
			s.Search.Simulations = v.Simulations
		}
	}
	return s
}

// GateConfig is the arena of the loop: candidate against best, and the
// ladder of reference players.
type GateConfig struct {
	Simulations  int      `yaml:"simulations"`    // visits per move of both models
	MaxGames     int      `yaml:"max_games"`      // most games of candidate vs best
	OpeningPlies int      `yaml:"opening_plies"`  // random legal plies before the players take over
	Elo0         float64  `yaml:"elo0"`           // SPRT H0, logistic Elo
	Elo1         float64  `yaml:"elo1"`           // SPRT H1, logistic Elo
	Alpha        float64  `yaml:"alpha"`          // false-accept rate
	Beta         float64  `yaml:"beta"`           // false-reject rate
	AcceptLean   bool     `yaml:"accept_leaning"` // when max_games end undecided, accept if the LLR leans to H1 (> 0) instead of rejecting
	Ladder       []string `yaml:"ladder"`         // reference players every new best meets: random, alphabeta:N
	LadderPairs  int      `yaml:"ladder_pairs"`   // pairs of games against each
}

// SPRT is the gate's test.
func (g GateConfig) SPRT() rating.SPRT {
	return rating.SPRT{Elo0: g.Elo0, Elo1: g.Elo1, Alpha: g.Alpha, Beta: g.Beta}
}

// LoadConfig reads the embedded default and lays the file at path (if
// any; a file, or an embedded config's name such as three-test) over it;
// every key must be known and every value valid. It returns the config and
// its resolved YAML.
func LoadConfig(path string) (Config, []byte, error) {
	var text []byte
	if path != "" {
		var err error
		if text, err = readConfigFile(path); err != nil {
			return Config{}, nil, err
		}
	}
	return loadConfig(path, text)
}

// loadConfig is LoadConfig of the text read from path ("" and nil: the
// default alone).
func loadConfig(path string, text []byte) (Config, []byte, error) {
	var c Config
	base, err := configs.Runs.ReadFile(DefaultConfigName)
	if err != nil {
		return c, nil, err
	}
	if err := decodeStrict(base, &c); err != nil {
		return c, nil, fmt.Errorf("embedded config %s: %w", DefaultConfigName, err)
	}
	if path != "" {
		if err := decodeStrict(text, &c); err != nil {
			return c, nil, fmt.Errorf("config %s: %w", path, err)
		}
	}
	where := "config " + path
	if path == "" {
		where = "embedded config " + DefaultConfigName
	}
	if c.VariantSpec == nil {
		v, err := engine.LoadNameOrFile(c.Variant)
		if err != nil {
			return c, nil, fmt.Errorf("%s: variant: %w", where, err)
		}
		spec := v.Spec
		spec.Base = "" // resolved: the spec stands alone
		c.VariantSpec = &spec
	}
	if err := c.validate(); err != nil {
		return c, nil, fmt.Errorf("%s: %w", where, err)
	}
	out, err := yaml.Marshal(&c)
	return c, out, err
}

// LoadRunConfig reads a run's stored run.yaml as LoadConfig does, except
// that a setting added after the file was written keeps the meaning the
// run had then, whatever today's default is: see runBefore.
func LoadRunConfig(path string) (Config, []byte, error) {
	text, err := readConfigFile(path)
	if err != nil {
		return Config{}, nil, err
	}
	c, out, err := loadConfig(path, text)
	if err != nil {
		return c, out, err
	}
	var stored map[string]any
	if err := yaml.Unmarshal(text, &stored); err != nil {
		return c, out, fmt.Errorf("config %s: %w", path, err)
	}
	changed := false
	for _, b := range runBefore {
		if !hasKey(stored, b.key) {
			changed = b.set(&c) || changed
		}
	}
	if changed {
		out, err = yaml.Marshal(&c)
	}
	return c, out, err
}

// VariantOf is the variant of the run in the directory dir, rebuilt from
// the spec its run.yaml records.
func VariantOf(dir store.Dir) (*engine.Variant, error) {
	rc, _, err := LoadRunConfig(dir.Config())
	if err != nil {
		return nil, err
	}
	return rc.LoadVariant()
}

// runBefore lists the settings whose key came after runs were stored and
// whose default is not what such a run did: a run.yaml without the key
// (every run.yaml the loop writes has every key of its build) is of a run
// begun before it, which resumes as it was made. set puts the old
// behaviour into c and reports whether that changed c. A key added with
// the old behaviour as its default needs no entry until the default
// changes; that change adds one.
var runBefore = []struct {
	key string // dotted YAML path
	set func(c *Config) bool
}{
	{"model.features", func(c *Config) bool { return setTo(&c.Model.Features, model.EncoderBoard) }},            // the only encoder there was
	{"model.kind", func(c *Config) bool { return setTo(&c.Model.Kind, model.KindMLP) }},                         // the only network there was
	{"selfplay.search.root", func(c *Config) bool { return setTo(&c.SelfPlay.Search.Root, mcts.RootPUCT) }},     // before the Gumbel root
	{"selfplay.search.contempt", func(c *Config) bool { return setTo(&c.SelfPlay.Search.Contempt, 0.0) }},       // draws worth a draw
	{"train.value_mix", func(c *Config) bool { return setTo(&c.Train.ValueMix, 0.0) }},                          // the outcome alone
	{"train.weight_ema", func(c *Config) bool { return setTo(&c.Train.WeightEMA, 0.0) }},                        // no averaged weights
	{"loop.window_growth", func(c *Config) bool { return setTo(&c.Loop.WindowGrowth, 0.0) }},                    // a fixed window
	{"tablebase", func(c *Config) bool { return setTo(&c.Tablebase, "") }},                                      // no tables
	{"selfplay.opening_starts", func(c *Config) bool { return setTo(&c.SelfPlay.OpeningStarts, 0.0) }},          // every game from the start
	{"selfplay.search.min_q_spread", func(c *Config) bool { return setTo(&c.SelfPlay.Search.MinQSpread, 0.0) }}, // any spread stretched to 0..1
	{"strength.classic", func(c *Config) bool { // the alpha-beta depths alone
		had := len(c.Strength.Classic) > 0
		c.Strength.Classic = nil
		return had
	}},
}

// setTo sets *p to v and reports whether that changed it.
func setTo[T comparable](p *T, v T) bool {
	if *p == v {
		return false
	}
	*p = v
	return true
}

// hasKey reports whether the YAML document m holds the dotted key.
func hasKey(m map[string]any, key string) bool {
	first, rest, nested := strings.Cut(key, ".")
	v, ok := m[first]
	if !ok || !nested {
		return ok
	}
	sub, ok := v.(map[string]any)
	return ok && hasKey(sub, rest)
}

// readConfigFile reads a config from disk, or an embedded one named
// "runs/NAME.yaml" or just "NAME" (e.g. three-test).
func readConfigFile(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err == nil {
		return text, nil
	}
	name := strings.TrimSuffix(strings.TrimPrefix(path, "runs/"), ".yaml")
	if emb, e2 := configs.Runs.ReadFile("runs/" + name + ".yaml"); e2 == nil && !strings.Contains(name, "/") {
		return emb, nil
	}
	return nil, fmt.Errorf("config %s: %w", path, err)
}

func decodeStrict(text []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		return err
	}
	return nil
}

// LoadVariant builds the config's variant from its resolved spec
// (variant_spec); a config not resolved by LoadConfig, without one, loads
// Variant: a name, or a variant file's path.
func (c *Config) LoadVariant() (*engine.Variant, error) {
	if c.VariantSpec == nil {
		return engine.LoadNameOrFile(c.Variant)
	}
	v, err := engine.New(*c.VariantSpec)
	if err != nil {
		return nil, fmt.Errorf("variant_spec: %w", err)
	}
	return v, nil
}

// CheckSameVariant is nil when config other (whose is, e.g., "--config
// FILE") plays this config's variant, else an error naming every
// difference of the specs.
func (c *Config) CheckSameVariant(other *Config, whose string) error {
	mine, err := c.LoadVariant()
	if err != nil {
		return err
	}
	theirs, err := other.LoadVariant()
	if err != nil {
		return fmt.Errorf("%s: %w", whose, err)
	}
	return engine.CheckSame(theirs, whose, mine, "this run")
}

// Decision is the gate's verdict on res: "ungated" when there is no gate
// (max_games 0: every candidate becomes the best, as in KataGo and Lc0);
// "accepted" when the SPRT accepted the candidate; "accepted-leaning" when
// the games ran out undecided with the evidence on the candidate's side
// (LLR > 0) and accept_leaning is set; else "rejected".
func (g GateConfig) Decision(res arena.GateResult) string {
	switch {
	case g.MaxGames == 0:
		return "ungated"
	case res.Accepted():
		return "accepted"
	case g.AcceptLean && res.Decision == rating.Continue && res.LLR > 0:
		return "accepted-leaning"
	}
	return "rejected"
}

// Why says why the gate decided as Decision does, in words and numbers:
// which bound of the SPRT the log-likelihood ratio crossed, or that the
// game limit came first.
func (g GateConfig) Why(res arena.GateResult) string {
	bounds := fmt.Sprintf("LLR %.2f, bounds [%.2f, %.2f]", res.LLR, res.Lower, res.Upper)
	switch g.Decision(res) {
	case "ungated":
		return "no gate: every candidate becomes the best"
	case "accepted":
		return fmt.Sprintf("better than the best by the SPRT (%s)", bounds)
	case "accepted-leaning":
		return fmt.Sprintf("the game limit (%d) reached undecided, leaning better (%s)", g.MaxGames, bounds)
	}
	if res.Decision == rating.AcceptH0 {
		return fmt.Sprintf("no better than the best by the SPRT (%s)", bounds)
	}
	return fmt.Sprintf("the game limit (%d) reached undecided (%s)", g.MaxGames, bounds)
}

// GateSearch is the search of the gate's and the ladder's models: the run's
// self-play search with gate.simulations visits, no root noise, the most
// visited action.
func (c *Config) GateSearch() mcts.Settings {
	return arena.MatchSettings(c.SelfPlay.Search, c.Gate.Simulations)
}
