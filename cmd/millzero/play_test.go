package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlay_CommandLineSaysWhoPlaysAndQuits(t *testing.T) {
	var out bytes.Buffer
	err := playMain([]string{"--variant", "three", "--sims", "16", "--seat", "black"}, strings.NewReader("zz9\nquit\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{"You are black (@)", "random-rollout search (no --model or --run given, and the built-in model plays nine only), 16 visits per move",
		"white plays ", "Not understood", "Legal actions: "} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

func TestPlay_BadFlagsNameTheProblem(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--seat", "purple"}, `seat "purple"`},
		{[]string{"--variant", "three", "--seat", "3"}, `seat "3"`},
		{[]string{"--variant", "ninety"}, `"ninety"`},
		{[]string{"--model", filepath.Join(dir, "none.safetensors")}, "none.safetensors"},
		{[]string{"--model", "a", "--run", "b"}, "not both"},
		{[]string{"--run", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"--sims", "0"}, "--sims 0"},
		{[]string{"--variant", "three", "--orientations", "0"}, "--orientations 0"},
		{[]string{"--orientations", "17"}, "--orientations 17: want 1..16"},
		{[]string{"extra"}, `"extra"`},
	}
	for _, c := range cases {
		err := playMain(c.args, strings.NewReader(""), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %q", c.args, err, c.want)
		}
	}
}

func TestHelp_PlayAndEngineNameTheirFlags(t *testing.T) {
	cases := map[string][]string{
		"play":   {"-model", "-run", "-variant", "-seat", "-sims", "-web", "-addr", "millzero play --variant three"},
		"engine": {"-model", "-run", "-variant", "-sims", "millzero engine --variant three"},
	}
	for name, wants := range cases {
		code, out, _ := runCmd(name, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", name, code)
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s --help lacks %q:\n%s", name, w, out)
			}
		}
	}
}

func TestPlay_TheClassicalEngineIsAnOpponent(t *testing.T) {
	var out strings.Builder
	if err := playMain([]string{"--opponent", "classic:3", "--seat", "white"}, strings.NewReader("d6\nquit\n"), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "classical engine classic:3") || !strings.Contains(out.String(), "black plays") {
		t.Errorf("output does not show the classical engine playing black:\n%s", out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--opponent", "alphabeta:3"}, "want classic@TIME or classic:N"},
		{[]string{"--opponent", "classic@soon"}, "--opponent"},
		{[]string{"--opponent", "classic:4", "--model", "x.safetensors"}, "--opponent"},
	} {
		if err := playMain(c.args, strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %q", c.args, err, c.want)
		}
	}
}
