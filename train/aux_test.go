package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// The auxiliary targets are the game's end seen from the side to move:
// its own pieces, another seat's, empty points; its pieces on the board
// and in hand minus the most another seat has; the next action. A game
// whose end is unknown, or a position without a next action, has none.
func TestAuxTargets_FromTheSideToMove(t *testing.T) {
	v := mustVariant(t, "nine")
	c := auxConfig(plainConfig())
	c.BatchSize, c.Threads = 3, 1
	tr := newTrainer(t, v, newAuxNet(t, v, graphConfig(8, 1, 3), allAux, 1), c)
	batch := randomSamples(t, v, 3, 2)
	s := &batch[0]
	s.Position.Side = 1
	s.End = dataset.EndInfo{Pieces: [engine.MaxSeats]uint32{1<<5 | 1<<6, 1<<0 | 1<<1 | 1<<2 | 1<<9}, Hand: [engine.MaxSeats]uint8{1, 0}, Ply: 40}
	s.Reply = 7
	batch[1].End = dataset.EndInfo{}
	batch[2].Reply = -1
	wk := tr.workers[0]
	if err := tr.fill(wk, batch); err != nil {
		t.Fatal(err)
	}
	P := v.Board.Points
	for p, k := range wk.own[:P] {
		want := int8(model.OwnedByNone)
		switch p {
		case 0, 1, 2, 9:
			want = model.OwnedBySide
		case 5, 6:
			want = model.OwnedByOther
		}
		if k != want {
			t.Errorf("point %d: owner %d, want %d", p, k, want)
		}
	}
	if want := int32(4 - 3 + v.Pieces); wk.score[0] != want {
		t.Errorf("score class %d, want %d (a difference of 1)", wk.score[0], want)
	}
	if wk.reply[0] != 7 {
		t.Errorf("reply %d, want 7", wk.reply[0])
	}
	for _, k := range wk.own[P : 2*P] {
		if k != -1 {
			t.Fatalf("a game whose end is unknown: owners %v", wk.own[P:2*P])
		}
	}
	if wk.score[1] != -1 || wk.reply[1] != -1 {
		t.Errorf("a game whose end is unknown: score %d, reply %d", wk.score[1], wk.reply[1])
	}
	if wk.score[2] < 0 || wk.reply[2] != -1 {
		t.Errorf("a position without a next action: score %d, reply %d", wk.score[2], wk.reply[2])
	}

	s.End.Hand[1] = 12 // 16 pieces against 3: more than a seat has
	if err := tr.fill(wk, batch); err == nil || !strings.Contains(err.Error(), "material difference of 13") {
		t.Errorf("an impossible end: %v", err)
	}
}

// A graph network answers every turn of a board alike (of a board that
// does not rotate: a rotating board's rotation logits and features turn
// otherwise), so a network that sees each position in its canonical turn
// has the losses of one that sees it as it is, the auxiliary ones too:
// the targets turn with the position.
func TestAuxTargets_TurnWithACanonicalNetwork(t *testing.T) {
	for _, name := range []string{"nine", "three"} {
		t.Run(name, func(t *testing.T) {
			v := mustVariant(t, name)
			c := auxConfig(plainConfig())
			c.BatchSize = 12
			batch := randomSamples(t, v, 60, 6)[48:] // past the first plies, whose positions some turn fixes
			var st [2]Stats
			for k, orient := range []string{model.OrientRandom, model.OrientCanonical} {
				n := newAuxNet(t, v, model.Config{Kind: model.KindGraph, Width: 16, Blocks: 1, Features: 3, Orientation: orient}, allAux, 3)
				s, err := newTrainer(t, v, n, c).Loss(batch)
				if err != nil {
					t.Fatal(err)
				}
				st[k] = s
			}
			moved := 0
			for i := range batch {
				if v.CanonicalSymmetry(&batch[i].Position) != 0 {
					moved++
				}
			}
			if moved == 0 {
				t.Fatal("every position is its own canonical turn: the test shows nothing")
			}
			for _, q := range []struct {
				what string
				a, b float64
			}{{"ownership", st[0].Ownership, st[1].Ownership}, {"score", st[0].Score, st[1].Score}, {"reply", st[0].Reply, st[1].Reply}, {"total", st[0].Total, st[1].Total}} {
				if math.Abs(q.a-q.b) > 1e-4*math.Max(1, math.Abs(q.a)) {
					t.Errorf("%s loss %v as the positions are, %v in their canonical turns (%d of %d turned)", q.what, q.a, q.b, moved, len(batch))
				}
			}
		})
	}
}

