package arena

import (
	"context"
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
	p := rolloutPlayer(1<<20, 30*time.Millisecond)
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
		if root := gp.(*searchGame).s.Root(); root.Hash != g.Pos.Hash || root.Ply != g.Pos.Ply {
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
