package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/model"
)

func TestParsePlayer_Specs(t *testing.T) {
	v := loadVariant(t, "nine")
	tests := []struct{ spec, name string }{
		{"random", "random"},
		{"alphabeta:4", "alphabeta:4"},
		{" alphabeta:2 ", "alphabeta:2"},
		{"rollout", "rollout@400"},
		{"rollout@32", "rollout@32"},
		{"engine:/usr/bin/sanmill --uci", "engine:sanmill"},
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
		"rollout@0", "rollout@x", "rollouts", "engine:", "engine:x --option", "engine:x --option =3", "engine:x --option Hash", "model:", "model:/nonexistent.safetensors", "model:x@-1"} {
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
	m := Match{Variant: v, A: p, B: Random{}, Pairs: 1, OpeningPlies: 2, Seed: 1}
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