// The step's gradient is the loss's derivative: along a random direction
// in each of the auxiliary heads' tensors and a few of the trunk's, the
// loss's change over a small step either way (a central difference, in
// float64 sums of float32 losses) is the gradient's inner product with
// the direction.
func TestAuxGradient_IsTheLossDerivative(t *testing.T) {
	v := mustVariant(t, "nine")
	c := auxConfig(plainConfig())
	c.BatchSize = 16
	c.WeightDecay = 0
	n := newAuxNet(t, v, graphConfig(12, 1, 3), allAux, 4)
	tr := newTrainer(t, v, n, c)
	batch := randomSamples(t, v, 16, 8)
	batch[2].End = dataset.EndInfo{}
	g := gradients(t, tr, batch)
	loss := func() float64 {
		s, err := tr.Loss(batch)
		if err != nil {
			t.Fatal(err)
		}
		return s.Total
	}
	rng := rand.New(rand.NewPCG(1, 2))
	own, score, reply, _ := n.Arch.AuxHeads()
	_, _, val := n.Arch.GraphHeads()
	for _, i := range []int{own, own + 1, score, score + 1, reply, reply + 1, val, model.GraphBlock(0), model.GraphInputPoint} {
		p := n.Params[i]
		d := make([]float32, len(p.Data))
		norm := 0.0
		for j := range d {
			d[j] = float32(rng.NormFloat64())
			norm += float64(d[j]) * float64(d[j])
		}
		const eps = 1e-3
		scale := float32(eps / math.Sqrt(norm))
		keep := append([]float32(nil), p.Data...)
		step := func(sign float32) float64 {
			for j := range p.Data {
				p.Data[j] = keep[j] + sign*scale*d[j]
			}
			return loss()
		}
		numeric := (step(1) - step(-1)) / (2 * eps)
		copy(p.Data, keep)
		analytic := 0.0
		for j, x := range g[i] {
			analytic += float64(x) * float64(d[j]) * float64(scale) / eps
		}
		if math.Abs(numeric-analytic) > 0.02*math.Abs(analytic)+2e-4 {
			t.Errorf("%s: the loss changes by %.6f a unit step, the gradient says %.6f", p.Name, numeric, analytic)
		}
	}
}

// A trainer refuses heads the network lacks, and any head for an MLP,
// naming the keys.
func TestAuxRefusedWithoutTheHeads(t *testing.T) {
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.ReplyWeight = 0.15
	for _, tc := range []struct {
		net  model.Config
		want string
	}{
		{graphConfig(8, 1, 3), "train.reply_weight above 0 and the network"},
		{model.Config{Width: 16, Blocks: 1, Features: 3}, "are a graph network's; set model.kind: graph"},
	} {
		if _, err := New(v, newNet(t, v, tc.net, 1), c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.net, err, tc.want)
		}
	}
	if err := (Config{OwnershipWeight: -1}).Validate(); err == nil {
		t.Error("a negative ownership weight is valid")
	}
}

// WithAux adds heads to a checkpoint and drops them, its training state
// with them: a trainer restores the result and trains on; the weights it
// shares with the checkpoint are the checkpoint's, the added heads' moments
// start at zero.
func TestAuxWithAux_CarriesTheTrainingState(t *testing.T) {
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.BatchSize, c.WeightEMA = 8, 0.9
	batch := randomSamples(t, v, 8, 3)
	sc := c
	sc.ScoreWeight = 0.5
	tr := newTrainer(t, v, newAuxNet(t, v, graphConfig(8, 1, 3), model.AuxScore, 2), sc)
	for range 3 {
		if _, err := tr.Step(batch); err != nil {
			t.Fatal(err)
		}
	}
	ck := tr.Checkpoint(1)
	for _, h := range []model.Aux{allAux, model.AuxOwnership, 0} {
		got, err := WithAux(ck, h, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got.Net.Arch.Aux != h || got.Steps != ck.Steps {
			t.Fatalf("heads %v, steps %d", got.Net.Arch.Aux, got.Steps)
		}
		cc := c
		cc.OwnershipWeight, cc.ScoreWeight, cc.ReplyWeight = 0, 0, 0
		if h&model.AuxOwnership != 0 {
			cc.OwnershipWeight = 1
		}
		if h&model.AuxReply != 0 {
			cc.ReplyWeight = 0.1
		}
		if h&model.AuxScore != 0 {
			cc.ScoreWeight = 0.5
		}
		next := newTrainer(t, v, got.Net.Clone(), cc)
		if err := next.Restore(got); err != nil {
			t.Fatalf("heads %v: %v", h, err)
		}
		if _, err := next.Step(batch); err != nil {
			t.Fatal(err)
		}
		for i, p := range got.Net.Params {
			if got.Net.Arch.HeadParam(i) {
				continue
			}
			if !slices.Equal(p.Data, ck.Net.Params[i].Data) {
				t.Errorf("heads %v: %s is not the checkpoint's", h, p.Name)
			}
		}
		for _, e := range got.Extra {
			if strings.HasPrefix(e.Name, "adam.m.ownership.") {
				for _, x := range e.Data {
					if x != 0 {
						t.Fatalf("%s: an added head's moment %v", e.Name, x)
					}
				}
			}
		}
	}
}
