package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"strings"

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
	Total   float64 // the loss optimised: policy cross-entropy summed over the rows with a target / batch size + ValueWeight·Outcome + the auxiliary heads' weighted likewise + L2
	LR      float64 // learning rate of the (last) step; 0 for validation
	// The auxiliary heads' cross-entropies (0 without the head): the
	// ownership's a mean over the points, over the samples whose game's
	// end is known; the score's over those too; the reply's over the
	// samples with a next action. Over several batches, the mean of the
	// batches' weighted by samples.
	Ownership, Score, Reply float64
}

// String is the statistics in one line, for progress reports.
func (s Stats) String() string {
	aux := ""
	for _, a := range []struct {
		name string
		v    float64
	}{{"ownership", s.Ownership}, {"score", s.Score}, {"reply", s.Reply}} {
		if a.v != 0 {
			aux += fmt.Sprintf(", %s %.4f", a.name, a.v)
		}
	}
	return fmt.Sprintf("loss %.4f (policy %.4f, outcome %.4f%s, l2 %.4f) over %d samples, lr %.3g",
		s.Total, s.Policy, s.Outcome, aux, s.L2, s.Samples, s.LR)
}

// Trainer fits a network with Gorgonia graphs of Config.BatchSize samples
// in all: one graph per worker (Config.Threads), each taking its share of
// the batch's rows on its own goroutine, all sharing the network's weight
// slices. Their gradients (Gorgonia's symbolic ones) are averaged, weighted
// by rows, and the optimizer step is split over the workers too (in Fit,
// the assisting goroutines take it while the next batch is read). It updates
// the network's weights in place. It is not safe for concurrent use;
// evaluate with a copy (Network().Clone()) in other goroutines.
type Trainer struct {
	cfg     Config
	v       *engine.Variant
	net     *model.Network
	workers []*worker
	opt     optimizer
	steps   int64

	tie      *model.Tying     // a symmetric network's weight sharing, which every step keeps; nil otherwise
	ema      [][]float32      // the weights' moving average (Config.WeightEMA), nil when off
	emaDecay float32          // its decay in the step being taken
	gbuf     [][]float32      // the batch's gradients, per step: worker 0's own with one worker, else their average
	batch    []dataset.Sample // the batch read and trained on

	// The assisting goroutines, one per worker after the first, wait on
	// their own channel for a phase to run and report on done.
	jobs  []chan phase
	done  chan struct{}
	work  []dataset.Sample // the batch of the phase being run
	alive bool
	// behind is true while the assisting goroutines take an optimizer step that Fit
	// handed them (phaseUpdateBehind); settle waits for it.
	behind bool
	split  *splitter // with one worker on several cores: its products' assisting goroutines
}

// phase is a part of a step that every worker runs on its own share.
type phase int

const (
	phaseForward      phase = iota // fill the inputs, run the graph: losses and gradients
	phaseLoss                      // fill the inputs, run the graph's losses only
	phaseUpdate                    // average the gradients, take the optimizer step
	phaseUpdateBehind              // the same on the assisting goroutines alone, while Fit reads the next batch
	phaseStop                      // end the assisting goroutine
)

// worker is one graph of the trainer and the rows of the batch it takes:
// a Gorgonia graph and its machines, or for a graph network a graphStep.
type worker struct {
	lo, hi int // rows of the batch
	gr     *netGraph
	loss   *lossGraph
	grads  G.Nodes
	m      *machine    // the losses and the gradients
	mLoss  *machine    // the losses only: the forward pass
	gdata  [][]float32 // the gradient tensors after a run

	step     *graphStep // a graph network's step, in place of gr and its machines
	l2Terms  []bool     // the weights whose L2 term this worker's loss has
	l2Scale  float64    // that term's scale (batch / rows)
	legalIdx []int32    // for step: the legal actions' indices, row after row
	legalAt  []int      // row r's are legalIdx[legalAt[r]:legalAt[r+1]]
	piLegal  []float32  // and their policy targets, alike
	slot     []int32    // per action, its place in the row's legal actions while fill reads a row's policy; -1 otherwise

	x, mask, pi, z []float32      // the graph's inputs, refilled per batch (a graph network's x is split into xp and xg)
	xp, xg         []float32      // a graph network's inputs (netGraph.XP, XG)
	points         *pointFeatures // a graph network's split of x; nil for an MLP
	piw            []float32      // 1 where a row has a policy target, else 0
	legal          []engine.Action

	// The auxiliary heads' targets (stepInputs' own, score and reply),
	// for a network with any; for the Gorgonia graph also one-hot, ownT
	// (Points·rows × OwnershipClasses, point-major), scoreT and replyT.
	own                  []int8
	score, reply         []int32
	ownT, scoreT, replyT []float32

	policy, outcome, l2, total    float64 // the graph's losses after a run
	ownLoss, scoreLoss, replyLoss float64 // the auxiliary heads' (loss terms: means over the rows, a row without a target 0)
	owned, replied                int     // rows whose game's end is known, rows with a next action
	err                           error
}

