package train

import (
	"fmt"
	"math"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// A graph network's step written out (graphStep) computes the losses and
// the gradients of its Gorgonia graph: on a board of few points, on nine
// men's morris at the run config's width, and on a rotating board; in one
// chunk and in several, the last one short; with some rows without a
// policy target; on one worker and on two. With the auxiliary heads (all
// or some, with a weight of 0 too) it computes theirs: with rows whose
// game's end is unknown and rows without a next action. The forward pass
// alone (Loss) gives the losses the step does, bit for bit.
func TestGraphStepMatchesTheGorgoniaGraph(t *testing.T) {
	for _, tc := range []struct {
		variant               string
		net                   model.Config
		batch, chunk, threads int
		aux                   model.Aux
		weights               [3]float64 // ownership, score, reply
	}{
		{"three", graphConfig(4, 1, 1), 7, 3, 1, 0, [3]float64{}},
		{"three", graphConfig(6, 2, 3), 5, 0, 1, 0, [3]float64{}},
		{"nine", graphConfig(16, 2, 3), 13, 4, 1, 0, [3]float64{}},
		{"nine", graphConfig(24, 1, 3), 8, 8, 1, 0, [3]float64{}},
		{"nine", graphConfig(32, 2, 3), 10, 0, 2, 0, [3]float64{}},
		{"moulin-rouge-3", graphConfig(8, 2, 2), 9, 2, 1, 0, [3]float64{}},
		{"three", graphConfig(6, 2, 3), 7, 3, 1, allAux, [3]float64{1.3, 0.6, 0.2}},
		{"nine", graphConfig(16, 2, 3), 13, 4, 1, allAux, [3]float64{1.3, 0.6, 0.2}},
		{"nine", graphConfig(32, 2, 3), 10, 0, 2, allAux, [3]float64{1.5, 0.5, 0.15}},
		{"nine", graphConfig(16, 1, 3), 9, 0, 1, model.AuxOwnership | model.AuxReply, [3]float64{0.8, 0, 0}},
		{"moulin-rouge-3", graphConfig(8, 2, 2), 9, 2, 1, allAux, [3]float64{1.3, 0.6, 0.2}},
		{"moulin-rouge", graphConfig(8, 1, 3), 6, 0, 1, model.AuxScore | model.AuxReply, [3]float64{0, 0.4, 0.7}},
	} {
		name := fmt.Sprintf("%s/%s/batch=%d/chunk=%d/threads=%d", tc.variant, model.NewArch(mustVariant(t, tc.variant), tc.net), tc.batch, tc.chunk, tc.threads)
		if tc.aux != 0 {
			name += "/heads=" + tc.aux.String()
		}
		t.Run(name, func(t *testing.T) {
			v := mustVariant(t, tc.variant)
			c := plainConfig()
			c.BatchSize = tc.batch
			c.WeightDecay = 1e-3
			c.ValueWeight = 0.7
			c.Threads = tc.threads
			c.OwnershipWeight, c.ScoreWeight, c.ReplyWeight = tc.weights[0], tc.weights[1], tc.weights[2]
			ref := newTrainerWith(t, v, newAuxNet(t, v, tc.net, tc.aux, 5), c, gorgoniaBackend())
			got := newTrainer(t, v, newAuxNet(t, v, tc.net, tc.aux, 5), c)
			for _, wk := range got.workers {
				if wk.step == nil {
					t.Fatal("the trainer runs a graph network through its Gorgonia graph")
				}
			}
			if tc.chunk > 0 {
				setChunk(t, got, v, tc.chunk)
			}
			batch := randomSamples(t, v, tc.batch, 9)
			batch[1].Policy = nil            // a row without a policy target
			batch[2].End = dataset.EndInfo{} // a game whose end is unknown
			batch[3].Reply = -1              // a position without a next action
			var losses [2]Stats
			for k, grads := range []bool{false, true} {
				want, err := ref.forward(batch, grads)
				if err != nil {
					t.Fatal(err)
				}
				have, err := got.forward(batch, grads)
				if err != nil {
					t.Fatal(err)
				}
				losses[k] = have
				for _, q := range []struct {
					what      string
					got, want float64
				}{{"policy", have.Policy, want.Policy}, {"outcome", have.Outcome, want.Outcome}, {"l2", have.L2, want.L2}, {"total", have.Total, want.Total},
					{"ownership", have.Ownership, want.Ownership}, {"score", have.Score, want.Score}, {"reply", have.Reply, want.Reply}} {
					if math.Abs(q.got-q.want) > 1e-5*math.Max(1, math.Abs(q.want)) {
						t.Errorf("gradients %v: %s loss %v, Gorgonia's graph %v", grads, q.what, q.got, q.want)
					}
				}
			}
			if losses[0] != losses[1] {
				t.Errorf("losses %v from the forward pass alone, %v with the gradients", losses[0], losses[1])
			}
			for _, h := range []struct {
				head model.Aux
				loss float64
			}{{model.AuxOwnership, losses[0].Ownership}, {model.AuxScore, losses[0].Score}, {model.AuxReply, losses[0].Reply}} {
				if (tc.aux&h.head != 0) != (h.loss > 0) {
					t.Errorf("%v: loss %v with heads %v", h.head, h.loss, tc.aux)
				}
			}
			wantG, gotG := gradients(t, ref, batch), gradients(t, got, batch)
			for i, p := range got.net.Params {
				scale := 0.0
				for _, x := range wantG[i] {
					scale = max(scale, math.Abs(float64(x)))
				}
				for j := range wantG[i] {
					if d := math.Abs(float64(gotG[i][j] - wantG[i][j])); !(d <= 1e-4*scale+1e-7) {
						t.Errorf("%s[%d]: gradient %v, Gorgonia's graph %v (the tensor's largest %v)", p.Name, j, gotG[i][j], wantG[i][j], scale)
						break
					}
				}
			}
		})
	}
}

// setChunk remakes the graph steps of tr's workers with chunks of chunk
// positions.
func setChunk(t testing.TB, tr *Trainer, v *engine.Variant, chunk int) {
	t.Helper()
	for _, wk := range tr.workers {
		st, err := newGraphStep(v, tr.net, wk.hi-wk.lo, chunk)
		if err != nil {
			t.Fatal(err)
		}
		wk.step = st
	}
}

// BenchmarkGraphStepChunk is a graph network's step (32x2 and 64x2, batch
// 256, one worker a core) in chunks of 4 to 64 positions, and of the size
// newGraphStep picks (chunk=0): the chunk's activations stay in the L2
// cache from the forward pass to the backward one if it is small enough,
// and its products are the longer the larger it is.
func BenchmarkGraphStepChunk(b *testing.B) {
	v := mustVariant(b, "nine")
	for _, width := range []int{32, 64} {
		for _, chunk := range []int{0, 4, 8, 16, 32, 64} {
			b.Run(fmt.Sprintf("net=graph-%dx2/chunk=%d", width, chunk), func(b *testing.B) {
				c := plainConfig()
				tr := newTrainer(b, v, newNet(b, v, graphConfig(width, 2, 3), 1), c)
				if chunk > 0 {
					setChunk(b, tr, v, chunk)
				}
				benchSteps(b, tr, randomSamples(b, v, c.BatchSize, 1))
			})
		}
	}
}
