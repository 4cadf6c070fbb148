package arena

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
)

// Random is the uniform-random player: every legal action equally likely.
// It is the Elo anchor (rating 0).
type Random struct{}

// RandomName is the name of the Random player in tables and records.
const RandomName = "random"

// Name is RandomName.
func (Random) Name() string { return RandomName }

// NewGame makes a random player seeded with seed.
func (Random) NewGame(v *engine.Variant, seed uint64) (GamePlayer, error) {
	return &randomGame{v: v, rng: rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))}, nil
}

type randomGame struct {
	v   *engine.Variant
	rng *rand.Rand
	buf [engine.MaxActions]engine.Action
}

func (r *randomGame) Act(_ context.Context, g *engine.Game) (engine.Action, error) {
	legal := r.v.Legal(&g.Pos, r.buf[:0])
	if len(legal) == 0 {
		return 0, fmt.Errorf("random player: no legal action")
	}
	return legal[r.rng.IntN(len(legal))], nil
}

func (r *randomGame) Close() error { return nil }
