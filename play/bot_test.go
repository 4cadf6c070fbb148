package play

import (
	"context"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

func TestTopChoices_MostVisitedFirstWithShares(t *testing.T) {
	v, _ := engine.Load("three")
	bot, err := NewBot(v, arena.NewSearchPlayer("rollouts", arena.ArenaSettings(10), arena.Evaluation{}), "rollouts", 7) // few visits: ties
	if err != nil {
		t.Fatal(err)
	}
	res, err := bot.Think(context.Background(), engine.NewGame(v), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	top := TopChoices(v, res, 3)
	if len(top) != 3 || top[0].Action != v.FormatAction(res.Best) {
		t.Fatalf("top %+v: want 3, the best (%s) first", top, v.FormatAction(res.Best))
	}
	sum := 0.0
	for i, c := range TopChoices(v, res, 100) {
		sum += c.Share
		if i > 0 && c.Visits > top[0].Visits {
			t.Errorf("%+v is after the first but has more visits", c)
		}
	}
	if len(TopChoices(v, res, 100)) != 9 || sum < 0.999 || sum > 1.001 {
		t.Errorf("all 9 choices share %v of the visits, want 1", sum)
	}
}

func TestParseSeat_ColoursForTwoNumbersForMore(t *testing.T) {
	two, _ := engine.Load("nine")
	four, _ := engine.Load("moulin-rouge-4")
	cases := []struct {
		v    *engine.Variant
		in   string
		want int
		err  string
	}{
		{two, "white", 0, ""},
		{two, "Black", 1, ""},
		{two, "2", 1, ""},
		{two, "3", 0, "white, black, 1 or 2"},
		{four, "4", 3, ""},
		{four, "seat1", 0, ""},
		{four, "white", 0, "1..4"},
		{four, "0", 0, "1..4"},
	}
	for _, c := range cases {
		got, err := ParseSeat(c.v, c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s %q: %d, %v; want %d", c.v.Name, c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), c.in)):
			t.Errorf("%s %q: error %v, want one naming %q and %q", c.v.Name, c.in, err, c.in, c.err)
		}
	}
}