// New prepares to train net, a network for variant v, on c.Workers()
// goroutines; Close ends them. A graph network's step is written out
// (graphStep, on the kernels of package model; the tests check it against
// its Gorgonia graph), an MLP's runs through its Gorgonia graph. Its
// graphs multiply with a kernel-backed
// BLAS of their own (kernelBLAS, set on their tensors' engine: Gorgonia's
// process-wide BLAS is left as it is), each product on the calling
// goroutine. With more than one worker they keep the cores busy; a
// trainer of one worker on several cores splits its graph's larger
// products over them on goroutines of its own (a splitter), started here
// (an MLP's graph: a graph network's step, graphStep, runs on its
// worker's goroutine).
func New(v *engine.Variant, net *model.Network, c Config) (*Trainer, error) {
	return newWith(v, net, c, defaultBackend())
}

// newWith is New with the arithmetic of b.
func newWith(v *engine.Variant, net *model.Network, c Config, b backend) (*Trainer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := (&model.Checkpoint{Net: net}).CheckVariant(v); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if err := c.CheckVariant(v); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if err := model.CheckEncoder(net.Arch.Encoder); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if err := c.CheckKind(net.Arch.Kind); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if lack := c.Aux() &^ net.Arch.Aux; lack != 0 {
		return nil, fmt.Errorf("trainer: %s above 0 and the network %v has no %v head to train", auxKeys(lack), net.Arch, lack)
	}
	n := c.Workers()
	t := &Trainer{cfg: c, v: v, net: net, opt: newOptimizer(c, net.Params, b.simd),
		batch: make([]dataset.Sample, c.BatchSize)}
	if net.Arch.Symmetric {
		tie, err := model.NewTying(v, net.Arch)
		if err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
		if err := tie.Check(net); err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
		t.tie = tie
	}
	l2 := l2Shares(net, n)
	for w := 0; w < n; w++ {
		lo, hi := c.BatchSize*w/n, c.BatchSize*(w+1)/n
		wk, err := newWorker(v, net, c, lo, hi, l2[w], b)
		if err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
		t.workers = append(t.workers, wk)
	}
	if procs := runtime.GOMAXPROCS(0); n == 1 && procs > 1 && t.workers[0].m != nil {
		t.split = newSplitter(procs)
		t.workers[0].m.split, t.workers[0].mLoss.split = t.split, t.split
	}
	if c.WeightEMA > 0 {
		t.ema = make([][]float32, len(net.Params))
		for i, p := range net.Params {
			t.ema[i] = append([]float32(nil), p.Data...)
		}
	}
	t.gbuf = make([][]float32, len(net.Params))
	if n > 1 {
		for i, p := range net.Params {
			t.gbuf[i] = make([]float32, len(p.Data))
		}
		t.done = make(chan struct{}, n)
		for w := 1; w < n; w++ {
			ch := make(chan phase)
			t.jobs = append(t.jobs, ch)
			go t.help(w, ch)
		}
	}
	t.alive = true
	return t, nil
}

// l2Shares splits the L2 term over n graphs: shares[w][i] is true when
// the graph of worker w has the term of weight matrix i. The largest
// matrices go first, each to the graph with the fewest weights so far.
func l2Shares(net *model.Network, n int) [][]bool {
	shares := make([][]bool, n)
	for w := range shares {
		shares[w] = make([]bool, len(net.Params))
	}
	load := make([]int, n)
	var order []int
	for i, p := range net.Params {
		if p.IsWeight() {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return len(net.Params[order[a]].Data) > len(net.Params[order[b]].Data) })
	for _, i := range order {
		w := 0
		for v := range load {
			if load[v] < load[w] {
				w = v
			}
		}
		shares[w][i] = true
		load[w] += len(net.Params[i].Data)
	}
	return shares
}

