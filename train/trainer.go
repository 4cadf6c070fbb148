package train

import (
	"context"
	"errors"
	"fmt"
	"io"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// Source streams samples; dataset.Window is one. Next fills s, reusing its
// storage, and returns io.EOF after the last sample. The trainer reads the
// training and validation splits through two Sources (a Window opened with
// Split Train and one with Split Validation), so the split is by game,
// never by position, and nothing is loaded whole.
type Source interface {
	Next(s *dataset.Sample) error
}

// Stats are the mean losses over the samples of one or more batches.
type Stats struct {
	Samples int     // samples the means are over
	Policy  float64 // policy cross-entropy, over the samples with a policy target
	Outcome float64 // outcome cross-entropy
	L2      float64 // WeightDecay · Σ w²
	Total   float64 // the loss optimised: policy cross-entropy summed over the rows with a target / batch size + ValueWeight·Outcome + L2
	LR      float64 // learning rate of the (last) step; 0 for validation
}

// String is the statistics in one line, for progress reports.
func (s Stats) String() string {
	return fmt.Sprintf("loss %.4f (policy %.4f, outcome %.4f, l2 %.4f) over %d samples, lr %.3g",
		s.Total, s.Policy, s.Outcome, s.L2, s.Samples, s.LR)
}

// Trainer fits a network with one Gorgonia graph of batch Config.BatchSize.
// It updates the network's weights in place. It is not safe for concurrent
// use; evaluate with a copy (Network().Clone()) in other goroutines.
type Trainer struct {
	cfg   Config
	v     *engine.Variant
	net   *model.Network
	gr    *model.Graph
	loss  *lossGraph
	grads G.Nodes
	vm    G.VM
	opt   optimizer
	steps int64

	x, mask, pi, z []float32   // the graph's inputs, refilled per batch
	piw            []float32   // 1 where a row has a policy target, else 0
	gbuf           [][]float32 // gradient slices, per step
	legal          []engine.Action
	batch          []dataset.Sample
}

// New prepares to train net, a network for variant v. It makes Gorgonia
// multiply with the vek-backed BLAS (model.UseFastBLAS).
func New(v *engine.Variant, net *model.Network, c Config) (*Trainer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := (&model.Checkpoint{Net: net}).CheckVariant(v); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if net.Encoder != model.EncoderVersion {
		return nil, fmt.Errorf("trainer: network of feature encoder %d, this build encodes %d", net.Encoder, model.EncoderVersion)
	}
	model.UseFastBLAS()
	gr, err := model.NewGraph(net, c.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	l, err := newLoss(gr, net, c)
	if err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	grads, err := G.Grad(l.Total, gr.Params...)
	if err != nil {
		return nil, fmt.Errorf("trainer: gradients: %w", err)
	}
	a, b := net.Arch, c.BatchSize
	t := &Trainer{cfg: c, v: v, net: net, gr: gr, loss: l, grads: grads,
		opt: newOptimizer(c, net.Params),
		x:   make([]float32, b*a.Inputs), mask: make([]float32, b*a.Actions),
		pi: make([]float32, b*a.Actions), piw: make([]float32, b), z: make([]float32, b*a.Outcomes),
		gbuf: make([][]float32, len(grads)), legal: make([]engine.Action, 0, engine.MaxActions),
		batch: make([]dataset.Sample, b)}
	for _, in := range []struct {
		n     *G.Node
		data  []float32
		shape []int
	}{
		{gr.X, t.x, []int{b, a.Inputs}}, {gr.Mask, t.mask, []int{b, a.Actions}},
		{l.Pi, t.pi, []int{b, a.Actions}}, {l.Z, t.z, []int{b, a.Outcomes}},
	} {
		if err := G.Let(in.n, tensor.New(tensor.WithShape(in.shape...), tensor.WithBacking(in.data))); err != nil {
			return nil, fmt.Errorf("trainer: input %s: %w", in.n.Name(), err)
		}
	}
	t.vm = G.NewTapeMachine(gr.G)
	return t, nil
}

// Close releases the Gorgonia machine.
func (t *Trainer) Close() error { return t.vm.Close() }

// Network is the network being trained (updated in place by Step).
func (t *Trainer) Network() *model.Network { return t.net }

// Steps is the number of optimizer steps taken, restored ones included.
func (t *Trainer) Steps() int64 { return t.steps }

// Config is the trainer's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// fill encodes a batch into the graph's inputs.
func (t *Trainer) fill(batch []dataset.Sample) error {
	a, v := t.net.Arch, t.v
	if len(batch) != t.cfg.BatchSize {
		return fmt.Errorf("batch of %d samples, the graph takes %d", len(batch), t.cfg.BatchSize)
	}
	clear(t.pi)
	clear(t.z)
	for i := range batch {
		s := &batch[i]
		if s.Variant != v.Name {
			return fmt.Errorf("sample %d of game %s: variant %q, training %q", s.Ply, s.GameID, s.Variant, v.Name)
		}
		if int(s.Position.Side) >= v.Players || s.Outcome < 0 || s.Outcome > v.Players {
			return fmt.Errorf("sample %d of game %s: side %d, outcome %d of %d players", s.Ply, s.GameID, s.Position.Side, s.Outcome, v.Players)
		}
		model.Encode(v, &s.Position, s.Repetitions, t.x[i*a.Inputs:(i+1)*a.Inputs])
		mask := t.mask[i*a.Actions : (i+1)*a.Actions]
		for j := range mask {
			mask[j] = model.MaskedLogit
		}
		t.legal = v.Legal(&s.Position, t.legal)
		if len(t.legal) == 0 {
			return fmt.Errorf("sample %d of game %s: no legal action", s.Ply, s.GameID)
		}
		for _, act := range t.legal {
			mask[v.ActionIndex(act)] = 0
		}
		pi := t.pi[i*a.Actions : (i+1)*a.Actions]
		var sum float32
		for _, e := range s.Policy {
			if int(e.Action) >= a.Actions || mask[e.Action] != 0 {
				return fmt.Errorf("sample %d of game %s: policy on action %d, not legal in its position", s.Ply, s.GameID, e.Action)
			}
			if !(e.Prob >= 0) || e.Prob > 1 {
				return fmt.Errorf("sample %d of game %s: policy probability %v", s.Ply, s.GameID, e.Prob)
			}
			pi[e.Action] += e.Prob
			sum += e.Prob
		}
		t.piw[i] = 0
		if sum > 0 {
			t.piw[i] = 1
			for _, e := range s.Policy {
				pi[e.Action] = pi[e.Action] / sum
			}
		}
		t.z[i*a.Outcomes+model.RelativeOutcome(s.Outcome, int(s.Position.Side), v.Players)] = 1
	}
	return nil
}

// run evaluates the graph on the filled inputs.
func (t *Trainer) run() (Stats, error) {
	t.vm.Reset()
	if err := t.vm.RunAll(); err != nil {
		return Stats{}, fmt.Errorf("training graph: %w", err)
	}
	val := func(n *G.Node) float64 { return float64(n.Value().Data().(float32)) }
	s := Stats{Samples: t.cfg.BatchSize, Outcome: val(t.loss.Outcome), L2: val(t.loss.L2), Total: val(t.loss.Total)}
	withPolicy := 0
	for _, w := range t.piw {
		if w > 0 {
			withPolicy++
		}
	}
	if withPolicy > 0 { // the graph averages over the whole batch
		s.Policy = val(t.loss.Policy) * float64(t.cfg.BatchSize) / float64(withPolicy)
	}
	return s, nil
}

// Step takes one optimizer step on a batch of exactly BatchSize samples.
func (t *Trainer) Step(batch []dataset.Sample) (Stats, error) {
	if err := t.fill(batch); err != nil {
		return Stats{}, fmt.Errorf("train step %d: %w", t.steps, err)
	}
	s, err := t.run()
	if err != nil {
		return Stats{}, fmt.Errorf("train step %d: %w", t.steps, err)
	}
	for i, g := range t.grads {
		d, ok := g.Value().Data().([]float32)
		if !ok || len(d) != len(t.net.Params[i].Data) {
			return Stats{}, fmt.Errorf("train step %d: gradient of %s is not %d float32", t.steps, t.net.Params[i].Name, len(t.net.Params[i].Data))
		}
		t.gbuf[i] = d
	}
	s.LR = t.cfg.LearningRate(t.steps)
	t.opt.step(t.net.Params, t.gbuf, s.LR)
	t.steps++
	return s, nil
}

// Loss evaluates the loss on a batch of exactly BatchSize samples without
// changing the weights.
func (t *Trainer) Loss(batch []dataset.Sample) (Stats, error) {
	if err := t.fill(batch); err != nil {
		return Stats{}, fmt.Errorf("loss: %w", err)
	}
	s, err := t.run()
	if err != nil {
		return Stats{}, fmt.Errorf("loss: %w", err)
	}
	return s, nil
}

// readBatch fills t.batch from src; it returns io.EOF when src ends before
// the batch is full (the partial batch is dropped: the graph has one batch
// size).
func (t *Trainer) readBatch(src Source) error {
	for i := range t.batch {
		if err := src.Next(&t.batch[i]); err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return fmt.Errorf("read samples: %w", err)
		}
	}
	return nil
}

// Fit takes up to steps optimizer steps on batches read from src, stopping
// early when src ends (io.EOF is not an error) or ctx is done. After every
// reportEvery steps (and the last) it calls report, if not nil, with the
// mean statistics since the previous report. It returns the steps taken.
func (t *Trainer) Fit(ctx context.Context, src Source, steps, reportEvery int, report func(step int64, s Stats)) (int, error) {
	var acc Stats
	flush := func() {
		if report != nil && acc.Samples > 0 {
			report(t.steps, acc.mean())
		}
		acc = Stats{}
	}
	for n := 0; n < steps; n++ {
		if err := ctx.Err(); err != nil {
			flush()
			return n, err
		}
		if err := t.readBatch(src); err != nil {
			flush()
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		s, err := t.Step(t.batch)
		if err != nil {
			flush()
			return n, err
		}
		acc.add(s)
		if reportEvery > 0 && (n+1)%reportEvery == 0 {
			flush()
		}
	}
	flush()
	return steps, nil
}

// Validate is the mean loss over up to maxBatches full batches of src (all
// of them if maxBatches is 0), without changing the weights.
func (t *Trainer) Validate(src Source, maxBatches int) (Stats, error) {
	var acc Stats
	for n := 0; maxBatches == 0 || n < maxBatches; n++ {
		if err := t.readBatch(src); err != nil {
			if err == io.EOF {
				break
			}
			return Stats{}, fmt.Errorf("validate: %w", err)
		}
		s, err := t.Loss(t.batch)
		if err != nil {
			return Stats{}, fmt.Errorf("validate: %w", err)
		}
		acc.add(s)
	}
	if acc.Samples == 0 {
		return Stats{}, fmt.Errorf("validate: fewer than %d samples (one batch) in the validation split", t.cfg.BatchSize)
	}
	return acc.mean(), nil
}

// add accumulates sums weighted by samples; mean turns them into means.
func (s *Stats) add(o Stats) {
	w := float64(o.Samples)
	s.Policy += o.Policy * w
	s.Outcome += o.Outcome * w
	s.L2 += o.L2 * w
	s.Total += o.Total * w
	s.LR = o.LR
	s.Samples += o.Samples
}

func (s Stats) mean() Stats {
	w := float64(s.Samples)
	return Stats{Samples: s.Samples, Policy: s.Policy / w, Outcome: s.Outcome / w, L2: s.L2 / w, Total: s.Total / w, LR: s.LR}
}

// Checkpoint is a snapshot of the training state at generation: a copy of
// the network, the step count, and the optimizer's state (Adam's moments
// and step count, or SGD's velocity) as extra tensors and metadata, so
// Restore resumes exactly where training stopped.
func (t *Trainer) Checkpoint(generation int) *model.Checkpoint {
	extra, meta := t.opt.state()
	return &model.Checkpoint{Net: t.net.Clone(), Generation: generation, Steps: t.steps, Extra: extra, Meta: meta}
}

// Restore loads the weights, step count and optimizer state of c, which
// must be a checkpoint of this trainer's architecture and optimizer.
func (t *Trainer) Restore(c *model.Checkpoint) error {
	if c.Net.Variant != t.net.Variant {
		return fmt.Errorf("restore: a checkpoint of variant %q, training %q", c.Net.Variant, t.net.Variant)
	}
	if err := t.net.CopyFrom(c.Net); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := t.opt.restore(c.Extra, c.Meta); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	t.steps = c.Steps
	return nil
}
