package train

import (
	"fmt"
	"math"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/millzero/millzero/model"
)

// Splitting the batch over workers changes only the order of float32
// sums: the losses and the weights after several Adam steps match the
// single graph's, an MLP's and a graph network's.
func TestParallelStepMatchesSerialStep(t *testing.T) {
	v := mustVariant(t, "nine")
	samples := randomSamples(t, v, 4*29, 21)
	for _, tc := range []struct {
		net     model.Config
		threads int
	}{{model.Config{Width: 32, Blocks: 2}, 2}, {model.Config{Width: 32, Blocks: 2}, 3}, {graphConfig(8, 2, 3), 2}} {
		threads := tc.threads
		t.Run(fmt.Sprintf("%s/threads=%d", model.NewArch(v, tc.net), threads), func(t *testing.T) {
			c := plainConfig()
			c.BatchSize = 29 // uneven shares: 14+15, 9+10+10
			c.WarmupSteps = 0
			c.Threads = 1
			serial := newTrainer(t, v, newNet(t, v, tc.net, 8), c)
			c.Threads = threads
			par := newTrainer(t, v, newNet(t, v, tc.net, 8), c)
			if serial.Workers() != 1 || par.Workers() != threads {
				t.Fatalf("workers %d and %d, want 1 and %d", serial.Workers(), par.Workers(), threads)
			}
			for s := 0; s < 4; s++ {
				batch := samples[29*s : 29*s+29]
				a, err := serial.Step(batch)
				if err != nil {
					t.Fatal(err)
				}
				b, err := par.Step(batch)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range []struct {
					what string
					x, y float64
				}{{"policy", a.Policy, b.Policy}, {"outcome", a.Outcome, b.Outcome}, {"l2", a.L2, b.L2}, {"total", a.Total, b.Total}} {
					if math.Abs(d.x-d.y) > 1e-5*(1+math.Abs(d.x)) {
						t.Errorf("step %d: %s loss %v serial, %v on %d workers", s, d.what, d.x, d.y, threads)
					}
				}
				if a.Samples != b.Samples || a.LR != b.LR {
					t.Errorf("step %d: %v serial, %v on %d workers", s, a, b, threads)
				}
			}
			// Adam's first steps move every weight by about lr, whatever
			// the gradient's size: compare the moves, relative to lr. A
			// graph network's policy biases of placing, removing and a
			// move's origin and destination shift all the logits of a
			// kind alike, and the legal actions of a position of nine are
			// of one kind: their gradient is 0 but for rounding, which
			// Adam scales up to lr as well, so they are left out.
			worst := 0.0
			net := serial.Network()
			for i, p := range net.Params {
				q := par.Network().Params[i]
				for j := range p.Data {
					if pol, _, _ := net.Arch.GraphHeads(); net.Arch.Kind == model.KindGraph && i == pol+1 && j < 4 {
						continue
					}
					worst = max(worst, math.Abs(float64(p.Data[j]-q.Data[j]))/c.LR)
				}
			}
			if worst > 0.01 {
				t.Errorf("weights after 4 steps differ by up to %.3g lr", worst)
			}
		})
	}
}

// The machine reuses each node's output buffer from one run to the next.
// Its losses and gradients must be those of a fresh machine, which
// allocates every output, on a second and third batch as on the first;
// the forward-only machine of Loss must give the same losses.
// (Gorgonia's TapeMachine is no reference here: with the reshaped views
// of the loss's inner products it returns NaN gradients.)
func TestMachineReusingBuffersMatchesAFreshOne(t *testing.T) {
	for _, net := range []model.Config{{Width: 16, Blocks: 1}, graphConfig(8, 1, 3)} {
		t.Run(model.NewArch(mustVariant(t, "nine"), net).String(), func(t *testing.T) {
			machineMatchesAFreshOne(t, net)
		})
	}
}

// machineMatchesAFreshOne is TestMachineReusingBuffersMatchesAFreshOne of
// a network of trunk net.
func machineMatchesAFreshOne(t *testing.T, net model.Config) {
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.BatchSize = 12
	c.Threads = 1
	tr := newTrainerWith(t, v, newNet(t, v, net, 2), c, gorgoniaBackend())
	wk := tr.workers[0]
	outputs := append(G.Nodes{wk.loss.Policy, wk.loss.Outcome, wk.loss.L2, wk.loss.Total}, wk.grads...)
	samples := randomSamples(t, v, 36, 4)
	for run := 0; run < 3; run++ {
		batch := samples[12*run : 12*run+12]
		loss, err := tr.forward(batch, false)
		if err != nil {
			t.Fatal(err)
		}
		step, err := tr.forward(batch, true)
		if err != nil {
			t.Fatal(err)
		}
		if loss != step {
			t.Errorf("run %d: losses %v from the forward pass alone, %v with the gradients", run, loss, step)
		}
		fresh, err := newMachine(wk.gr.G, defaultBackend(), opIndex{}, outputs...)
		if err != nil {
			t.Fatal(err)
		}
		if err := fresh.run(); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(wk.m.pre, true) {
			t.Fatal("the trainer's machine reuses no buffer")
		}
		for _, n := range outputs[:4] {
			got, err := wk.m.scalar(n)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.scalar(n)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("run %d: %s is %v, fresh machine %v", run, n.Name(), got, want)
			}
		}
		for i, g := range wk.grads {
			got, want := wk.m.float32s(g), fresh.float32s(g)
			if len(got) == 0 || len(got) != len(want) {
				t.Fatalf("run %d: gradient of %s has %d values, fresh machine %d", run, tr.net.Params[i].Name, len(got), len(want))
			}
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("run %d: gradient of %s[%d] is %v, fresh machine %v", run, tr.net.Params[i].Name, j, got[j], want[j])
				}
			}
		}
	}
}
