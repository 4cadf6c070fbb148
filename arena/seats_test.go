package arena

import (
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestResultText_SaysWhoWonAndWhy(t *testing.T) {
	three, _ := engine.Load("three")
	g := engine.NewGame(three)
	for _, m := range strings.Fields("a3 a1 b3 b1 c3") {
		if err := g.PlayString(m); err != nil {
			t.Fatal(err)
		}
	}
	r, why := g.Outcome()
	if got := ResultText(three, &g.Pos, r, why); got != "white wins: white formed a line of three" {
		t.Errorf("line: %q", got)
	}
	nine, _ := engine.Load("nine")
	p := nine.Start()
	cases := []struct {
		r    engine.Result
		why  engine.Reason
		want string
	}{
		{engine.WinFor(1), engine.NoLegalAction, "black wins: white has no legal action"},
		{engine.Draw, engine.RepetitionDraw, "draw: the same position arose 3 times"},
		{engine.Draw, engine.PlyCapDraw, "draw: the game reached its limit of"},
	}
	for _, c := range cases {
		if got := ResultText(nine, &p, c.r, c.why); !strings.HasPrefix(got, c.want) {
			t.Errorf("%v %v: %q, want %q", c.r, c.why, got, c.want)
		}
	}
}
