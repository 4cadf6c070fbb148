package train

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/millzero/millzero/model"
)

// After the first step, which makes the graphs' buffers, a training step
// and a validation pass allocate nothing: on one graph and on two, with
// Adam and with SGD, and on one graph whose products are split over two
// cores (a network and batch large enough for the splitter, and one
// whose weight gradients multiply a packed transpose); an MLP and a graph
// network alike, the graph network's step written out (graphStep, which
// splits nothing) and through its Gorgonia graph.
func TestStepAfterTheFirstAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("coverage and race instrumentation allocate")
	}
	v := mustVariant(t, "nine")
	samples := randomSamples(t, v, 256, 5)
	for _, tc := range []struct {
		threads, procs, batch, width int
		optimizer, kind              string
		gorgonia                     bool // a graph network through its Gorgonia graph
		aux                          bool // with every auxiliary head
	}{
		{1, 1, 24, 16, "adam", model.KindMLP, false, false}, {2, 2, 24, 16, "adam", model.KindMLP, false, false}, {1, 1, 24, 16, "sgd", model.KindMLP, false, false}, {2, 2, 24, 16, "sgd", model.KindMLP, false, false},
		{1, 2, 48, 64, "adam", model.KindMLP, false, false}, // split products
		{1, 1, 24, 16, "adam", model.KindGraph, false, false}, {2, 2, 24, 16, "adam", model.KindGraph, false, false}, {1, 2, 48, 16, "adam", model.KindGraph, false, false},
		{1, 1, 24, 16, "adam", model.KindGraph, true, false}, {2, 2, 24, 16, "adam", model.KindGraph, true, false}, {1, 2, 48, 16, "adam", model.KindGraph, true, false},
		{1, 2, 256, 16, "adam", model.KindGraph, true, false}, // a weight gradient's transpose packed (kernelBLAS.packed)
		{1, 1, 24, 16, "adam", model.KindGraph, false, true}, {2, 2, 24, 16, "adam", model.KindGraph, false, true}, {1, 1, 24, 16, "adam", model.KindGraph, true, true},
	} {
		t.Run(fmt.Sprintf("threads=%d/cores=%d/batch=%d/net=%s-%dx2/%s/gorgonia=%v/heads=%v", tc.threads, tc.procs, tc.batch, tc.kind, tc.width, tc.optimizer, tc.gorgonia, tc.aux), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			c := plainConfig()
			c.BatchSize = tc.batch
			c.Threads = tc.threads
			c.Optimizer = tc.optimizer
			samples := samples[:tc.batch]
			be := defaultBackend()
			if tc.gorgonia {
				be = gorgoniaBackend()
			}
			var aux model.Aux
			if tc.aux {
				c, aux = auxConfig(c), allAux
			}
			tr := newTrainerWith(t, v, newAuxNet(t, v, model.Config{Kind: tc.kind, Width: tc.width, Blocks: 2, Features: 3}, aux, 3), c, be)
			if split := tr.split != nil; split != (tc.procs > tc.threads && (tc.kind == model.KindMLP || tc.gorgonia)) {
				t.Fatalf("splitter %v with %d threads on %d cores", split, tc.threads, tc.procs)
			}
			if _, err := tr.Step(samples); err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Loss(samples); err != nil {
				t.Fatal(err)
			}
			var err error
			if n := testing.AllocsPerRun(20, func() {
				if _, e := tr.Step(samples); e != nil {
					err = e
				}
			}); n != 0 {
				t.Errorf("a step allocates %v times", n)
			}
			if n := testing.AllocsPerRun(20, func() {
				if _, e := tr.Loss(samples); e != nil {
					err = e
				}
			}); n != 0 {
				t.Errorf("a validation batch allocates %v times", n)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A kernel is kept only if it gives the value Gorgonia's op gave on the
// first run, bit for bit; one that does not is dropped and the op's value
// put back.
func TestCheckDropsAKernelThatDiffersFromTheOp(t *testing.T) {
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.BatchSize = 6
	c.Threads = 1
	tr := newTrainer(t, v, newNet(t, v, model.Config{Width: 8, Blocks: 1}, 3), c)
	if _, err := tr.Loss(randomSamples(t, v, 6, 7)); err != nil {
		t.Fatal(err)
	}
	m := tr.workers[0].mLoss
	for i := range m.nodes {
		d, ok := m.vals[i].(*tensor.Dense)
		if m.kern[i] == nil || !ok || !m.pre[i] {
			continue
		}
		want := slices.Clone(d.Float32s())
		right := m.kern[i]
		wrong := func() error {
			if err := right(); err != nil {
				return err
			}
			d.Float32s()[0] += 1
			return nil
		}
		if m.check(i, wrong) {
			t.Fatalf("node %s: a kernel off by one in its first value passed the check", m.nodes[i].Name())
		}
		if !slices.Equal(d.Float32s(), want) || m.vals[i] != any(d) {
			t.Fatalf("node %s: the op's value was not put back", m.nodes[i].Name())
		}
		if !m.check(i, right) {
			t.Fatalf("node %s: its own kernel fails the check", m.nodes[i].Name())
		}
		return
	}
	t.Fatal("no node with a kernel writing into its own tensor")
}
