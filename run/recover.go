package run

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/millzero/millzero/store"
)

// recoverBest makes models/best name a checkpoint there is. When the
// generation it names has no checkpoint, in the store or the cache (it was
// deleted), the best falls back to the newest earlier checkpoint there is
// (none: the rollouts of generation 0 play), said to the user and
// uploaded; the generations after it are played with that model, and the
// next candidate trains from the newest checkpoint there is.
func (t *Trainer) recoverBest(ctx context.Context) error {
	best, err := t.dir.Best()
	if errors.Is(err, store.ErrNoModel) || err == nil && best == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	have, err := t.checkpointAt(ctx, best)
	if err != nil || have {
		return err
	}
	objs, err := t.wd.Store().List(ctx, store.CheckpointsPrefix)
	if err != nil {
		return err
	}
	fallback := 0
	for _, o := range objs {
		g, ok := store.ParseCheckpointObject(o.Name)
		if ok && g < best && g > fallback {
			fallback = g
		}
	}
	if fallback > 0 {
		if err := t.wd.Pull(ctx, store.CheckpointObject(fallback)); err != nil {
			return err
		}
		err := t.commit(ctx, func(ctx context.Context) error {
			if err := t.dir.SetBest(fallback); err != nil {
				return err
			}
			return t.wd.Push(ctx, store.BestObject)
		})
		if err != nil {
			return err
		}
		t.prog.Done("run %s: models/best names %s, whose checkpoint %s is gone; falling back to %s, the newest earlier checkpoint",
			t.loc, store.ModelName(best), t.wd.Store().Where(store.CheckpointObject(best)), store.ModelName(fallback))
		return nil
	}
	err = t.commit(ctx, func(ctx context.Context) error {
		if err := os.Remove(t.dir.BestFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return t.wd.Store().Delete(ctx, store.BestObject)
	})
	if err != nil {
		return err
	}
	t.prog.Done("run %s: models/best names %s, whose checkpoint %s is gone, and no earlier checkpoint is left; self-play goes on with rollouts until a candidate is accepted",
		t.loc, store.ModelName(best), t.wd.Store().Where(store.CheckpointObject(best)))
	return nil
}

// checkpointAt tells whether generation gen's checkpoint exists, bringing
// it into the cache when only the store has it.
func (t *Trainer) checkpointAt(ctx context.Context, gen int) (bool, error) {
	name := store.CheckpointObject(gen)
	if err := t.wd.Pull(ctx, name); err != nil {
		return false, err
	}
	_, err := os.Stat(t.wd.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
