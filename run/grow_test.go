package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
)

// loop.grow: the loop trains the small trunk until the step's generation,
// then a grown one, which later generations keep; every model is of the
// config's feature encoder (model.features) and kind, the grown ones too.
func TestLoop_GrowWidensTheNetworkAtItsGeneration(t *testing.T) {
	for _, c := range []struct {
		kind     string
		features int
	}{{model.KindMLP, model.EncoderBoard}, {model.KindMLP, model.EncoderMill}, {model.KindGraph, model.EncoderTactics}} {
		features := c.features
		text := fmt.Sprintf("variant: three\nmodel: {width: 16, blocks: 1, features: %d, kind: %s}\n", features, c.kind) +
			"loop: {generations: 3, games: 16, steps: 4, grow: [{generation: 1, width: 24, blocks: 1}, {generation: 2, width: 24, blocks: 2}]}\n" +
			"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
			"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
		l := runConfig(t, text)
		for gen, want := range map[int]model.Config{1: {Width: 16, Blocks: 1}, 2: {Width: 24, Blocks: 1}, 3: {Width: 24, Blocks: 2}} {
			ck, err := model.LoadCheckpointFor(l.dir.Model(gen), l.v)
			if err != nil {
				t.Fatal(err)
			}
			if a := ck.Net.Arch; a.Width != want.Width || a.Blocks != want.Blocks || a.Encoder != features || a.Inputs != model.FeatureSize(l.v, features) || (a.Kind == model.KindGraph) != (c.kind == model.KindGraph) {
				t.Errorf("%s, features %d: model %d: %+v, want %dx%d of encoder %d", c.kind, features, gen, a, want.Width, want.Blocks, features)
			}
		}
	}
}

func TestConfig_GrowStepsMustGrow(t *testing.T) {
	for _, tc := range []struct{ grow, want string }{
		{"[{generation: 5, width: 16, blocks: 2}]", "a network only grows"},
		{"[{generation: 5, width: 256, blocks: 1}]", "a network only grows"},
		{"[{generation: 0, width: 256, blocks: 3}]", "generation 0"},
		{"[{generation: 5, width: 256, blocks: 3}, {generation: 5, width: 512, blocks: 3}]", "grow step 2: generation 5"},
		{"[{generation: 5, width: 0, blocks: 3}]", "width 0"},
	} {
		_, err := loadConfigText(t, "loop: {grow: "+tc.grow+"}\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("grow %s: %v, want an error with %q", tc.grow, err, tc.want)
		}
	}
	c, err := loadConfigText(t, "loop: {grow: [{generation: 5, width: 256, blocks: 3}]}\n")
	if err != nil {
		t.Fatal(err)
	}
	f, o, k := c.Model.Features, c.Model.Orientation, c.Model.Kind // the default's encoder, orientation and kind: growing keeps them
	if c.TrunkAt(4) != (model.Config{Width: 32, Blocks: 2, Features: f, Orientation: o, Kind: k}) || c.TrunkAt(5) != (model.Config{Width: 256, Blocks: 3, Features: f, Orientation: o, Kind: k}) {
		t.Errorf("trunk at 4: %+v, at 5: %+v", c.TrunkAt(4), c.TrunkAt(5))
	}
}

func loadConfigText(t *testing.T, text string) (runconfig.Config, error) {
	t.Helper()
	c, _, err := runconfig.LoadConfig(writeFile(t, t.TempDir(), "c.yaml", text))
	return c, err
}

