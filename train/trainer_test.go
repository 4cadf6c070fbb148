package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// referenceLoss computes the loss in float64 from the forward pass: the
// definition the graph must implement.
func referenceLoss(t *testing.T, v *engine.Variant, n *model.Network, c Config, batch []dataset.Sample) (policy, outcome, l2 float64) {
	a := n.Arch
	x := make([]float32, len(batch)*a.Inputs)
	for i := range batch {
		model.Encode(v, a.Encoder, &batch[i].Position, batch[i].Repetitions, x[i*a.Inputs:(i+1)*a.Inputs])
	}
	pl, ol := referenceLogits(t, v, n, x, len(batch))
	for i, s := range batch {
		legal := v.Legal(&s.Position, nil)
		row := pl[i*a.Actions : (i+1)*a.Actions]
		lse := 0.0
		for _, act := range legal {
			lse += math.Exp(row[v.ActionIndex(act)])
		}
		lse = math.Log(lse)
		for _, e := range s.Policy {
			policy -= float64(e.Prob) * (row[e.Action] - lse)
		}
		orow := ol[i*a.Outcomes : (i+1)*a.Outcomes]
		lse = 0
		for _, o := range orow {
			lse += math.Exp(o)
		}
		outcome -= orow[model.RelativeOutcome(s.Outcome, int(s.Position.Side), v.Players)] - math.Log(lse)
	}
	for _, p := range n.Params {
		if p.IsWeight() {
			for _, w := range p.Data {
				l2 += float64(w) * float64(w)
			}
		}
	}
	b := float64(len(batch))
	return policy / b, outcome / b, l2 * c.WeightDecay
}

// referenceLogits is the policy and outcome logits of n on the batch ×
// Inputs features x, from the forward pass (which package model checks
// against a graph network's specification).
func referenceLogits(t *testing.T, v *engine.Variant, n *model.Network, x []float32, batch int) (policy, outcome []float64) {
	t.Helper()
	a := n.Arch
	pl := make([]float32, batch*a.Actions)
	ol := make([]float32, batch*a.Outcomes)
	if err := model.NewForward(n, batch).Run(x, batch, pl, ol); err != nil {
		t.Fatal(err)
	}
	for _, p := range pl {
		policy = append(policy, float64(p))
	}
	for _, o := range ol {
		outcome = append(outcome, float64(o))
	}
	return policy, outcome
}

func TestLossIsCrossEntropyOfMaskedPolicyAndOutcomePlusL2(t *testing.T) {
	for _, tc := range []struct {
		name string
		net  model.Config
	}{
		{"three", model.Config{Width: 32, Blocks: 1}}, {"nine", model.Config{Width: 32, Blocks: 1}}, {"moulin-rouge-3", model.Config{Width: 32, Blocks: 1}},
		{"three", graphConfig(8, 1, 1)}, {"nine", graphConfig(8, 1, 3)}, {"moulin-rouge-3", graphConfig(8, 1, 2)},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.name, model.NewArch(mustVariant(t, tc.name), tc.net)), func(t *testing.T) {
			v := mustVariant(t, tc.name)
			c := plainConfig()
			c.BatchSize = 8
			c.WeightDecay = 1e-3
			n := newNet(t, v, tc.net, 2)
			tr := newTrainer(t, v, n, c)
			batch := randomSamples(t, v, 8, 4)
			got, err := tr.Loss(batch)
			if err != nil {
				t.Fatal(err)
			}
			p, o, l2 := referenceLoss(t, v, n, c, batch)
			for _, q := range []struct {
				what      string
				got, want float64
			}{{"policy", got.Policy, p}, {"outcome", got.Outcome, o}, {"l2", got.L2, l2}, {"total", got.Total, p + o + l2}} {
				if math.Abs(q.got-q.want) > 1e-4*math.Max(1, math.Abs(q.want)) {
					t.Errorf("%s loss %v, reference %v", q.what, q.got, q.want)
				}
			}
		})
	}
}

