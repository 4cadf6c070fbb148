package runconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/configs"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
)

func TestLoadConfig_EveryEmbeddedConfigIsValid(t *testing.T) {
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Variant != "nine" {
		t.Fatalf("default variant %q", c.Variant)
	}
	entries, err := configs.Runs.ReadDir("runs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, _, err := LoadConfig(strings.TrimSuffix(e.Name(), ".yaml")); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
	}
}

func TestGateDecision_UndecidedLeaningIsAnOption(t *testing.T) {
	cases := []struct {
		d       rating.Decision
		llr     float64
		leaning bool
		want    string
	}{
		{rating.AcceptH1, 3, false, "accepted"},
		{rating.AcceptH0, -3, true, "rejected"},
		{rating.Continue, 0.5, false, "rejected"},
		{rating.Continue, 0.5, true, "accepted-leaning"},
		{rating.Continue, -0.5, true, "rejected"},
	}
	for _, c := range cases {
		got := GateConfig{MaxGames: 80, AcceptLean: c.leaning}.Decision(arena.GateResult{Decision: c.d, LLR: c.llr})
		if got != c.want {
			t.Errorf("decision %v, LLR %v, accept_leaning %v: %q, want %q", c.d, c.llr, c.leaning, got, c.want)
		}
	}
}

func TestGateWhy_SaysWhichBoundOrTheGameLimitDecided(t *testing.T) {
	cases := []struct {
		d       rating.Decision
		llr     float64
		leaning bool
		want    string
	}{
		{rating.AcceptH1, 3, false, "better than the best by the SPRT (LLR 3.00, bounds [-2.94, 2.94])"},
		{rating.AcceptH0, -3, false, "no better than the best by the SPRT"},
		{rating.Continue, 0.72, false, "the game limit (80) reached undecided (LLR 0.72"},
		{rating.Continue, 0.72, true, "the game limit (80) reached undecided, leaning better"},
	}
	for _, c := range cases {
		res := arena.GateResult{Decision: c.d, LLR: c.llr, Lower: -2.94, Upper: 2.94}
		if got := (GateConfig{MaxGames: 80, AcceptLean: c.leaning}).Why(res); !strings.HasPrefix(got, c.want) {
			t.Errorf("decision %v, LLR %v, accept_leaning %v: %q, want it to begin %q", c.d, c.llr, c.leaning, got, c.want)
		}
	}
	if got := (GateConfig{}).Why(arena.GateResult{}); !strings.Contains(got, "no gate") {
		t.Errorf("max_games 0: %q, want it to say there is no gate", got)
	}
}

func TestConfig_TablebaseMustBeADirectory(t *testing.T) {
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	c.Tablebase = t.TempDir() + "/missing"
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "tablebase") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("validate: %v, want an error naming tablebase and the directory", err)
	}
	c.Tablebase = t.TempDir()
	if err := c.validate(); err != nil {
		t.Errorf("an existing directory: %v", err)
	}
}

func TestGate_NoGateMakesEveryCandidateTheBest(t *testing.T) {
	if got := (GateConfig{MaxGames: 0}).Decision(arena.GateResult{Decision: rating.AcceptH0, LLR: -3}); got != "ungated" {
		t.Errorf("max_games 0: decision %q, want ungated", got)
	}
}