// model.orientation: a run begun with random turns of the board goes on
// with the canonical one from the generation the config changes it, the
// same weights, and a network grown later keeps it.
func TestLoop_OrientationChangesInARunUnderWay(t *testing.T) {
	dir := t.TempDir()
	run := func(orientation string, generations int, grow string) *Trainer {
		text := fmt.Sprintf("variant: three\nmodel: {width: 16, blocks: 1, orientation: %s}\n", orientation) +
			fmt.Sprintf("loop: {generations: %d, games: 16, steps: 4, grow: [%s]}\n", generations, grow) +
			"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
			"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
		cfg := filepath.Join(dir, orientation+".yaml")
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenTrainer(context.Background(), filepath.Join(dir, "run"), cfg, TrainerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if _, err := l.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return l
	}
	run(model.OrientRandom, 2, "")
	l := run(model.OrientCanonical, 4, "{generation: 3, width: 24, blocks: 1}")
	for gen, want := range map[int]bool{1: false, 2: false, 3: true, 4: true} {
		ck, err := model.LoadCheckpointFor(l.dir.Model(gen), l.v)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Net.Arch.Canonical != want {
			t.Errorf("model %d: %v, want canonical %v", gen, ck.Net.Arch, want)
		}
	}
	ck, err := model.LoadCheckpointFor(l.dir.Model(4), l.v)
	if err != nil || ck.Net.Arch.Width != 24 {
		t.Errorf("model 4: %v, %v: want grown to 24 wide", ck.Net.Arch, err)
	}
	// Self-play's evaluator of a canonical best turns no board at random.
	job, err := l.selfplayJob(5, 4, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := job.NewEvaluator(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.(*model.Evaluator).SetOrientations(2); err == nil || !strings.Contains(err.Error(), "canonical") {
		t.Errorf("self-play's evaluator of a canonical network takes two views: %v", err)
	}
}

// model.symmetric: every model of a run, its moving average included, is
// tied over the board's symmetries from the first candidate on; a config
// that would grow such a network, or make it narrower than the board, is
// refused by name.
func TestLoop_SymmetricNetworkStaysTied(t *testing.T) {
	text := "variant: three\nmodel: {kind: mlp, width: 21, blocks: 1, symmetric: true}\n" +
		"loop: {generations: 3, games: 16, steps: 8}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
	l := runConfig(t, text)
	tie, err := model.NewTying(l.v, model.NewArch(l.v, l.cfg.Model))
	if err != nil {
		t.Fatal(err)
	}
	for gen := 1; gen <= 3; gen++ {
		ck, err := model.LoadCheckpointFor(l.dir.Model(gen), l.v)
		if err != nil {
			t.Fatal(err)
		}
		if !ck.Net.Arch.Symmetric {
			t.Errorf("model %d: %v, want symmetric", gen, ck.Net.Arch)
		}
		if err := tie.Check(ck.Net); err != nil {
			t.Errorf("model %d: %v", gen, err)
		}
	}
	for text, want := range map[string]string{
		"variant: three\nmodel: {kind: mlp, width: 8, symmetric: true}\n":                                                         "9 points",
		"variant: three\nmodel: {kind: mlp, width: 18, symmetric: true}\nloop: {grow: [{generation: 2, width: 27, blocks: 2}]}\n": "does not grow",
		"variant: three\nmodel: {width: 18, kind: graph, symmetric: true}\n":                                                      "leave out symmetric",
		"variant: three\nmodel: {width: 8, kind: conv}\n":                                                                         `kind "conv"`,
	} {
		if _, err := loadConfigText(t, text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", text, err, want)
		}
	}
}

// loop.visits: a generation's games search with the simulations of the
// newest step at or before it, the config's before the first; a step must
// come after the one before and leave valid self-play settings.
func TestLoop_VisitsDeepenTheFullSearchesFromTheirGeneration(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", "variant: three\nmodel: {width: 16, blocks: 1}\n"+
		"loop: {generations: 2, games: 16, steps: 4, visits: [{generation: 3, simulations: 12}, {generation: 5, simulations: 20}]}\n"+
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n"+
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n")
	l, err := OpenTrainer(context.Background(), dir+"/run", cfg, TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for g, want := range map[int]int{1: 8, 2: 8, 3: 12, 4: 12, 5: 20, 40: 20} {
		job, err := l.selfplayJob(g, 0, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if s := job.Settings; s.Search.Simulations != want || s.FastSimulations != 4 {
			t.Errorf("generation %d: full searches of %d visits, fast of %d; want %d and the config's 4", g, s.Search.Simulations, s.FastSimulations, want)
		}
	}
	if l.cfg.SelfPlay.Search.Simulations != 8 {
		t.Errorf("the config's own simulations became %d: a step must not change them", l.cfg.SelfPlay.Search.Simulations)
	}

	for _, tc := range []struct{ visits, want string }{
		{"[{generation: 0, simulations: 192}]", "visits step 1: generation 0"},
		{"[{generation: 5, simulations: 192}, {generation: 5, simulations: 256}]", "visits step 2: generation 5"},
		{"[{generation: 5, simulations: 0}]", "visits step 1 (simulations 0)"},
		{"[{generation: 5, simulations: 16}]", "visits step 1 (simulations 16)"}, // fewer than fast_simulations' 24
	} {
		_, err := loadConfigText(t, "loop: {visits: "+tc.visits+"}\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("visits %s: %v, want an error with %q", tc.visits, err, tc.want)
		}
	}
}
