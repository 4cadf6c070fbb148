package run

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/internal/atomicfile"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
	"github.com/millzero/millzero/train"
)

// The training step of generation g: the candidate g+1 is trained on the
// window's games, from the newest checkpoint (weights and optimizer
// state), grown, turned or given the heads the config now asks for, and
// saved with its losses in one commit. Losses go to metrics/losses.csv
// with the checkpoint, replacing any rows of a run killed before its
// checkpoint, so they are never counted twice.

// train fits the candidate of generation g+1 and saves it, or reads the
// losses of one saved already; it returns its training and validation
// losses.
func (t *Trainer) train(ctx context.Context, g int) (float64, float64, error) {
	path := t.dir.Model(g + 1)
	if _, err := os.Stat(path); err == nil {
		return t.lastLosses(g)
	}
	from, net, err := t.startingPoint(g)
	if err != nil {
		return 0, 0, err
	}
	tr, err := train.New(t.v, net, t.cfg.Train)
	if err != nil {
		return 0, 0, err
	}
	defer tr.Close()
	if from != nil {
		if err := tr.Restore(from); err != nil {
			return 0, 0, err
		}
	}
	rows, trainLoss, valLoss, err := t.fit(ctx, g, tr)
	if err != nil {
		return 0, 0, err
	}
	if err := t.publishCandidate(ctx, g, tr, rows); err != nil {
		return 0, 0, err
	}
	t.prog.Done("generation %d training: %d steps in all, loss %.4f, validation %.4f -> %s", g, tr.Steps(), trainLoss, valLoss, filepath.Base(path))
	return trainLoss, valLoss, nil
}

// startingPoint is the checkpoint the candidate of generation g+1 trains
// on from (nil for a new network) and the network it trains: the newest
// checkpoint's, adapted to the config (adapt), or a new one.
func (t *Trainer) startingPoint(g int) (*model.Checkpoint, *model.Network, error) {
	for k := g; k >= 1; k-- {
		if _, err := os.Stat(t.dir.Model(k)); err == nil {
			ck, err := model.LoadCheckpointFor(t.dir.Model(k), t.v)
			if err != nil {
				return nil, nil, err
			}
			return t.adapt(g, ck)
		}
	}
	a := model.NewArch(t.v, t.cfg.TrunkAt(g))
	a.Aux = t.cfg.Train.Aux()
	net, err := model.New(t.v.Name, a, rand.New(rand.NewPCG(t.cfg.Loop.Seed, 0x6e6574)))
	if err != nil {
		return nil, nil, err
	}
	if net.Arch.Symmetric {
		if err := model.Tie(t.v, net); err != nil {
			return nil, nil, err
		}
	}
	return nil, net, nil
}

// adapt is the checkpoint from which generation g trains, from, with
// what the config changed since it was saved (loop.grow,
// model.orientation, train.*_weight), and a copy of its network to train.
func (t *Trainer) adapt(g int, from *model.Checkpoint) (*model.Checkpoint, *model.Network, error) {
	trunk := t.cfg.TrunkAt(g)
	if a := from.Net.Arch; trunk.Width > a.Width || trunk.Blocks > a.Blocks {
		// loop.grow: a network only grows.
		to := model.Config{Width: max(trunk.Width, a.Width), Blocks: max(trunk.Blocks, a.Blocks)}
		grown, err := train.GrowCheckpoint(from, to, seedpkg.Derive(t.cfg.Loop.Seed, "grow", uint64(g)))
		if err != nil {
			return nil, nil, fmt.Errorf("generation %d: %w", g, err)
		}
		from = grown
		t.prog.Done("generation %d: the network grows from %v to %v (loop.grow), the same function", g, a, from.Net.Arch)
	}
	if want := trunk.Orientation == model.OrientCanonical; from.Net.Arch.Canonical != want {
		// model.orientation changed in a run under way: the same weights,
		// from this candidate on seeing each board in its canonical turn
		// (or in any turn again).
		ck := *from
		ck.Net = from.Net.Reoriented(want)
		from = &ck
		t.prog.Done("generation %d: the network sees %s from now on (model.orientation %s)", g,
			map[bool]string{true: "every board in its canonical turn", false: "the boards turned any way"}[want], trunk.Orientation)
	}
	if want := t.cfg.Train.Aux(); from.Net.Arch.Aux != want {
		// train.*_weight changed in a run under way: the heads follow,
		// every other weight and the optimizer's state kept.
		ck, err := train.WithAux(from, want, seedpkg.Derive(t.cfg.Loop.Seed, "heads", uint64(g)))
		if err != nil {
			return nil, nil, fmt.Errorf("generation %d: %w", g, err)
		}
		from = ck
		t.prog.Done("generation %d: the network's auxiliary heads are %v from now on (train.*_weight)", g, want)
	}
	return from, from.Net.Clone(), nil
}

