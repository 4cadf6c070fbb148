package arena

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

func rolloutPlayer(sims int, moveTime time.Duration) *SearchPlayer {
	return &SearchPlayer{Label: "rollout", Settings: ArenaSettings(sims), MoveTime: moveTime,
		NewEvaluator: func(v *engine.Variant, seed uint64) (mcts.Evaluator, error) {
			return mcts.NewRolloutEvaluator(v, 1, 200, seed)
		}}
}

func TestSearchPlayer_BeatsRandom(t *testing.T) {
	v := loadVariant(t, "three")
	m := Match{Variant: v, A: rolloutPlayer(200, 0), B: Random{}, Pairs: 4, OpeningPlies: 1, Seed: 21}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, d, l := scoreOf(m.A.Name(), recs)
	t.Logf("search vs random: +%d =%d -%d", w, d, l)
	if l > 0 || w < 6 {
		t.Errorf("search vs random in three: +%d =%d -%d, want no losses and 6 wins or more", w, d, l)
	}
}

func TestSearchPlayer_FollowsTheGameAndKeepsTime(t *testing.T) {
	v := loadVariant(t, "nine")
	p := rolloutPlayer(mcts.MaxVisits, 30*time.Millisecond) // the time, not the visits, ends each move
	gp, err := p.NewGame(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := engine.NewGame(v)
	rnd, _ := Random{}.NewGame(v, 2)
	for i := 0; i < 6; i++ {
		start := time.Now()
		a, err := gp.Act(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if root := gp.(*SearchGame).s.Root(); root.Hash != g.Pos.Hash || root.Ply != g.Pos.Ply {
			t.Errorf("move %d: the search's root is not the game's position", i)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("move %d took %s with a 30ms budget", i, el)
		}
		if err := g.Play(a); err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
		b, _ := rnd.Act(context.Background(), g)
		if err := g.Play(b); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchPlayer_BadSettingsAreErrors(t *testing.T) {
	v := loadVariant(t, "nine")
	bad := rolloutPlayer(0, 0)
	if _, err := bad.NewGame(v, 0); err == nil {
		t.Errorf("0 simulations: no error")
	}
	none := &SearchPlayer{Label: "x", Settings: ArenaSettings(10)}
	if _, err := none.NewGame(v, 0); err == nil {
		t.Errorf("no evaluator: no error")
	}
}

// thinker is a rollout search game of sims visits a move.
func thinker(t *testing.T, v *engine.Variant, sims int) *SearchGame {
	t.Helper()
	g, err := NewSearchPlayer("rollout", ArenaSettings(sims), Evaluation{}).NewSearchGame(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSearchGame_FollowsTheGameAndStartsAfreshAfterUndo(t *testing.T) {
	v, _ := engine.Load("nine")
	bot := thinker(t, v, 64)
	g := engine.NewGame(v)
	res, err := bot.Think(context.Background(), g, 0, 0)
	if err != nil || res.Visited < 64 {
		t.Fatalf("first move: %v, %d visits", err, res.Visited)
	}
	g.Play(res.Best)
	g.Play(g.V.Legal(&g.Pos, nil)[0])
	bot.s.Follow(g)
	if root := bot.s.Root(); root != g.Pos {
		t.Fatal("after two actions the root is not the game's position")
	}
	if kept := bot.s.Result().Visited; kept == 0 {
		t.Error("the subtree of the actions played was not kept")
	}
	g.Undo()
	g.Undo()
	g.PlayString("a7")
	bot.s.Follow(g)
	if root := bot.s.Root(); root != g.Pos || bot.s.Result().Visited != 0 {
		t.Errorf("after undo and another action: root is the game's %v, %d visits; want the game's position, fresh",
			root == g.Pos, bot.s.Result().Visited)
	}
	if _, err := bot.Think(context.Background(), g, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func TestSearchGame_MoveTimeSearchesUntilTheTimeIsUp(t *testing.T) {
	v, _ := engine.Load("nine")
	bot := thinker(t, v, 16)
	g := engine.NewGame(v)
	start := time.Now()
	res, err := bot.Think(context.Background(), g, 0, 50*time.Millisecond)
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// Without a cap the visits are not the player's 16; the time is kept
	// to within a step of 32 visits (well under a second here).
	if res.Visited <= 16 || el < 50*time.Millisecond || el > time.Second {
		t.Errorf("%d visits in %s: want more than 16, in about 50ms", res.Visited, el)
	}
	bot = thinker(t, v, 16) // a fresh tree: the start's is reused
	res, err = bot.Think(context.Background(), engine.NewGame(v), 40, time.Minute)
	if err != nil || res.Visited < 40 || res.Visited > 40+32 {
		t.Errorf("capped at 40 visits: %d, %v", res.Visited, err)
	}
	over := engine.NewGame(v)
	for _, m := range strings.Fields("a7 d6 d7 f4 g7") {
		over.PlayString(m)
	}
	if _, err := bot.Think(context.Background(), over, 0, 0); err != nil {
		t.Errorf("a removal to choose: %v", err)
	}
}