// The gradient, averaged over the graphs of however many workers split
// the batch, is the derivative of the batch's loss: an MLP's and a graph
// network's. The graph network's batch has positions of every phase (its
// placing, moving and removing logits are apart), its reference loss is
// in float64 and its step smaller: four channels a point leave many units
// near a ReLU's kink.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	for _, tc := range []struct {
		net     model.Config
		threads int
	}{
		{model.Config{Width: 8, Blocks: 1}, 1}, {model.Config{Width: 8, Blocks: 1}, 2}, {model.Config{Width: 8, Blocks: 1}, 4},
		{model.Config{Width: 8, Blocks: 1}, 6}, // 6: a row each, and one graph without an L2 term
		{graphConfig(4, 1, 1), 1}, {graphConfig(4, 1, 1), 2}, {graphConfig(4, 1, 3), 1},
		{graphConfig(128, 1, 1), 1}, // a gather 512 wide: its derivative's slices hash apart
	} {
		t.Run(fmt.Sprintf("%s/width=%d/threads=%d", tc.net.Kind, tc.net.Width, tc.threads), func(t *testing.T) {
			threads := tc.threads
			v := mustVariant(t, "three")
			c := plainConfig()
			c.BatchSize = 6
			c.WeightDecay = 1e-2
			c.Threads = threads
			n := newNet(t, v, tc.net, 3)
			tr := newTrainer(t, v, n, c)
			if tr.Workers() != threads {
				t.Fatalf("%d workers, want %d", tr.Workers(), threads)
			}
			batch, h := randomSamples(t, v, 6, 5), 1e-2
			if tc.net.Kind == model.KindGraph {
				all := randomSamples(t, v, 60, 5)
				batch, h = nil, 1e-4
				for i := range 6 {
					batch = append(batch, all[11*i])
				}
			}
			grads := gradients(t, tr, batch)
			loss := func() float64 {
				p, o, l2 := referenceLoss(t, v, n, c, batch)
				return p + o + l2
			}
			checked := 0
			for i, p := range n.Params {
				for _, j := range []int{0, len(p.Data) / 2, len(p.Data) - 1} {
					w := p.Data[j]
					p.Data[j] = w + float32(h)
					up := loss()
					p.Data[j] = w - float32(h)
					down := loss()
					p.Data[j] = w
					num := (up - down) / (2 * h)
					if math.Abs(num-float64(grads[i][j])) > 2e-3+0.02*math.Abs(num) {
						t.Errorf("%s[%d]: gradient %v, finite difference %v", p.Name, j, grads[i][j], num)
					}
					checked++
				}
			}
			if checked < 18 {
				t.Fatalf("checked %d gradients", checked)
			}
		})
	}
}

// Training on one batch fits it: the outcome loss halves and the policy
// loss falls. A graph network answers alike the points that its features
// and their neighbourhoods do not tell apart, so it fits the batch's
// random policy targets less closely than an MLP, which can learn each
// position's own.
func TestTrainingFitsABatch(t *testing.T) {
	for _, tc := range []struct {
		opt        string
		net        model.Config
		policyDrop float64
	}{
		{"adam", model.Config{Width: 64, Blocks: 2}, 0.05}, {"sgd", model.Config{Width: 64, Blocks: 2}, 0.05},
		{"adam", graphConfig(16, 2, 3), 0.02},
	} {
		opt := tc.opt
		t.Run(fmt.Sprintf("%s/%s", opt, model.NewArch(mustVariant(t, "nine"), tc.net)), func(t *testing.T) {
			v := mustVariant(t, "nine")
			c := plainConfig()
			c.BatchSize = 32
			c.Optimizer = opt
			c.Schedule = "constant"
			c.WarmupSteps = 0
			if opt == "sgd" {
				c.LR = 0.05
			}
			tr := newTrainer(t, v, newNet(t, v, tc.net, 1), c)
			batch := randomSamples(t, v, 32, 9)
			first, err := tr.Loss(batch)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 60; i++ {
				if _, err := tr.Step(batch); err != nil {
					t.Fatal(err)
				}
			}
			last, _ := tr.Loss(batch)
			if !(last.Outcome < 0.5*first.Outcome) || !(last.Policy < first.Policy-tc.policyDrop) {
				t.Errorf("after 60 steps on one batch: %v, at first %v", last, first)
			}
		})
	}
}