func TestLoadConfig_EveryExperimentConfigIsValid(t *testing.T) {
	files, err := filepath.Glob("../configs/experiments/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no experiment configs: %v", err)
	}
	for _, f := range files {
		_, _, err := LoadConfig(f)
		if err != nil && strings.Contains(err.Error(), "tablebase:") && strings.Contains(err.Error(), "is not a directory") {
			continue // the tables are built by the user (millzero tablebase build)
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// nine-long is the one-hour default with no time limit, a growth step and
// a longer strength schedule (its header says so): every other setting
// follows configs/runs/nine.yaml, whose values are the measured ones.
func TestLoadConfig_NineLongIsTheDefaultGrown(t *testing.T) {
	_, base, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	c, long, err := LoadConfig("nine-long")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := configChanges(base, long)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ch := range changes {
		keys = append(keys, ch[:strings.Index(ch, ":")])
	}
	want := []string{"loop.grow", "loop.hours", "loop.run_hours", "strength.depths", "strength.every_hours"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("nine-long differs from the default in %q, want only %q", changes, want)
	}
	if c.Loop.Hours != 0 || c.Loop.RunHours != 8 || len(c.Loop.Grow) == 0 {
		t.Errorf("nine-long: hours %v, run_hours %v, grow %v; want no limit to an invocation, 8 hours in all and a growth step", c.Loop.Hours, c.Loop.RunHours, c.Loop.Grow)
	}
}

// A run's run.yaml from before model.features (its model section without
// the key) is of the board encoder, the only one then, though the default
// is now the tactics encoder; one that names it keeps it, and a config
// file (LoadConfig) that leaves it out gets the default.
func TestLoadRunConfig_ARunFromBeforeTheFeaturesKeepsTheBoardEncoder(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text          string
		run, fileWant int // LoadRunConfig's, LoadConfig's
	}{
		{"model: {width: 128, blocks: 2}\n", model.EncoderBoard, model.EncoderTactics},
		{"model: {width: 128, blocks: 2, features: 2}\n", model.EncoderMill, model.EncoderMill},
		{"model: {width: 128, blocks: 2, features: 1}\n", model.EncoderBoard, model.EncoderBoard},
	} {
		path := writeFile(t, dir, "run.yaml", c.text)
		rc, text, err := LoadRunConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		if rc.Model.Features != c.run || !strings.Contains(string(text), fmt.Sprintf("features: %d", c.run)) {
			t.Errorf("run.yaml %q: features %d, want %d, also in the resolved YAML", c.text, rc.Model.Features, c.run)
		}
		fc, _, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		if fc.Model.Features != c.fileWant {
			t.Errorf("config file %q: features %d, want %d", c.text, fc.Model.Features, c.fileWant)
		}
	}
}

// A run.yaml without the keys that came after it (a run begun before
// them) resumes with what its run did then, not today's defaults: the PUCT
// root, no contempt, the outcome alone as the value target, no averaged
// weights, a fixed window, no tables, an MLP, the Gumbel target's
// values stretched to 0..1; a config file that leaves them out
// gets the defaults, and a run.yaml that names them keeps its values.
func TestLoadRunConfig_ARunFromBeforeANewKeyKeepsWhatItDid(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "run.yaml", "variant: nine\n")
	rc, text, err := LoadRunConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	def, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	fc, _, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	type settings struct {
		root                                string
		contempt, mix, ema, growth, opening float64
		minQSpread                          float64
		tables                              string
		classic                             string
		kind                                string
	}
	of := func(c Config) settings {
		return settings{c.SelfPlay.Search.Root, c.SelfPlay.Search.Contempt, c.Train.ValueMix, c.Train.WeightEMA, c.Loop.WindowGrowth, c.SelfPlay.OpeningStarts, c.SelfPlay.Search.MinQSpread, c.Tablebase,
			strings.Join(c.Strength.Classic, ","), c.Model.Kind}
	}
	if got, want := of(rc), (settings{mcts.RootPUCT, 0, 0, 0, 0, 0, 0, "", "", model.KindMLP}); got != want {
		t.Errorf("run.yaml without the keys: %+v, want %+v", got, want)
	}
	if got, want := of(fc), of(def); got != want {
		t.Errorf("config file without the keys: %+v, want the defaults %+v", got, want)
	}
	if want := (settings{mcts.RootPUCT, 0, 0, 0, 0, 0, 0, "", "", model.KindMLP}); want == of(def) {
		t.Fatalf("the defaults are the old settings: the test shows nothing")
	}
	again, _, err := LoadRunConfig(writeFile(t, dir, "resolved.yaml", string(text)))
	if err != nil {
		t.Fatal(err)
	}
	if of(again) != of(rc) {
		t.Errorf("the resolved run.yaml read again: %+v, want %+v", of(again), of(rc))
	}
	_, defText, _ := LoadConfig("")
	named, _, err := LoadRunConfig(writeFile(t, dir, "named.yaml", string(defText)))
	if err != nil {
		t.Fatal(err)
	}
	if of(named) != of(def) {
		t.Errorf("run.yaml naming today's defaults: %+v, want them kept %+v", of(named), of(def))
	}
}

func TestConfig_SelfPlayOrientationsReachTheEvaluatorWithinTheSymmetries(t *testing.T) {
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	c.SelfPlay.Orientations = 17
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "orientations 17") {
		t.Errorf("orientations 17 on nine: %v, want an error naming it", err)
	}
	c.SelfPlay.Orientations, c.Model.Orientation = 2, model.OrientCanonical
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "canonical") {
		t.Errorf("two views of a canonical network: %v, want an error naming both", err)
	}

}