// newWorker builds the graph, loss and gradients for rows lo..hi-1 of a
// batch, with the L2 terms of the weight matrices l2 marks. Its loss is a
// mean over its rows; the batch's is the workers' mean weighted by rows,
// so its L2 part is scaled by batch/rows to count once in that mean. Its
// machines compute with be.
func newWorker(v *engine.Variant, net *model.Network, c Config, lo, hi int, l2 []bool, be backend) (*worker, error) {
	a, b := net.Arch, hi-lo
	if a.Kind == model.KindGraph && be.graphStep {
		if err := net.Validate(); err != nil {
			return nil, err
		}
		st, err := newGraphStep(v, net, b, 0)
		if err != nil {
			return nil, err
		}
		wk := &worker{lo: lo, hi: hi, step: st, l2Terms: l2, l2Scale: float64(c.BatchSize) / float64(b), gdata: make([][]float32, len(net.Params)),
			legalIdx: make([]int32, 0, 64*b), legalAt: make([]int, 0, b+1), piLegal: make([]float32, 0, 64*b), slot: make([]int32, a.Actions),
			x: make([]float32, b*a.Inputs), piw: make([]float32, b), z: make([]float32, b*a.Outcomes),
			legal: make([]engine.Action, 0, engine.MaxActions)}
		for k := range wk.slot {
			wk.slot[k] = -1
		}
		wk.auxBuffers(a, b, false)
		return wk, nil
	}
	gr, err := newNetGraph(net, b)
	if err != nil {
		return nil, err
	}
	l, err := newLoss(gr, net, c, l2, float64(c.BatchSize)/float64(b))
	if err != nil {
		return nil, err
	}
	grads, err := G.Grad(l.Total, gr.Params...)
	if err != nil {
		return nil, fmt.Errorf("gradients: %w", err)
	}
	wk := &worker{lo: lo, hi: hi, gr: gr, loss: l, grads: grads, gdata: make([][]float32, len(grads)),
		x: make([]float32, b*a.Inputs), mask: make([]float32, b*a.Actions),
		pi: make([]float32, b*a.Actions), piw: make([]float32, b), z: make([]float32, b*a.Outcomes),
		legal: make([]engine.Action, 0, engine.MaxActions)}
	type input struct {
		n     *G.Node
		data  []float32
		shape []int
	}
	inputs := []input{{gr.Mask, wk.mask, []int{b, a.Actions}}, {l.Pi, wk.pi, []int{b, a.Actions}}, {l.Z, wk.z, []int{b, a.Outcomes}}}
	wk.auxBuffers(a, b, true)
	if l.OwnT != nil {
		inputs = append(inputs, input{l.OwnT, wk.ownT, []int{a.Points * b, model.OwnershipClasses}})
	}
	if l.ScoreT != nil {
		inputs = append(inputs, input{l.ScoreT, wk.scoreT, []int{b, a.ScoreClasses()}})
	}
	if l.ReplyT != nil {
		inputs = append(inputs, input{l.ReplyT, wk.replyT, []int{b, a.Actions}})
	}
	if a.Kind == model.KindGraph {
		if wk.points, err = newPointFeatures(v, a); err != nil {
			return nil, err
		}
		wk.xp, wk.xg = make([]float32, b*a.Points*a.Planes), make([]float32, b*a.Globals())
		inputs = append(inputs, input{gr.XP, wk.xp, []int{b * a.Points, a.Planes}}, input{gr.XG, wk.xg, []int{b, a.Globals()}})
	} else {
		inputs = append(inputs, input{gr.X, wk.x, []int{b, a.Inputs}})
	}
	for _, in := range inputs {
		if err := G.Let(in.n, tensor.New(tensor.WithShape(in.shape...), tensor.WithBacking(in.data))); err != nil {
			return nil, fmt.Errorf("input %s: %w", in.n.Name(), err)
		}
	}
	losses := G.Nodes{l.Policy, l.Outcome, l.L2, l.Total}
	for _, n := range []*G.Node{l.Ownership, l.Score, l.Reply} {
		if n != nil {
			losses = append(losses, n)
		}
	}
	outputs := append(append(G.Nodes(nil), losses...), grads...)
	ops := opIndex{}
	if wk.m, err = newMachine(gr.G, be, ops, outputs...); err != nil {
		return nil, err
	}
	if wk.mLoss, err = newMachine(gr.G, be, ops, losses...); err != nil {
		return nil, err
	}
	return wk, nil
}

// auxBuffers makes wk's buffers of the auxiliary heads' targets for rows
// b of a network of architecture a (none without heads), the one-hot
// ones too if dense (the Gorgonia graph's).
func (wk *worker) auxBuffers(a model.Arch, b int, dense bool) {
	if a.Aux == 0 {
		return
	}
	wk.own, wk.score, wk.reply = make([]int8, b*a.Points), make([]int32, b), make([]int32, b)
	if !dense {
		return
	}
	if a.Aux&model.AuxOwnership != 0 {
		wk.ownT = make([]float32, a.Points*b*model.OwnershipClasses)
	}
	if a.Aux&model.AuxScore != 0 {
		wk.scoreT = make([]float32, b*a.ScoreClasses())
	}
	if a.Aux&model.AuxReply != 0 {
		wk.replyT = make([]float32, b*a.Actions)
	}
}

// handedOff is what a goroutine does after it sent work to goroutines
// waiting for it and goes on with work of its own: it yields its core.
// Go's scheduler puts a goroutine woken by a channel send in the sender's
// own run slot, which the idle core takes only after several tries, and
// often not before the busy sender next yields: the woken goroutine
// started hundreds of microseconds late, a tenth of the time as late as
// the sender's whole share of the work (BenchmarkHandOff,
// docs/benchmarks.md). Yielding runs it on this core at once and puts the
// sender in the global run queue, which the idle core's thread, woken for
// it, takes within microseconds. No core spins.
func handedOff() { runtime.Gosched() }

// help runs the phases sent on jobs as worker w until phaseStop.
func (t *Trainer) help(w int, jobs <-chan phase) {
	for p := range jobs {
		if p == phaseStop {
			t.done <- struct{}{}
			return
		}
		t.runPhase(p, w)
		t.done <- struct{}{}
	}
}