func TestCheckpointResumesTrainingExactly(t *testing.T) {
	v := mustVariant(t, "three")
	c := plainConfig()
	c.BatchSize = 16
	batches := randomSamples(t, v, 64, 11)
	a := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 4), c)
	for i := 0; i < 3; i++ {
		if _, err := a.Step(batches[16*i : 16*i+16]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "ck.safetensors")
	if err := a.Checkpoint(7).Save(path); err != nil {
		t.Fatal(err)
	}
	ck, err := model.LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	b := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 99), c)
	if err := b.Restore(ck); err != nil {
		t.Fatal(err)
	}
	if b.Steps() != 3 || ck.Generation != 7 {
		t.Errorf("restored %d steps, generation %d", b.Steps(), ck.Generation)
	}
	sa, err := a.Step(batches[48:])
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.Step(batches[48:])
	if err != nil {
		t.Fatal(err)
	}
	if sa != sb {
		t.Errorf("step after restore: %v, uninterrupted %v", sb, sa)
	}
	for i, p := range a.Network().Params {
		q := b.Network().Params[i]
		for j := range p.Data {
			if p.Data[j] != q.Data[j] {
				t.Fatalf("%s[%d]: %v resumed, %v uninterrupted", p.Name, j, q.Data[j], p.Data[j])
			}
		}
	}
}

func TestBadSamplesAreRefusedByName(t *testing.T) {
	v := mustVariant(t, "three")
	c := plainConfig()
	c.BatchSize = 4
	tr := newTrainer(t, v, newNet(t, v, model.Config{Width: 8, Blocks: 0}, 1), c)
	for _, tc := range []struct {
		name  string
		spoil func(s *dataset.Sample)
		want  string
	}{
		{"illegal policy action", func(s *dataset.Sample) { s.Policy[0].Action = uint16(v.NumActions() - 1) }, "not legal"},
		{"other variant", func(s *dataset.Sample) { s.Variant = "nine" }, `variant "nine"`},
		{"outcome out of range", func(s *dataset.Sample) { s.Outcome = 7 }, "outcome 7"},
		{"negative probability", func(s *dataset.Sample) { s.Policy[0].Prob = -1 }, "probability -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batch := randomSamples(t, v, 4, 1)
			tc.spoil(&batch[2])
			_, err := tr.Step(batch)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), batch[2].GameID) {
				t.Errorf("error %v, want one naming game %s and saying %q", err, batch[2].GameID, tc.want)
			}
		})
	}
	if _, err := tr.Step(randomSamples(t, v, 3, 1)); err == nil {
		t.Error("a batch of 3 for a graph of 4: no error")
	}
}

func TestFitStopsAtTheEndOfTheSource(t *testing.T) {
	v := mustVariant(t, "three")
	c := plainConfig()
	c.BatchSize = 10
	tr := newTrainer(t, v, newNet(t, v, model.Config{Width: 8, Blocks: 1}, 1), c)
	var reports []Stats
	n, err := tr.Fit(t.Context(), &sliceSource{s: randomSamples(t, v, 45, 2)}, 100, 2, func(_ int64, s Stats) { reports = append(reports, s) })
	if err != nil || n != 4 || tr.Steps() != 4 {
		t.Fatalf("Fit: %d steps, %v; want 4 (45 samples, batches of 10)", n, err)
	}
	if len(reports) != 2 || reports[0].Samples != 20 || reports[1].Samples != 20 {
		t.Errorf("reports %v, want two of 20 samples", reports)
	}
	val, err := tr.Validate(&sliceSource{s: randomSamples(t, v, 25, 3)}, 0)
	if err != nil || val.Samples != 20 {
		t.Errorf("Validate: %v over %d samples, want 20", err, val.Samples)
	}
}

