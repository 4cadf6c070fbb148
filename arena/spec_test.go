package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
)

func TestParsePlayer_Specs(t *testing.T) {
	v := loadVariant(t, "nine")
	tests := []struct{ spec, name string }{
		{"random", "random"},
		{"alphabeta:4", "alphabeta:4"},
		{" alphabeta:2 ", "alphabeta:2"},
		{"rollout", "rollout@400"},
		{"classic@1s", "classic@1s"},
		{"classic@300ms", "classic@300ms"},
		{"classic@2000ms", "classic@2s"},
		{"classic@1.5s", "classic@1500ms"},
		{"classic:12", "classic:12"},
		{"classic@1s,weights=hand", "classic@1s,weights=hand"},
		{"classic:14,weights=hand", "classic:14,weights=hand"},
		{"rollout@32", "rollout@32"},
		{"engine:/usr/bin/sanmill --uci", "engine:sanmill"},
		{"rollout@32,root=gumbel,c_scale=0.3", "rollout@32,root=gumbel,c_scale=0.3"},
	}
	for _, tc := range tests {
		p, err := ParsePlayer(tc.spec, v, DefaultSpecSettings())
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if p.Name() != tc.name {
			t.Errorf("%q: name %q, want %q", tc.spec, p.Name(), tc.name)
		}
	}
	r, _ := ParsePlayer("rollout,c_puct=0.75,root=gumbel,reuse_tree=false", v, DefaultSpecSettings())
	want := ArenaSettings(400)
	want.CPuct, want.Root, want.ReuseTree = 0.75, "gumbel", false
	if got := r.(*SearchPlayer).Settings; got != want {
		t.Errorf("rollout with search options: settings %+v, want %+v", got, want)
	}
	c, _ := ParsePlayer("classic@300ms", v, DefaultSpecSettings())
	if got := c.(Classic); got.MoveTime != 300*time.Millisecond || got.Depth != 0 {
		t.Errorf("classic@300ms: %+v, want 300ms a move", got)
	}
	c, _ = ParsePlayer("classic:9", v, DefaultSpecSettings())
	if got := c.(Classic); got.Depth != 9 || got.MoveTime != 0 {
		t.Errorf("classic:9: %+v, want depth 9", got)
	}
	c, _ = ParsePlayer("classic:9,weights=hand", v, DefaultSpecSettings())
	if got := c.(Classic); got.Weights == nil || got.Weights.Name != "hand" {
		t.Errorf("classic:9,weights=hand: %+v, want the hand-written weights", got)
	}
	if a, b := SetupOf(Classic{Depth: 9}), SetupOf(c); a == "" || a == b {
		t.Errorf("setups %q and %q of the default and the hand-written weights: want two", a, b)
	}
	e, _ := ParsePlayer("engine:/usr/bin/sanmill --uci -x", v, DefaultSpecSettings())
	if x := e.(*External); x.Path != "/usr/bin/sanmill" || strings.Join(x.Args, " ") != "--uci -x" {
		t.Errorf("engine spec: path %q args %q", x.Path, x.Args)
	}
	e, _ = ParsePlayer("engine:/usr/bin/sanmill --option SkillLevel=3 --uci --option=Hash=64 --option Shuffling=", v, DefaultSpecSettings())
	x := e.(*External)
	if want := []EngineOption{{"SkillLevel", "3"}, {"Hash", "64"}, {"Shuffling", ""}}; fmt.Sprint(x.Options) != fmt.Sprint(want) || strings.Join(x.Args, " ") != "--uci" {
		t.Errorf("engine spec with options: options %v args %q, want %v and --uci", x.Options, x.Args, want)
	}
}

func TestParsePlayer_BadSpecsAreErrors(t *testing.T) {
	v := loadVariant(t, "nine")
	for _, spec := range []string{"", "randomly", "alphabeta", "alphabeta:0", "alphabeta:x", "alphabeta:99",
		"rollout@0", "rollout@x", "rollouts", "engine:", "engine:x --option", "engine:x --option =3", "engine:x --option Hash", "model:", "model:/nonexistent.safetensors", "model:x@-1",
		"rollout,c_puct=0", "rollout@8,c_puct", "rollout@8,bogus=1", "rollout,simulations=9", "rollout,root=best", "rollout,c_puct=1: 2",
		"rollout@8,", "rollouts,c_puct=1", "model:,root=gumbel",
		"classic", "classic:0", "classic:65", "classic:x", "classic@", "classic@0s", "classic@fast", "classic@-1s", "classic@1500us", "classic@2h", "classics:4",
		"classic@1s,weights=", "classic@1s,hash=4", "classic:4,weights=nonesuch", "classic:4,weights=/nonexistent.json", "classic:4,"} {
		if _, err := ParsePlayer(spec, v, DefaultSpecSettings()); err == nil {
			t.Errorf("%q: no error", spec)
		} else if !strings.Contains(err.Error(), spec) {
			t.Errorf("%q: error %q does not name the spec", spec, err)
		}
	}
}

