package arena

import (
	"context"
	"testing"

	"github.com/millzero/millzero/arena/rating"
)

func TestGate_StopsAsSoonAsItDecides(t *testing.T) {
	v := loadVariant(t, "nine")
	m := Match{Variant: v, A: AlphaBeta{Depth: 2}, B: Random{}, OpeningPlies: 4, Seed: 3, Workers: 2}
	res, err := Gate(context.Background(), m, rating.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}, 400, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("decision %s after %d pairs (%d games), LLR %.2f, penta %v", res.Decision, res.Penta.Pairs(), len(res.Records), res.LLR, res.Penta)
	if !res.Accepted() {
		t.Errorf("alphabeta:2 vs random: %s, want H1", res.Decision)
	}
	// It stopped at the first pair that decided: one pair fewer did not.
	before := res.Penta
	before[4]--
	if d, _ := (rating.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}).Decide(before); d != rating.Continue {
		t.Errorf("one pair before the end the test had already decided %s", d)
	}
	// Games in flight when it decided may have finished too, no more.
	if extra := len(res.Records) - 2*res.Penta.Pairs(); extra < 0 || extra > m.Workers {
		t.Errorf("%d games for %d pairs with %d workers", len(res.Records), res.Penta.Pairs(), m.Workers)
	}
}
