package train

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

func mustVariant(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// randomSamples plays games of random legal actions and records every
// position with a random policy over its legal actions and the game's
// result.
func randomSamples(t testing.TB, v *engine.Variant, n int, seed uint64) []dataset.Sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []dataset.Sample
	buf := make([]engine.Action, 0, engine.MaxActions)
	for game := 0; len(out) < n; game++ {
		g := engine.NewGame(v)
		var recs []dataset.Sample
		for ply := 0; ply < 200; ply++ {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			legal := v.Legal(&g.Pos, buf)
			s := dataset.Sample{Variant: v.Name, GameID: fmt.Sprintf("g%d-%d", seed, game), Ply: ply,
				Position: g.Pos, Repetitions: v.Repetitions(&g.Pos, g.Hashes), Full: true}
			var sum float32
			for _, a := range legal {
				p := rng.Float32()
				s.Policy = append(s.Policy, dataset.PolicyEntry{Action: uint16(v.ActionIndex(a)), Prob: p})
				sum += p
			}
			for i := range s.Policy {
				s.Policy[i].Prob /= sum
			}
			recs = append(recs, s)
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
		r, _ := g.Outcome()
		class := r.Class(v.Players)
		if class < 0 {
			class = v.Players // unfinished within 200 plies: call it a draw
		}
		end := dataset.EndOf(&g.Pos)
		for i := range recs {
			recs[i].Outcome, recs[i].End, recs[i].Reply = class, end, -1
			if k := recs[i].Ply + 1; k < len(g.Actions) {
				recs[i].Reply = v.ActionIndex(g.Actions[k])
			}
		}
		out = append(out, recs...)
	}
	return out[:n]
}

// sliceSource serves samples in order, then io.EOF.
type sliceSource struct {
	s []dataset.Sample
	i int
}

func (s *sliceSource) Next(d *dataset.Sample) error {
	if s.i >= len(s.s) {
		return io.EOF
	}
	*d = s.s[s.i]
	d.Policy = append([]dataset.PolicyEntry(nil), s.s[s.i].Policy...)
	s.i++
	return nil
}

func newNet(t testing.TB, v *engine.Variant, c model.Config, seed uint64) *model.Network {
	t.Helper()
	return newAuxNet(t, v, c, 0, seed)
}

// newAuxNet is newNet with the auxiliary heads aux.
func newAuxNet(t testing.TB, v *engine.Variant, c model.Config, aux model.Aux, seed uint64) *model.Network {
	t.Helper()
	a := model.NewArch(v, c)
	a.Aux = aux
	n, err := model.New(v.Name, a, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// allAux is every auxiliary head.
const allAux = model.AuxOwnership | model.AuxScore | model.AuxReply

// auxConfig is c training every auxiliary head, each at a weight of its
// own.
func auxConfig(c Config) Config {
	c.OwnershipWeight, c.ScoreWeight, c.ReplyWeight = 1.3, 0.6, 0.2
	return c
}

func newTrainer(t testing.TB, v *engine.Variant, n *model.Network, c Config) *Trainer {
	t.Helper()
	return newTrainerWith(t, v, n, c, defaultBackend())
}

// newTrainerWith is a trainer computing with b, closed when the test ends.
func newTrainerWith(t testing.TB, v *engine.Variant, n *model.Network, c Config, b backend) *Trainer {
	t.Helper()
	tr, err := newWith(v, n, c, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// gradients is the gradient of the loss of batch at tr's weights, as the
// trainer's step would apply it, copied.
func gradients(t testing.TB, tr *Trainer, batch []dataset.Sample) [][]float32 {
	t.Helper()
	if _, err := tr.forward(batch, true); err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(tr.net.Params))
	for i := range out {
		for w := range tr.workers {
			tr.combine(w, len(tr.workers), i)
		}
		out[i] = append([]float32(nil), tr.gbuf[i]...)
	}
	return out
}