// parallel runs phase p on every worker, the first on this goroutine, and
// returns when all are done.
func (t *Trainer) parallel(p phase) {
	for _, ch := range t.jobs {
		ch <- p
	}
	handedOff()
	t.runPhase(p, 0)
	for range t.jobs {
		<-t.done
	}
}

func (t *Trainer) runPhase(p phase, w int) {
	switch p {
	case phaseForward, phaseLoss:
		wk := t.workers[w]
		wk.err = t.forwardWorker(wk, t.work[wk.lo:wk.hi], p == phaseForward)
	case phaseUpdate:
		t.update(w, len(t.workers))
	case phaseUpdateBehind:
		t.update(w-1, len(t.workers)-1)
	}
}

// Close ends the assisting goroutines. Step, Loss, Fit and Validate fail
// after it.
func (t *Trainer) Close() error {
	if !t.alive {
		return nil
	}
	t.settle()
	t.alive = false
	if t.split != nil {
		t.split.close()
	}
	for _, ch := range t.jobs {
		ch <- phaseStop
		<-t.done
	}
	return nil
}

// Network is the network being trained (updated in place by Step).
func (t *Trainer) Network() *model.Network { return t.net }

// Steps is the number of optimizer steps taken, restored ones included.
func (t *Trainer) Steps() int64 { return t.steps }

// Config is the trainer's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// Workers is the number of graphs the batch is split over, each run on its
// own goroutine.
func (t *Trainer) Workers() int { return len(t.workers) }

// fill encodes the samples of batch into wk's inputs.
func (t *Trainer) fill(wk *worker, batch []dataset.Sample) error {
	a, v := t.net.Arch, t.v
	// An MLP's graph takes the legal actions as a mask row of every
	// action, and the policy targets as rows of every action; a graph
	// network's step (sparse) takes the legal actions' indices and their
	// targets alone.
	sparse := wk.step != nil
	if sparse {
		wk.legalIdx, wk.legalAt, wk.piLegal = wk.legalIdx[:0], wk.legalAt[:0], wk.piLegal[:0]
	} else {
		clear(wk.pi)
	}
	clear(wk.z)
	for i := range batch {
		s := &batch[i]
		if s.Variant != v.Name {
			return fmt.Errorf("sample %d of game %s: variant %q, training %q", s.Ply, s.GameID, s.Variant, v.Name)
		}
		if int(s.Position.Side) >= v.Players || s.Outcome < 0 || s.Outcome > v.Players {
			return fmt.Errorf("sample %d of game %s: side %d, outcome %d of %d players", s.Ply, s.GameID, s.Position.Side, s.Outcome, v.Players)
		}
		// A network of canonical orientation learns each position in its
		// canonical turn of the board (the sample, which the window may
		// share, stays as it is: its position and actions are mapped here).
		// A position that some turn leaves as it is has as many canonical
		// turns of its actions; it gets the one CanonicalSymmetry picks.
		pos, sym := &s.Position, 0
		if a.Canonical {
			if sym = v.CanonicalSymmetry(pos); sym != 0 {
				mapped := v.MapPosition(sym, *pos)
				pos = &mapped
			}
		}
		model.Encode(v, a.Encoder, pos, s.Repetitions, wk.x[i*a.Inputs:(i+1)*a.Inputs])
		wk.legal = v.Legal(pos, wk.legal)
		if len(wk.legal) == 0 {
			return fmt.Errorf("sample %d of game %s: no legal action", s.Ply, s.GameID)
		}
		// pi is the row's policy targets, legal its legal actions': at
		// pi[at(k)] the target of action k, at(k) < 0 if k is not legal.
		var pi []float32
		var at func(k int) int
		if sparse {
			first := len(wk.legalIdx)
			wk.legalAt = append(wk.legalAt, first)
			for j, act := range wk.legal {
				k := v.ActionIndex(act)
				wk.legalIdx = append(wk.legalIdx, int32(k))
				wk.piLegal = append(wk.piLegal, 0)
				wk.slot[k] = int32(j)
			}
			pi = wk.piLegal[first:]
			at = func(k int) int { return int(wk.slot[k]) }
		} else {
			mask := wk.mask[i*a.Actions : (i+1)*a.Actions]
			for j := range mask {
				mask[j] = maskedLogit
			}
			for _, act := range wk.legal {
				mask[v.ActionIndex(act)] = 0
			}
			pi = wk.pi[i*a.Actions : (i+1)*a.Actions]
			at = func(k int) int {
				if mask[k] != 0 {
					return -1
				}
				return k
			}
		}
		sum, err := t.policyTargets(s, sym, pi, at)
		if sparse {
			for _, k := range wk.legalIdx[wk.legalAt[i]:] {
				wk.slot[k] = -1
			}
		}
		if err != nil {
			return err
		}
		wk.piw[i] = 0
		if sum > 0 {
			wk.piw[i] = 1
			for k := range pi {
				pi[k] /= sum
			}
		}
		z := wk.z[i*a.Outcomes : (i+1)*a.Outcomes]
		mix := float32(t.cfg.ValueMix)
		z[model.RelativeOutcome(s.Outcome, int(s.Position.Side), v.Players)] = 1 - mix
		if mix > 0 {
			if !(s.RootValue >= 0 && s.RootValue <= 1) {
				return fmt.Errorf("sample %d of game %s: root value %v, want an expected score 0..1", s.Ply, s.GameID, s.RootValue)
			}
			win, loss, draw := scoreOutcome(s.RootValue)
			z[0] += mix * win // relative classes: the side to move, the other seat, a draw
			z[1] += mix * loss
			z[2] += mix * draw
		}
		if wk.own != nil {
			if err := t.auxTargets(wk, i, s, sym); err != nil {
				return err
			}
		}
	}
	if wk.points != nil {
		wk.points.split(wk.x, len(batch), wk.xp, wk.xg)
	}
	if wk.ownT != nil || wk.scoreT != nil || wk.replyT != nil {
		wk.oneHot(a, len(batch))
	}
	if sparse {
		wk.legalAt = append(wk.legalAt, len(wk.legalIdx))
	}
	return nil
}