func TestLoopConfig_WindowGrowsByKataGosRule(t *testing.T) {
	fixed := LoopConfig{WindowGenerations: 4}
	grown := LoopConfig{WindowGenerations: 4, WindowGrowth: 0.4}
	for g, want := range map[int][2]int{0: {4, 4}, 4: {4, 4}, 5: {4, 4}, 100: {4, 26}, 564: {4, 89}, 2220: {4, 246}} {
		if got := [2]int{fixed.WindowAt(g), grown.WindowAt(g)}; got != want {
			t.Errorf("generation %d: windows %v fixed and grown, want %v", g, got, want)
		}
	}
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	c.Loop.WindowGrowth = -1
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "window_growth -1") {
		t.Errorf("window_growth -1: %v", err)
	}
}

// A run.yaml whose search asks for more visits than a move may take
// (mcts.MaxVisits) is refused before anything is opened, naming the key.
func TestLoadRunConfig_TooManyVisitsAreRefusedNamingTheKey(t *testing.T) {
	_, text, err := LoadConfig("three-test")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.yaml")
	bad := strings.Replace(string(text), "simulations: 64\n", "simulations: 10000000\n", 1)
	if bad == string(text) {
		t.Fatal("three-test's run.yaml has no simulations: 64")
	}
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadRunConfig(path)
	if err == nil || !strings.Contains(err.Error(), "simulations 10000000") || !strings.Contains(err.Error(), fmt.Sprint(mcts.MaxVisits)) {
		t.Fatalf("LoadRunConfig = %v; want simulations 10000000 refused, naming the bound", err)
	}
}

func TestConfigChanges_AListIsPrintedAsAConfigGivesIt(t *testing.T) {
	changes, err := configChanges([]byte("loop: {visits: []}\n"), []byte("loop: {visits: [{simulations: 12, generation: 3}]}\n"))
	if want := "loop.visits: [] -> [{generation: 3, simulations: 12}]"; err != nil || len(changes) != 1 || changes[0] != want {
		t.Errorf("the change printed: %q, %v; want %q", changes, err, want)
	}
}

func TestStrength_BadSettingsAreRefusedByName(t *testing.T) {
	for _, c := range []StrengthConfig{
		{EveryHours: -1},
		{EveryHours: 1, Simulations: 0, Pairs: 1, Depths: []int{2}},
		{EveryHours: 1, Simulations: 10, Pairs: 1},
		{EveryHours: 1, Simulations: 10, Pairs: 1, Depths: []int{99}},
		{EveryHours: 1, Simulations: 10, Pairs: 1, Classic: []string{"classic:0"}},
		{EveryHours: 1, Simulations: 10, Pairs: 1, Classic: []string{"alphabeta:4"}},
	} {
		if err := c.validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if err := (StrengthConfig{}).validate(); err != nil {
		t.Errorf("off: %v", err)
	}
}

// The minimax backup is for two players: a config of a variant with more
// seats that asks for it is refused when it loads, naming the key, not at
// the first search of a generation.
func TestLoadConfig_MinimaxWithThreeSeatsIsRefusedNamingTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mr3.yaml")
	text := "variant: moulin-rouge-3\ntablebase: \"\"\ntrain: {value_mix: 0}\nselfplay: {search: {minimax_weight: 0.25}}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "selfplay.search.minimax_weight") || !strings.Contains(err.Error(), "3") {
		t.Fatalf("LoadConfig = %v; want minimax_weight with three seats refused, naming the key", err)
	}
	two := strings.Replace(text, "moulin-rouge-3", "moulin-rouge", 1)
	if err := os.WriteFile(path, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadConfig(path); err != nil {
		t.Fatalf("minimax_weight with two seats: %v", err)
	}
}

// The score utility reads the network's score head and is for two
// players: a config without the head (train.score_weight 0) or with more
// seats is refused when it loads, naming the key.
func TestLoadConfig_ScoreUtilityNeedsTheScoreHeadAndTwoSeats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "score.yaml")
	for _, c := range []struct{ text, want string }{
		{"selfplay: {search: {score_utility: 0.2}}\n", "train.score_weight"},
		{"variant: moulin-rouge-3\ntablebase: \"\"\ntrain: {value_mix: 0, score_weight: 0.5}\nselfplay: {search: {minimax_weight: 0, score_utility: 0.2}}\n", "for two players only"},
		{"train: {score_weight: 0.5}\nselfplay: {search: {score_utility: 0.2}}\n", ""},
	} {
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := LoadConfig(path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "selfplay.search.score_utility")):
			t.Errorf("%q: LoadConfig = %v; want it refused for %q, naming the key", c.text, err, c.want)
		}
	}
}
