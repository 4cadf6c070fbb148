package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/play"
)

// scriptReader feeds a session one line at a time, asking next for each
// line only when the session reads (so next may look at the game as it
// stands at the prompt).
type scriptReader struct {
	next    func() (string, bool)
	pending []byte
}

func (r *scriptReader) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		line, ok := r.next()
		if !ok {
			return 0, io.EOF
		}
		r.pending = []byte(line + "\n")
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// rolloutPlayer is the model player without a model, searching sims visits.
func rolloutPlayer(t *testing.T, v *engine.Variant, sims int) *play.Bot {
	t.Helper()
	bot, err := newBot(v, modelSource{desc: "random-rollout search (test)"}, sims, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	return bot
}

func firstLegal(g *engine.Game) string {
	legal := g.V.Legal(&g.Pos, nil)
	return g.V.FormatAction(legal[0])
}

func TestPlay_ScriptedGameOfThreeEndsWithTheResult(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tg *textGame
	// Each step writes one line at the prompt; checks run on the output
	// the line produced, read at the next prompt.
	type step struct {
		line  func() string
		wants []string
	}
	fixed := func(s string) func() string { return func() string { return s } }
	occupied := func() string {
		for pt := 0; pt < v.Board.Points; pt++ {
			if tg.g.Pos.Owner(pt) >= 0 {
				return v.Board.Name(pt)
			}
		}
		t.Fatal("no piece on the board")
		return ""
	}
	steps := []step{
		{fixed("hello"), []string{`Not understood: action "hello"`, "Legal actions: a3 b3 c3 c2 c1 b1 a1 a2 b2"}},
		{fixed("undo"), []string{"Nothing to undo"}},
		{fixed("b2"), []string{"black plays ", "Action 2: black "}},
		{occupied, []string{"Illegal: action", "is occupied", "Legal actions: "}},
		{fixed("hint"), []string{"Hint: ", "visits: ", "your expected score"}},
		{fixed("undo"), []string{"Took back b2 ", "O: 0 on board, 3 in hand; @: 0 on board, 3 in hand; O to move"}},
		{fixed("moves"), []string{"Legal actions: a3 "}},
	}
	i, played, last := 0, 0, 0
	check := func(wants []string) {
		got := out.String()[last:]
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("step %d: output lacks %q:\n%s", i, w, got)
			}
		}
	}
	next := func() (string, bool) {
		if i > 0 && i <= len(steps) {
			check(steps[i-1].wants)
		}
		last = out.Len()
		if i < len(steps) {
			i++
			return steps[i-1].line(), true
		}
		i++
		if r, _ := tg.g.Outcome(); r != engine.Ongoing {
			return "quit", true
		}
		if played++; played > 200 {
			t.Fatal("the game did not end in 200 actions of ours")
		}
		return firstLegal(tg.g.Game), true
	}
	tg = newTextGame(v, 0, rolloutPlayer(t, v, 48), &scriptReader{next: next}, &out)
	if err := tg.run(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{
		"You are white (O); the model plays black (@).",
		"Model: random-rollout search (test), 48 visits per move.",
		"3  +---+---+", "   a   b   c", // the board with its coordinates
		"Game over: ",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	r, why := tg.g.Outcome()
	if r == engine.Ongoing {
		t.Fatal("the game is not over")
	}
	if want := "Game over: " + arena.ResultText(v, &tg.g.Pos, r, why) + "."; !strings.Contains(got, want) {
		t.Errorf("output lacks the result %q", want)
	}
	if t.Failed() || os.Getenv("SHOW") != "" {
		t.Logf("whole output:\n%s", got)
	}
}

func TestPlay_ModelPlaysEveryOtherSeatOfThree(t *testing.T) {
	v, err := engine.Load("moulin-rouge-3")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tg *textGame
	turns := 0
	next := func() (string, bool) {
		if turns++; turns > 3 {
			return "", false // the input ends
		}
		if int(tg.g.Pos.Side) != 1 {
			t.Errorf("prompted with seat %d to act, want seat 2 (index 1)", tg.g.Pos.Side+1)
		}
		return firstLegal(tg.g.Game), true
	}
	tg = newTextGame(v, 1, rolloutPlayer(t, v, 16), &scriptReader{next: next}, &out)
	if err := tg.run(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{"You are seat 2 (@); the model plays seat 1 (O), seat 3 (X).", "seat 1 plays ", "seat 3 plays ",
		"Points (name and piece):", "a1"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	for k, s := range tg.g.Movers {
		want := []int{0, 1, 2}[k%3]
		if s != want {
			t.Errorf("action %d played by seat %d, want %d (no removals expected this early)", k, s+1, want+1)
		}
	}
}

func TestPlay_CommandLineSaysWhoPlaysAndQuits(t *testing.T) {
	var out bytes.Buffer
	err := playMain([]string{"--variant", "three", "--sims", "16", "--seat", "black"}, strings.NewReader("zz9\nquit\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{"You are black (@)", "random-rollout search (no --model or --run given), 16 visits per move",
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