// auxTargets sets row i's targets of the auxiliary heads from sample s,
// seen turned by symmetry sym: each point's owner at the game's end
// relative to the side to move, the material difference at the end (the
// side to move's pieces on the board and in hand minus the most any other
// seat has, as a class of -Pieces..Pieces), and the next action; -1 where
// the game's end is unknown (a shard of format 1) or there was no next
// action. A difference or an action out of range is an error naming the
// sample.
func (t *Trainer) auxTargets(wk *worker, i int, s *dataset.Sample, sym int) error {
	a, v := t.net.Arch, t.v
	P := a.Points
	own := wk.own[i*P : (i+1)*P]
	wk.score[i], wk.reply[i] = -1, -1
	if !s.End.Known() {
		for p := range own {
			own[p] = -1
		}
		return nil
	}
	side := int(s.Position.Side)
	var mine, theirs uint32
	most := 0
	for seat := 0; seat < v.Players; seat++ {
		pieces := s.End.Pieces[seat]
		if sym != 0 {
			pieces = v.MapPoints(sym, pieces)
		}
		left := bits.OnesCount32(s.End.Pieces[seat]) + int(s.End.Hand[seat])
		if seat == side {
			mine = pieces
			continue
		}
		theirs |= pieces
		most = max(most, left)
	}
	for p := range own {
		switch {
		case mine&(1<<p) != 0:
			own[p] = model.OwnedBySide
		case theirs&(1<<p) != 0:
			own[p] = model.OwnedByOther
		default:
			own[p] = model.OwnedByNone
		}
	}
	d := bits.OnesCount32(s.End.Pieces[side]) + int(s.End.Hand[side]) - most
	if d < -a.Topology.Pieces || d > a.Topology.Pieces {
		return fmt.Errorf("sample %d of game %s: the game's end has a material difference of %d for the side to move, beyond the %d pieces a seat has",
			s.Ply, s.GameID, d, a.Topology.Pieces)
	}
	wk.score[i] = int32(d + a.Topology.Pieces)
	if k := s.Reply; k >= 0 {
		if k >= a.Actions {
			return fmt.Errorf("sample %d of game %s: next action %d, beyond the %d actions of %s", s.Ply, s.GameID, k, a.Actions, v.Name)
		}
		if sym != 0 {
			k = v.ActionIndex(v.MapAction(sym, v.ActionAt(k)))
		}
		wk.reply[i] = int32(k)
	}
	return nil
}

// oneHot writes the auxiliary targets of rows rows as the Gorgonia
// graph's one-hot rows: a row without a target all zero.
func (wk *worker) oneHot(a model.Arch, rows int) {
	P := a.Points
	if wk.ownT != nil {
		clear(wk.ownT)
		for i := range rows {
			for p, k := range wk.own[i*P : (i+1)*P] {
				if k >= 0 {
					wk.ownT[(p*rows+i)*model.OwnershipClasses+int(k)] = 1
				}
			}
		}
	}
	for _, t := range []struct {
		dst  []float32
		cls  []int32
		cols int
	}{{wk.scoreT, wk.score, a.ScoreClasses()}, {wk.replyT, wk.reply, a.Actions}} {
		if t.dst == nil {
			continue
		}
		clear(t.dst)
		for i, k := range t.cls[:rows] {
			if k >= 0 {
				t.dst[i*t.cols+int(k)] = 1
			}
		}
	}
}

