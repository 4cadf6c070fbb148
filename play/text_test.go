package play

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// scriptReader feeds a game one line at a time, asking next for each
// line only when the game reads (so next may look at the game as it
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

// rolloutBot is the model player without a model, searching sims visits.
func rolloutBot(t *testing.T, v *engine.Variant, sims int) *Bot {
	t.Helper()
	label := fmt.Sprintf("random-rollout search (test), %d visits per move", sims)
	bot, err := NewBot(v, arena.NewSearchPlayer(label, arena.ArenaSettings(sims), arena.Evaluation{}), label, 7)
	if err != nil {
		t.Fatal(err)
	}
	return bot
}

func firstLegal(g *engine.Game) string {
	legal := g.V.Legal(&g.Pos, nil)
	return g.V.FormatAction(legal[0])
}

func TestText_ScriptedGameOfThreeEndsWithTheResult(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tg *Text
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
	tg = NewText(v, SeatsOf(0), rolloutBot(t, v, 48), &scriptReader{next: next}, &out)
	if err := tg.Run(); err != nil {
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

func TestText_ModelPlaysEveryOtherSeatOfThree(t *testing.T) {
	v, err := engine.Load("moulin-rouge-3")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tg *Text
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
	tg = NewText(v, SeatsOf(1), rolloutBot(t, v, 16), &scriptReader{next: next}, &out)
	if err := tg.Run(); err != nil {
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

func TestText_PeopleOnTwoSeatsOfFourTheModelOnTheOthers(t *testing.T) {
	v, err := engine.Load("moulin-rouge-4")
	if err != nil {
		t.Fatal(err)
	}
	seats, err := ParseSeats(v, "1,3")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tg *Text
	turns := 0
	next := func() (string, bool) {
		switch turns++; {
		case turns > 4:
			return "", false // the input ends
		case turns == 4:
			return "undo", true
		}
		if s := int(tg.g.Pos.Side); s != 0 && s != 2 {
			t.Errorf("prompted with seat %d to act, want seat 1 or 3", s+1)
		}
		return firstLegal(tg.g.Game), true
	}
	tg = NewText(v, seats, rolloutBot(t, v, 8), &scriptReader{next: next}, &out)
	if err := tg.Run(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, w := range []string{"You are seat 1 (O), seat 3 (X); the model plays seat 2 (@), seat 4 (#).", "seat 2 plays ", "seat 4 plays ", "Took back "} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	// Seats 1, 2, 3, 4, 1, 2 played; undo takes back the people's last
	// action (seat 1's second) and the model's reply (no removals this
	// early).
	if want := []int{0, 1, 2, 3}; !reflect.DeepEqual(tg.g.Movers, want) {
		t.Errorf("after undo the movers are %v, want %v", tg.g.Movers, want)
	}
}

func TestSeatLabel_NameAndSymbol(t *testing.T) {
	two, _ := engine.Load("nine")
	four, _ := engine.Load("moulin-rouge-4")
	if arena.SeatName(four, 2) != "seat 3" || seatLabel(two, 1) != "black (@)" {
		t.Errorf("names: %q %q", arena.SeatName(four, 2), seatLabel(two, 1))
	}
}