// fit trains tr loop.steps steps on the window of generation g, then
// validates it; it returns the loss rows (a tenth of the steps, and the
// validation) and the last training and the validation loss (NaN when
// there is none).
func (t *Trainer) fit(ctx context.Context, g int, tr *train.Trainer) ([]runmetrics.LossRow, float64, float64, error) {
	lc := t.cfg.Loop
	window := lc.WindowAt(g)
	for k := max(0, g-window+1); k < g; k++ {
		// The window's shards, with those the workers added late; older
		// generations are not read.
		if _, err := t.wd.PullAll(ctx, store.ShardsPrefix(k)); err != nil {
			return nil, 0, 0, err
		}
	}
	if t.kept == nil {
		t.kept = dataset.NewShardCache()
	}
	src, vsrc, err := train.OpenSplits(t.dir.Games(), dataset.WindowOptions{Generations: window,
		Samples: lc.WindowSamples, Shuffle: lc.Shuffle, Seed: seedpkg.Derive(lc.Seed, "shuffle", uint64(g)), FullOnly: true, Logger: t.log, Variant: t.v,
		Cache: t.kept}, lc.ValFraction)
	if err != nil {
		return nil, 0, 0, err
	}
	defer src.Close()
	defer vsrc.Close()
	var rows []runmetrics.LossRow
	trainLoss, lease := math.NaN(), leaseTag(t.lease)
	every, first := max(1, lc.Steps/10), tr.Steps()
	_, err = tr.Fit(ctx, src, lc.Steps, every, func(step int64, s train.Stats) {
		rows = append(rows, runmetrics.LossRow{Generation: g, Step: step, Split: "train", LR: s.LR, Total: s.Total, Policy: s.Policy,
			Outcome: s.Outcome, L2: s.L2, Lease: lease})
		trainLoss = s.Total
		t.telLosses(s.Policy, s.Outcome, s.Total)
		t.phase(int(step-first), lc.Steps)
		t.prog.Update("generation %d training: step %d, %s", g, step, s)
	})
	if err != nil {
		return nil, 0, 0, err
	}
	valLoss := math.NaN()
	if lc.ValBatches > 0 && lc.ValFraction > 0 {
		if s, err := tr.Validate(vsrc, lc.ValBatches); err == nil {
			valLoss = s.Total
			rows = append(rows, runmetrics.LossRow{Generation: g, Step: tr.Steps(), Split: "val", Total: s.Total, Policy: s.Policy,
				Outcome: s.Outcome, L2: s.L2, Lease: lease})
		} else {
			t.prog.Done("generation %d: no validation loss: %v", g, err)
		}
	}
	return rows, trainLoss, valLoss, nil
}

// publishCandidate saves tr's checkpoint as the candidate of generation
// g+1 and its loss rows, in one commit: the checkpoint is written aside
// first and linked to its name under the lease, once (a candidate there
// already is another trainer's, and an error).
func (t *Trainer) publishCandidate(ctx context.Context, g int, tr *train.Trainer, rows []runmetrics.LossRow) error {
	path := t.dir.Model(g + 1)
	if err := os.MkdirAll(t.dir.Models(), 0o777); err != nil {
		return err
	}
	tmp := atomicfile.TempName(path) // written outside the commit: the commit only publishes it
	defer os.Remove(tmp)
	if err := tr.Checkpoint(g + 1).Save(tmp); err != nil {
		return err
	}
	if len(rows) == 0 {
		rows = []runmetrics.LossRow{{Generation: g, Split: "none", Total: math.NaN(), Policy: math.NaN(), Outcome: math.NaN(),
			L2: math.NaN(), Lease: leaseTag(t.lease)}}
	}
	return t.commit(ctx, func(ctx context.Context) error {
		if err := t.loss.Replace(g, rows...); err != nil {
			return err
		}
		if err := atomicfile.Publish(tmp, path, true); err != nil {
			return fmt.Errorf("publish the candidate %s: %w", path, err)
		}
		for _, name := range []string{store.LossesTable, store.CheckpointObject(g + 1)} {
			if err := t.wd.Push(ctx, name); err != nil {
				return err
			}
		}
		return nil
	})
}

// lastLosses are generation g's last recorded training and validation
// losses (NaN where none is).
func (t *Trainer) lastLosses(g int) (float64, float64, error) {
	rows, err := t.loss.Rows()
	if err != nil {
		return 0, 0, err
	}
	last := map[string]float64{"train": math.NaN(), "val": math.NaN()}
	for _, r := range rows {
		if r.Generation == g {
			last[r.Split] = r.Total
		}
	}
	return last["train"], last["val"], nil
}