// policyTargets adds sample s's searched policy, its actions turned by
// symmetry sym, to pi at at(action) and returns its sum; an action not
// legal (at < 0) or a probability outside 0..1 is an error.
func (t *Trainer) policyTargets(s *dataset.Sample, sym int, pi []float32, at func(k int) int) (float32, error) {
	a, v := t.net.Arch, t.v
	var sum float32
	for _, e := range s.Policy {
		k := int(e.Action)
		if sym != 0 && k < a.Actions {
			k = v.ActionIndex(v.MapAction(sym, v.ActionAt(k)))
		}
		j := -1
		if k < a.Actions {
			j = at(k)
		}
		if j < 0 {
			return 0, fmt.Errorf("sample %d of game %s: policy on action %d, not legal in its position", s.Ply, s.GameID, e.Action)
		}
		if !(e.Prob >= 0) || e.Prob > 1 {
			return 0, fmt.Errorf("sample %d of game %s: policy probability %v", s.Ply, s.GameID, e.Prob)
		}
		pi[j] += e.Prob
		sum += e.Prob
	}
	return sum, nil
}

// scoreOutcome is the outcome distribution of expected score s (0..1) for
// the side to move with the least decisive mass: a draw and a win above
// one half, a draw and a loss below.
func scoreOutcome(s float32) (win, loss, draw float32) {
	if s >= 0.5 {
		return 2*s - 1, 0, 2 - 2*s
	}
	return 0, 1 - 2*s, 2 * s
}

// forwardWorker fills wk's inputs from its rows of the batch and runs its
// graph: the losses, and the gradients if grads.
func (t *Trainer) forwardWorker(wk *worker, rows []dataset.Sample, grads bool) error {
	if err := t.fill(wk, rows); err != nil {
		return err
	}
	if st := wk.step; st != nil {
		c := t.cfg
		in := stepInputs{b: len(rows), x: wk.x, pi: wk.piLegal, z: wk.z, legal: wk.legalIdx, legalAt: wk.legalAt,
			own: wk.own, score: wk.score, reply: wk.reply}
		wt := lossWeights{value: float32(c.ValueWeight), ownership: float32(c.OwnershipWeight), score: float32(c.ScoreWeight), reply: float32(c.ReplyWeight)}
		ls := st.run(in, grads, wt, c.WeightDecay, wk.l2Scale, wk.l2Terms)
		b := float64(len(rows))
		wk.policy, wk.outcome, wk.l2 = ls.policy/b, ls.outcome/b, ls.l2
		wk.ownLoss, wk.scoreLoss, wk.replyLoss = ls.ownership/(b*float64(t.net.Arch.Points)), ls.score/b, ls.reply/b
		wk.owned, wk.replied = ls.owned, ls.replied
		wk.total = wk.policy + c.ValueWeight*wk.outcome + c.OwnershipWeight*wk.ownLoss + c.ScoreWeight*wk.scoreLoss + c.ReplyWeight*wk.replyLoss + wk.l2
		if grads {
			copy(wk.gdata, st.grads)
		}
		return nil
	}
	m := wk.mLoss
	if grads {
		m = wk.m
	}
	if err := m.run(); err != nil {
		return fmt.Errorf("training graph: %w", err)
	}
	var err error
	l := wk.loss
	if wk.policy, err = m.scalar(l.Policy); err != nil {
		return err
	}
	if wk.outcome, err = m.scalar(l.Outcome); err != nil {
		return err
	}
	if wk.l2, err = m.scalar(l.L2); err != nil {
		return err
	}
	if wk.total, err = m.scalar(l.Total); err != nil {
		return err
	}
	for _, a := range []struct {
		n   *G.Node
		dst *float64
	}{{l.Ownership, &wk.ownLoss}, {l.Score, &wk.scoreLoss}, {l.Reply, &wk.replyLoss}} {
		if a.n == nil {
			continue
		}
		if *a.dst, err = m.scalar(a.n); err != nil {
			return err
		}
	}
	wk.owned, wk.replied = 0, 0
	if wk.own != nil {
		P := t.net.Arch.Points
		for i := range len(rows) {
			if wk.own[i*P] >= 0 {
				wk.owned++
			}
			if wk.reply[i] >= 0 {
				wk.replied++
			}
		}
	}
	if !grads {
		return nil
	}
	for i, g := range wk.grads {
		d := wk.m.float32s(g)
		if len(d) != len(t.net.Params[i].Data) {
			return fmt.Errorf("gradient of %s is not %d float32", t.net.Params[i].Name, len(t.net.Params[i].Data))
		}
		wk.gdata[i] = d
	}
	return nil
}

