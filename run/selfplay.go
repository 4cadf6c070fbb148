package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// Worker is a self-play process beside the trainer (millzero selfplay):
// it adds games to the run's current generation, with the run's best
// model, and writes nothing else of the run.
type Worker struct {
	player
}

// Close releases the run's store.
func (w *Worker) Close() error { return w.closeStore() }

// retryEvery is how long a following worker waits before it tries again
// to load a model it could not load.
const retryEvery = 10 * time.Second

// Selfplay plays games beside the trainer (millzero selfplay), in rounds
// of selfplay.games_per_shard games per worker, so that the games follow
// the run: each round reads the run's current generation and best model,
// plays into that generation with that model, and uploads its finished
// shards, tagged with the model's generation. It stops after games games
// (0: when ctx ends) and returns the totals.
//
// With follow, a best model that cannot be loaded (not yet uploaded, a
// store error) is reported and tried again every retryEvery; no game is
// played meanwhile, so no shard holds games of a model the worker did not
// load. Without follow it is an error.
func (w *Worker) Selfplay(ctx context.Context, games int, follow bool) (selfplay.Stats, error) {
	if err := w.wd.Store().CheckWriteOnce(ctx); err != nil {
		return selfplay.Stats{}, err
	}
	round := w.cfg.SelfPlay.GamesPerShard * max(1, w.cfg.SelfPlay.Workers)
	var total selfplay.Stats
	for games == 0 || int(total.Games) < games {
		n := round
		if games > 0 {
			n = min(n, games-int(total.Games))
		}
		st, err := w.round(ctx, n)
		total.Games += st.Games
		total.Positions += st.Positions
		total.Moves += st.Moves
		total.Plies += st.Plies
		total.Draws += st.Draws
		for i := range st.Wins {
			total.Wins[i] += st.Wins[i]
		}
		total.Elapsed += st.Elapsed
		var noModel *modelError
		switch {
		case ctx.Err() != nil:
			return total, nil
		case follow && errors.As(err, &noModel):
			w.prog.Done("selfplay: %v; trying again in %s", err, retryEvery)
			select {
			case <-ctx.Done():
				return total, nil
			case <-time.After(retryEvery):
			}
		case err != nil:
			return total, err
		}
	}
	return total, nil
}

// modelError is a round's failure to load its model.
type modelError struct {
	gen int
	err error
}

func (e *modelError) Error() string {
	return fmt.Sprintf("cannot load the best model %s: %v", store.ModelName(e.gen), e.err)
}
func (e *modelError) Unwrap() error { return e.err }

// round plays n games into the run's current generation with its current
// best model, and uploads the shards.
func (w *Worker) round(ctx context.Context, n int) (selfplay.Stats, error) {
	for _, name := range []string{store.GenerationsTable, store.BestObject} {
		if err := w.wd.Pull(ctx, name); err != nil {
			return selfplay.Stats{}, err
		}
	}
	gens, err := w.gens.Rows() // another process may have added rows
	if err != nil {
		return selfplay.Stats{}, err
	}
	g := len(gens)
	best, err := w.dir.Best()
	if errors.Is(err, store.ErrNoModel) {
		best = 0
	} else if err != nil {
		return selfplay.Stats{}, err
	}
	// The trainer pushes models/best before generations.csv, the commit
	// point: a round that read the table just before a commit and the
	// pointer just after sees a best one generation ahead of the table.
	// Generation best-1 is then played and trained, so the round plays
	// into generation best, as it would a moment later; the games of a
	// generation are never its successor's model's.
	g = max(g, best)
	w.telGeneration(g)
	w.forget(best)
	if best > 0 {
		err := w.wd.Pull(ctx, store.CheckpointObject(best))
		if err == nil {
			_, err = w.network(best)
		}
		if err != nil {
			return selfplay.Stats{}, &modelError{best, err}
		}
	}
	job, err := w.selfplayJob(g, best, n, seedNow())
	if err != nil {
		return selfplay.Stats{}, err
	}
	job.ProgressEvery = time.Second
	line := func(s selfplay.Stats) string {
		return fmt.Sprintf("selfplay into generation %d with %s: %d/%d games, %.0f positions/s, %.0f moves/s, mean length %.0f, wins %v, draws %d",
			g, store.ModelName(best), s.Games, n, s.PositionsPerSecond(), s.MovesPerSecond(), s.MeanLength(), s.Wins[:w.v.Players], s.Draws)
	}
	tell := w.selfplayTelemetry()
	job.Progress = func(s selfplay.Stats) { w.phase(int(s.Games), n); tell(s); w.prog.Update("%s", line(s)) }
	st, err := selfplay.Run(ctx, job)
	tell(st)
	w.prog.Done("%s", line(st))
	// The finished shards go up even when the round was interrupted; a
	// shard being written when it was is never finished, so never sent.
	pctx, pcancel := afterStop(ctx)
	defer pcancel()
	perr := w.wd.PushAll(pctx, store.ShardsPrefix(g))
	if perr == nil && !w.wd.Local() {
		perr = dropOwnShards(w.dir.ShardDir(g))
	}
	if err == nil {
		err = perr
	}
	return st, err
}

// dropOwnShards removes from a worker's cache the shards this process
// wrote, once the store has them; another worker's on this machine, which
// shares the cache, may not be uploaded yet.
func dropOwnShards(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	pid := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		f := strings.Split(e.Name(), "-")
		if strings.HasSuffix(e.Name(), dataset.ShardExt) && len(f) >= 4 && f[2] == pid {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedNow is a seed for a process that must not repeat another's games.
func seedNow() uint64 { return uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<40 }