func TestParsePlayer_ModelCheckpointPlays(t *testing.T) {
	v := loadVariant(t, "nine")
	net, err := model.New(v.Name, model.NewArch(v, model.Config{Width: 16, Blocks: 1}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gen-000001.safetensors")
	if err := (&model.Checkpoint{Net: net, Generation: 1}).Save(path); err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlayer("model:"+path+"@8", v, DefaultSpecSettings())
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "model:gen-000001@8" {
		t.Errorf("name %q", p.Name())
	}
	if root := p.(*SearchPlayer).Settings.Root; root != mcts.RootGumbel {
		t.Errorf("a model player of nine searches with a %s root, want the Gumbel root (ModelSettings)", root)
	}
	puct, err := ParsePlayer("model:"+path+"@8,root=puct,c_puct=2", v, DefaultSpecSettings())
	if err != nil {
		t.Fatal(err)
	}
	if s := puct.(*SearchPlayer).Settings; puct.Name() != "model:gen-000001@8,root=puct,c_puct=2" || s.Root != mcts.RootPUCT || s.CPuct != 2 || s.Simulations != 8 {
		t.Errorf("model player with search options: %q, %+v", puct.Name(), s)
	}
	views, err := ParsePlayer("model:"+path+"@8,orientations=4,c_puct=2", v, DefaultSpecSettings())
	if err != nil {
		t.Fatal(err)
	}
	if sp := views.(*SearchPlayer); sp.Name() != "model:gen-000001@8,c_puct=2,orientations=4" || sp.Settings.CPuct != 2 {
		t.Errorf("model player with orientations: %q, %+v", sp.Name(), sp.Settings)
	} else if ev, err := sp.NewEvaluator(v, 1); err != nil || ev.(*model.Evaluator).Orientations() != 4 {
		t.Errorf("its evaluator: %v, err %v: want four views", ev, err)
	}
	for _, bad := range []string{"orientations=0", "orientations=17", "orientations=x"} {
		if _, err := ParsePlayer("model:"+path+"@8,"+bad, v, DefaultSpecSettings()); err == nil || !strings.Contains(err.Error(), "orientations") {
			t.Errorf("%s: err %v", bad, err)
		}
	}
	m := Match{Variant: v, A: views, B: Random{}, Pairs: 1, OpeningPlies: 2, Seed: 1}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Forfeit >= 0 {
			t.Errorf("game %d: %s", r.Game, r.Reason)
		}
	}
	if _, err := ParsePlayer("model:"+path, loadVariant(t, "twelve"), DefaultSpecSettings()); err == nil {
		t.Errorf("a nine checkpoint for twelve: no error")
	}
}

// Three or four seats keep the PUCT root for a network player: the Gumbel
// root, on the values' own scale, was measured in two-player play only.
func TestModelSettings_GumbelRootWithTwoSeatsOnly(t *testing.T) {
	for name, want := range map[string]string{"nine": mcts.RootGumbel, "three": mcts.RootGumbel, "moulin-rouge-3": mcts.RootPUCT, "moulin-rouge-4": mcts.RootPUCT} {
		s := ModelSettings(loadVariant(t, name), 400)
		if s.Root != want || s.Simulations != 400 || s.Temperature != 0 {
			t.Errorf("%s: root %s, %d visits, temperature %v; want %s, 400 visits, greedy", name, s.Root, s.Simulations, s.Temperature, want)
		}
		if floor := map[string]float64{mcts.RootGumbel: 1, mcts.RootPUCT: 0}[want]; s.MinQSpread != floor {
			t.Errorf("%s: min_q_spread %v, want %v with the %s root", name, s.MinQSpread, floor, want)
		}
	}
}

func TestParsePlayer_VisitsAreBoundedByMaxVisits(t *testing.T) {
	v := loadVariant(t, "nine")
	if p, err := ParsePlayer(fmt.Sprintf("rollout@%d", mcts.MaxVisits), v, DefaultSpecSettings()); err != nil || p.Name() != fmt.Sprintf("rollout@%d", mcts.MaxVisits) {
		t.Errorf("rollout@%d: %v, want the player", mcts.MaxVisits, err)
	}
	for _, spec := range []string{fmt.Sprintf("rollout@%d", mcts.MaxVisits+1), "model:m.safetensors@999999999999", "rollout@99999999999999999999",
		fmt.Sprintf("rollout@%d,placing_factor=2", mcts.MaxVisits/2+1)} {
		_, err := ParsePlayer(spec, v, DefaultSpecSettings())
		if err == nil || !strings.Contains(err.Error(), spec) || !strings.Contains(err.Error(), fmt.Sprintf("1..%d", mcts.MaxVisits)) {
			t.Errorf("%s: %v, want an error naming the spec and the most visits, %d", spec, err, mcts.MaxVisits)
		}
	}
}

// TestParsePlayer_ModelDefaultIsTheBuiltinModel: model:default plays the
// network that comes with millzero on nine, and is refused on a variant
// it does not fit.
func TestParsePlayer_ModelDefaultIsTheBuiltinModel(t *testing.T) {
	p, err := ParsePlayer("model:default@8", loadVariant(t, "nine"), DefaultSpecSettings())
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "model:default@8" {
		t.Errorf("name %q, want model:default@8", p.Name())
	}
	if _, err := ParsePlayer("model:default", loadVariant(t, "twelve"), DefaultSpecSettings()); err == nil || !strings.Contains(err.Error(), "built-in model") {
		t.Errorf("on twelve: %v, want an error naming the built-in model", err)
	}
}