// forward runs every worker's graph on its rows of batch, with the
// gradients if grads, and returns the batch's mean losses.
func (t *Trainer) forward(batch []dataset.Sample, grads bool) (Stats, error) {
	if len(batch) != t.cfg.BatchSize {
		return Stats{}, fmt.Errorf("batch of %d samples, the graph takes %d", len(batch), t.cfg.BatchSize)
	}
	if !t.alive {
		return Stats{}, errors.New("trainer is closed")
	}
	t.settle()
	t.work = batch
	if grads {
		t.parallel(phaseForward)
	} else {
		t.parallel(phaseLoss)
	}
	t.work = nil
	for _, wk := range t.workers {
		if wk.err != nil {
			return Stats{}, wk.err
		}
	}
	// Each graph's losses are means over its rows (the policy's over all
	// its rows, with or without a target); the batch's are their means
	// weighted by rows. Each graph has a part of the L2 term, scaled to
	// count once in that mean.
	b := float64(t.cfg.BatchSize)
	s := Stats{Samples: t.cfg.BatchSize}
	withPolicy, policy := 0, 0.0
	owned, replied := 0, 0
	for _, wk := range t.workers {
		rows := float64(wk.hi - wk.lo)
		s.Outcome += wk.outcome * rows / b
		s.L2 += wk.l2 * rows / b
		s.Total += wk.total * rows / b
		policy += wk.policy * rows
		for _, w := range wk.piw {
			if w > 0 {
				withPolicy++
			}
		}
		s.Ownership += wk.ownLoss * rows
		s.Score += wk.scoreLoss * rows
		s.Reply += wk.replyLoss * rows
		owned += wk.owned
		replied += wk.replied
	}
	if withPolicy > 0 {
		s.Policy = policy / float64(withPolicy)
	}
	// The auxiliary losses are means over the rows; as statistics, over
	// the rows with a target.
	s.Ownership, s.Score, s.Reply = perTarget(s.Ownership, owned), perTarget(s.Score, owned), perTarget(s.Reply, replied)
	return s, nil
}