// Fit's steps are those of stepping batch by batch in src's order, bit for
// bit, on one worker and on several (where the assisting goroutines take each optimizer
// step while Fit reads the next batch), a Fit that ends at its step count
// reads no further, and a done context stops it before a step.
func TestFitTakesTheStepsOfReadingOneBatchAtATime(t *testing.T) {
	v := mustVariant(t, "nine")
	samples := randomSamples(t, v, 200, 4)
	for _, threads := range []int{1, 2, 3} {
		c := plainConfig()
		c.BatchSize = 16
		c.Threads = threads
		c.WeightEMA = 0.9
		fitted := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 3), c)
		src := &sliceSource{s: samples}
		if n, err := fitted.Fit(t.Context(), src, 7, 3, func(int64, Stats) {}); err != nil || n != 7 {
			t.Fatalf("threads %d: Fit: %d steps, %v; want 7", threads, n, err)
		}
		if src.i != 7*c.BatchSize {
			t.Errorf("threads %d: Fit of 7 steps read %d samples, want %d", threads, src.i, 7*c.BatchSize)
		}
		stepped := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 3), c)
		for k := 0; k < 7; k++ {
			if _, err := stepped.Step(samples[k*c.BatchSize : (k+1)*c.BatchSize]); err != nil {
				t.Fatal(err)
			}
		}
		a, b := fitted.Checkpoint(1), stepped.Checkpoint(1)
		want := append(b.Net.Params, b.Extra...)
		for i, p := range append(a.Net.Params, a.Extra...) {
			q := want[i]
			for j, w := range p.Data {
				if w != q.Data[j] {
					t.Fatalf("threads %d: %s[%d]: Fit %v, batch by batch %v", threads, p.Name, j, w, q.Data[j])
				}
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if n, err := fitted.Fit(ctx, src, 5, 0, nil); !errors.Is(err, context.Canceled) || n != 0 {
			t.Errorf("threads %d: Fit with a cancelled context: %d steps, %v; want none and the context's error", threads, n, err)
		}
	}
}

func TestLearningRateSchedules(t *testing.T) {
	base := Config{LR: 1, MinLR: 0.1, WarmupSteps: 10, DecaySteps: 100, Gamma: 0.5}
	for _, c := range []struct {
		schedule string
		step     int64
		want     float64
	}{
		{"constant", 0, 0.1}, {"constant", 9, 1}, {"constant", 5000, 1},
		{"cosine", 10, 1}, {"cosine", 60, 0.55}, {"cosine", 110, 0.1}, {"cosine", 9999, 0.1},
		{"step", 10, 1}, {"step", 109, 1}, {"step", 110, 0.5}, {"step", 310, 0.125},
	} {
		cfg := base
		cfg.Schedule = c.schedule
		if got := cfg.LearningRate(c.step); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s step %d: lr %v, want %v", c.schedule, c.step, got, c.want)
		}
	}
}

