package arena

import (
	"context"
	"testing"

	"github.com/millzero/millzero/engine"
)

func TestRandom_UniformOverLegalActionsAndSeeded(t *testing.T) {
	v := loadVariant(t, "nine")
	g := engine.NewGame(v) // 24 legal placements
	count := map[engine.Action]int{}
	const draws = 24000
	gp, _ := Random{}.NewGame(v, 7)
	for i := 0; i < draws; i++ {
		a, err := gp.Act(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		count[a]++
	}
	if len(count) != 24 {
		t.Fatalf("%d distinct actions, want all 24", len(count))
	}
	for a, n := range count {
		// Expected 1000 each, standard deviation about 31.
		if n < 850 || n > 1150 {
			t.Errorf("%s drawn %d times of %d, want about 1000", v.FormatAction(a), n, draws)
		}
	}
	seq := func(seed uint64) []engine.Action {
		gp, _ := Random{}.NewGame(v, seed)
		var out []engine.Action
		for i := 0; i < 20; i++ {
			a, _ := gp.Act(context.Background(), g)
			out = append(out, a)
		}
		return out
	}
	a, b, c := seq(1), seq(1), seq(2)
	same := func(x, y []engine.Action) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) || same(a, c) {
		t.Errorf("one seed must give one sequence and another seed another")
	}
}