// perTarget is sum / n, 0 when n is 0.
func perTarget(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// update takes the optimizer step on share k of n of every tensor, with
// the gradients averaged by combine. Each weight's arithmetic is the same
// whatever the shares, so the weights do not depend on them.
func (t *Trainer) update(k, n int) {
	for i, p := range t.net.Params {
		lo, hi := share(len(p.Data), k, n)
		if t.tie == nil { // tied: combined and projected before the step
			t.combine(k, n, i)
		}
		t.opt.update(i, p.Data, t.gbuf[i], lo, hi)
		if t.ema != nil {
			average(t.ema[i][lo:hi], p.Data[lo:hi], t.emaDecay)
		}
	}
}

// average moves the moving average e towards the weights p: e = d·e +
// (1-d)·p, flushed like the weights (an average of weights that became 0
// would otherwise decay into the slow subnormal range).
func average(e, p []float32, d float32) {
	p = p[:len(e)]
	for j, x := range p {
		e[j] = flush(d*e[j] + (1-d)*x)
	}
}

// combine averages the workers' gradients of tensor i, weighted by rows
// (the gradient of the batch's mean loss), into t.gbuf[i], on share k of
// n, lo..hi-1, of the tensor. With one worker t.gbuf[i] is its gradient.
func (t *Trainer) combine(k, n, i int) (lo, hi int) {
	lo, hi = share(len(t.net.Params[i].Data), k, n)
	if len(t.workers) == 1 {
		t.gbuf[i] = t.workers[0].gdata[i]
		return lo, hi
	}
	g := t.gbuf[i][lo:hi]
	clear(g)
	for _, wk := range t.workers {
		f := float32(wk.hi-wk.lo) / float32(t.cfg.BatchSize)
		for j, x := range wk.gdata[i][lo:hi] {
			g[j] += f * x
		}
	}
	return lo, hi
}

// share is the bounds of share k of n of a tensor of size values.
func share(size, k, n int) (lo, hi int) { return size * k / n, size * (k + 1) / n }

// ErrNonFiniteLoss is the error of a step whose loss is NaN or infinite:
// the step is not applied, and training stops there.
var ErrNonFiniteLoss = errors.New("train: the loss is not finite")

// Step takes one optimizer step on a batch of exactly BatchSize samples. A
// non-finite loss is an error (ErrNonFiniteLoss) naming the step, and the
// step is not applied.
func (t *Trainer) Step(batch []dataset.Sample) (Stats, error) {
	return t.step(batch, false)
}

// step is Step. With behind and assisting goroutines, it hands the optimizer
// step to the assisting goroutines and returns without waiting (Fit reads the next
// batch meanwhile); the next forward pass, settle or Close waits for it.
func (t *Trainer) step(batch []dataset.Sample, behind bool) (Stats, error) {
	s, err := t.forward(batch, true)
	if err != nil {
		return Stats{}, fmt.Errorf("train step %d: %w", t.steps, err)
	}
	if math.IsNaN(s.Total) || math.IsInf(s.Total, 0) {
		// Not applied: an update from a non-finite loss would make every
		// weight non-finite, and training on would save them.
		return Stats{}, fmt.Errorf("%w at step %d: %v (policy %v, outcome %v, l2 %v); lower the learning rate (train.lr)",
			ErrNonFiniteLoss, t.steps, s.Total, s.Policy, s.Outcome, s.L2)
	}
	s.LR = t.cfg.LearningRate(t.steps)
	t.opt.begin(s.LR)
	if t.tie != nil {
		// An orbit's gradient spans the whole tensor, so the workers'
		// gradients are averaged and projected here, before the shares of
		// the step: every value of an orbit then moves alike.
		for i := range t.net.Params {
			t.combine(0, 1, i)
			t.tie.Project(i, t.gbuf[i])
		}
	}
	// The average's decay grows to WeightEMA as steps are taken, so the
	// first generations' average is not mostly the random initial weights
	// (the schedule of TensorFlow's ExponentialMovingAverage).
	t.emaDecay = float32(min(t.cfg.WeightEMA, float64(1+t.steps)/float64(10+t.steps)))
	if behind && len(t.jobs) > 0 {
		for _, ch := range t.jobs {
			ch <- phaseUpdateBehind
		}
		handedOff()
		t.behind = true
	} else {
		t.parallel(phaseUpdate)
	}
	t.steps++
	return s, nil
}

// settle waits for the optimizer step handed to the assisting goroutines, if any.
func (t *Trainer) settle() {
	if !t.behind {
		return
	}
	for range t.jobs {
		<-t.done
	}
	t.behind = false
}

// Loss evaluates the loss on a batch of exactly BatchSize samples without
// changing the weights (the forward pass only).
func (t *Trainer) Loss(batch []dataset.Sample) (Stats, error) {
	s, err := t.forward(batch, false)
	if err != nil {
		return Stats{}, fmt.Errorf("loss: %w", err)
	}
	return s, nil
}

// readBatch fills batch from src; it returns io.EOF when src ends before
// the batch is full (the partial batch is dropped: the graph has one batch
// size).
func readBatch(src Source, batch []dataset.Sample) error {
	for i := range batch {
		if err := src.Next(&batch[i]); err != nil {
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
// With more than one worker, the assisting goroutines take each optimizer
// step while this one reads the next batch, and the next step's graphs
// wait for it; the weights are those of stepping batch by batch. (Reading
// the next batch on a goroutine of its own during a whole step was
// measured no faster on two quiet cores, BenchmarkFitFromWindow: the
// reader held up the step's goroutines.)
func (t *Trainer) Fit(ctx context.Context, src Source, steps, reportEvery int, report func(step int64, s Stats)) (int, error) {
	defer t.settle()
	var acc Stats
	flush := func() {
		t.settle()
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
		if err := readBatch(src, t.batch); err != nil {
			flush()
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		s, err := t.step(t.batch, true)
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
		if err := readBatch(src, t.batch); err != nil {
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
	s.Ownership += o.Ownership * w
	s.Score += o.Score * w
	s.Reply += o.Reply * w
	s.LR = o.LR
	s.Samples += o.Samples
}

func (s Stats) mean() Stats {
	w := float64(s.Samples)
	return Stats{Samples: s.Samples, Policy: s.Policy / w, Outcome: s.Outcome / w, L2: s.L2 / w, Total: s.Total / w, LR: s.LR,
		Ownership: s.Ownership / w, Score: s.Score / w, Reply: s.Reply / w}
}

// Checkpoint is a snapshot of the training state at generation: a copy of
// the network, the step count, and the optimizer's state (Adam's moments
// and step count, or SGD's velocity) as extra tensors and metadata, so
// Restore resumes exactly where training stopped.
func (t *Trainer) Checkpoint(generation int) *model.Checkpoint {
	extra, meta := t.opt.state()
	net := t.net.Clone()
	net.Spec = t.v.Spec.Canonical() // the variant travels as its spec
	if t.ema != nil {
		// The average plays; the trained weights go on training.
		for i, p := range net.Params {
			extra = append(extra, model.Param{Name: trainedPrefix + p.Name, Shape: append([]int(nil), p.Shape...), Data: append([]float32(nil), p.Data...)})
			copy(p.Data, t.ema[i])
		}
	}
	return &model.Checkpoint{Net: net, Generation: generation, Steps: t.steps, Extra: extra, Meta: meta}
}

// hasTensors reports whether extra holds a tensor named prefix+something.
func hasTensors(extra []model.Param, prefix string) bool {
	for _, p := range extra {
		if strings.HasPrefix(p.Name, prefix) {
			return true
		}
	}
	return false
}

// trainedPrefix names the trained weights in the extra tensors of a
// checkpoint whose network is their moving average (Config.WeightEMA).
const trainedPrefix = "trained."

// Restore loads the weights, step count and optimizer state of c, which
// must be a checkpoint of this trainer's architecture and optimizer.
func (t *Trainer) Restore(c *model.Checkpoint) error {
	if c.Net.Variant != t.net.Variant {
		return fmt.Errorf("restore: a checkpoint of variant %q, training %q", c.Net.Variant, t.net.Variant)
	}
	if err := t.net.CopyFrom(c.Net); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	// A checkpoint of averaged weights carries the trained ones: training
	// goes on from those, and the average from its network.
	if t.ema != nil {
		for i, p := range t.net.Params {
			copy(t.ema[i], p.Data)
		}
	}
	if hasTensors(c.Extra, trainedPrefix) {
		trained := make([][]float32, len(t.net.Params))
		for i, p := range t.net.Params {
			trained[i] = p.Data
		}
		if err := restoreTensors(c.Extra, trainedPrefix, names(t.net.Params), trained); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if err := t.opt.restore(c.Extra, c.Meta); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	t.steps = c.Steps
	return nil
}