func TestConfigRejectsNonsense(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, spoil := range []func(*Config){
		func(c *Config) { c.BatchSize = 0 }, func(c *Config) { c.Optimizer = "rmsprop" },
		func(c *Config) { c.LR = 0 }, func(c *Config) { c.Schedule = "linear" },
		func(c *Config) { c.DecaySteps = 0 }, func(c *Config) { c.MinLR = 1 },
		func(c *Config) { c.Beta2 = 1 }, func(c *Config) { c.WeightDecay = -1 },
	} {
		c := plainConfig()
		spoil(&c)
		if c.Validate() == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestRowsWithoutAPolicyTargetAddNoPolicyLoss(t *testing.T) {
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.BatchSize = 8
	n := newNet(t, v, model.Config{Width: 16, Blocks: 1}, 6)
	tr := newTrainer(t, v, n, c)
	batch := randomSamples(t, v, 8, 12)
	for _, i := range []int{1, 4, 5} {
		batch[i].Policy, batch[i].Full = nil, false
	}
	got, err := tr.Loss(batch)
	if err != nil {
		t.Fatal(err)
	}
	p, o, _ := referenceLoss(t, v, n, c, batch) // sums over the rows with a policy, / 8
	if want := p * 8 / 5; math.Abs(got.Policy-want) > 1e-4*math.Max(1, want) {
		t.Errorf("policy loss %v, want %v: the mean over the 5 rows with a target", got.Policy, want)
	}
	if math.Abs(got.Outcome-o) > 1e-4*math.Max(1, o) {
		t.Errorf("outcome loss %v, want %v over all 8 rows", got.Outcome, o)
	}
}

func TestFit_ANonFiniteLossStopsTrainingNamingTheStep(t *testing.T) {
	v := mustVariant(t, "three")
	c := plainConfig()
	c.BatchSize = 10
	tr := newTrainer(t, v, newNet(t, v, model.Config{Width: 8, Blocks: 1}, 1), c)
	src := &sliceSource{s: randomSamples(t, v, 100, 2)}
	if _, err := tr.Fit(t.Context(), src, 3, 0, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range tr.net.Params { // as a diverged update leaves them
		for i := range p.Data {
			p.Data[i] = float32(math.NaN())
		}
	}
	n, err := tr.Fit(t.Context(), src, 5, 0, nil)
	if !errors.Is(err, ErrNonFiniteLoss) || !strings.Contains(err.Error(), "step 3") {
		t.Fatalf("Fit over NaN weights: %d steps, %v; want ErrNonFiniteLoss naming step 3", n, err)
	}
	if n != 0 || tr.Steps() != 3 {
		t.Errorf("Fit took %d steps (%d in all) after the non-finite loss, want none", n, tr.Steps())
	}
}

// A network of canonical orientation learns every turn of a board as its
// canonical one: a batch and the same batch turned have one loss, the
// loss of the batch turned to its canonical images.
func TestCanonicalNetworkLossIsTheSameForEveryTurnOfTheBoard(t *testing.T) {
	for _, name := range []string{"nine", "moulin-rouge-3"} {
		t.Run(name, func(t *testing.T) {
			v := mustVariant(t, name)
			c := plainConfig()
			c.BatchSize = 8
			// Positions that some turn of the board leaves as they are (the
			// start, for one) have more than one canonical turn of their
			// actions, which the network cannot tell apart: left out.
			var batch []dataset.Sample
			for _, s := range randomSamples(t, v, 200, 4) {
				fixed := false
				for k := 1; k < v.NumSymmetries() && !fixed; k++ {
					fixed = v.MapPosition(k, s.Position) == s.Position
				}
				if !fixed && len(batch) < 8 {
					batch = append(batch, s)
				}
			}
			if len(batch) < 8 {
				t.Fatalf("%d positions no turn of the board fixes: want 8", len(batch))
			}
			turn := func(b []dataset.Sample, sym func(*engine.Position) int) []dataset.Sample {
				out := make([]dataset.Sample, len(b))
				for i, s := range b {
					k := sym(&s.Position)
					s.Position = v.MapPosition(k, s.Position)
					s.Policy = append([]dataset.PolicyEntry(nil), s.Policy...)
					for j := range s.Policy {
						s.Policy[j].Action = uint16(v.ActionIndex(v.MapAction(k, v.ActionAt(int(s.Policy[j].Action)))))
					}
					out[i] = s
				}
				return out
			}
			turned := turn(batch, func(*engine.Position) int { return 3 })
			for _, orient := range []string{model.OrientRandom, model.OrientCanonical} {
				n := newNet(t, v, model.Config{Width: 32, Blocks: 1, Orientation: orient}, 2)
				tr := newTrainer(t, v, n, c)
				a, err := tr.Loss(batch)
				if err != nil {
					t.Fatal(err)
				}
				b, err := tr.Loss(turned)
				if err != nil {
					t.Fatal(err)
				}
				same := math.Abs(a.Total-b.Total) < 1e-5
				if orient == model.OrientRandom {
					if same {
						t.Errorf("a network of random orientation: loss %v on the batch and on it turned, want them apart", a.Total)
					}
					continue
				}
				if !same {
					t.Errorf("canonical network: loss %v on the batch, %v on it turned", a.Total, b.Total)
				}
				p, o, l2 := referenceLoss(t, v, n, c, turn(batch, v.CanonicalSymmetry))
				if math.Abs(a.Total-(p+o+l2)) > 1e-4*math.Max(1, p+o+l2) {
					t.Errorf("canonical network: loss %v, the reference on the canonical images %v", a.Total, p+o+l2)
				}
			}
		})
	}
}

// plainConfig is training without the default's value mix and weight
// average, on a cosine schedule: the setting the gradient and fitting tests
// pin, whatever the run default becomes.
func plainConfig() Config {
	c := DefaultConfig()
	c.Schedule, c.WarmupSteps, c.ValueMix, c.WeightEMA = "cosine", 200, 0, 0
	return c
}
