package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// Trainer is `millzero train`, the one process that writes a run's state:
// generation after generation of self-play, training and the arena under
// the run's lease, each step resumable from what is saved.
type Trainer struct {
	player
	start  time.Time
	base   float64               // run hours before this invocation
	oracle []arena.TablePosition // the tables' positions the strength benchmark measures, drawn once
	kept   *dataset.ShardCache   // the training window's decoded shards, carried to the next generation's window

	plotted time.Time // when the plots were last drawn
	stale   bool      // a generation finished since
	redraws int       // plots drawn by this invocation

	noLocal  bool          // play no games: wait for the workers'
	lease    *store.Lease  // the run's, held
	patience time.Duration // Options.StorePatience
}

// Close releases the trainer's lease and the run's store.
func (t *Trainer) Close() error {
	// Bounded: a store that does not answer must not hold the exit for
	// its patience (the lease then lapses at its expiry).
	ctx, cancel := context.WithTimeout(context.Background(), afterStopTimeout)
	defer cancel()
	if err := t.lease.Release(ctx); err != nil {
		t.closeStore()
		return err
	}
	return t.closeStore()
}

// hours is the run's hours, every invocation's.
func (t *Trainer) hours() float64 { return t.base + time.Since(t.start).Hours() }

// Run plays generations until the budget is spent or ctx ends, and says
// why it stopped. When the lease lapses because the store did not answer
// and the trainer has a store patience, the lease is taken back once the
// store answers (unless another trainer took it meanwhile) and the
// generation resumes from what is saved.
func (t *Trainer) Run(ctx context.Context) (string, error) {
	runStart := time.Now()
	for {
		why, err := t.runLeased(ctx, runStart)
		if err == nil || t.patience == 0 || ctx.Err() != nil || !errors.Is(err, store.ErrLeaseLost) || errors.Is(err, store.ErrLeaseTaken) {
			return why, err
		}
		t.prog.Done("run %s: the lease lapsed while the store did not answer (%v); taking it back once the store answers", t.loc, err)
		lease, rerr := t.lease.Retake(ctx)
		if rerr != nil {
			return "", fmt.Errorf("%w; take the lease back: %w", err, rerr)
		}
		t.lease = lease
		// The lease may have lapsed between a generation's row and its
		// upload (generations.csv is the commit point): the store would
		// then lack the row, the workers would go on playing into the
		// generation before, and the trainer would wait for the next
		// one's games for ever. The tables are merged with the store's
		// and uploaded where they differ, as when a trainer starts.
		if rerr := t.reconcileMetrics(ctx); rerr != nil {
			return "", fmt.Errorf("%w; after taking the lease back: %w", err, rerr)
		}
		t.prog.Done("run %s: the lease is held again; resuming", t.loc)
	}
}

// runLeased is Run under the lease held now; runStart is when Run began.
func (t *Trainer) runLeased(ctx context.Context, runStart time.Time) (string, error) {
	// Stop, with the lease's cause, when the lease is lost.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lc := t.lease.Context()
	defer context.AfterFunc(lc, func() { cancel(context.Cause(lc)) })()
	if err := t.resume(ctx); err != nil {
		return "", err
	}
	ctx, why, stop := t.budget(ctx, runStart)
	defer stop()
	if why != "" {
		return why, nil
	}
	t.sayPlan()
	defer t.finalPlots(ctx)
	for {
		gens, err := t.gens.Rows()
		if err != nil {
			return "", err
		}
		g := len(gens)
		t.showBudget(ctx, g)
		t.telGeneration(g)
		if n := t.cfg.Loop.Generations; n > 0 && g >= n {
			return fmt.Sprintf("reached the budget of %d generations (run %s)", n, t.loc), nil
		}
		if err := t.generation(ctx, g); err != nil {
			return t.stopped(ctx, g, err)
		}
	}
}

// resume puts right what a stopped trainer left: temporary files of dead
// writers, what it finished but did not upload (the best pointer and
// metrics are uploaded with each generation's end), a best pointer naming
// a checkpoint that is gone. An error while the lease is lost says so,
// so that Run takes the lease back (it may lapse again right after it was
// taken back, on a loaded machine, before a generation begins).
func (t *Trainer) resume(ctx context.Context) error {
	leaseErr := func(err error) error {
		if cause := context.Cause(ctx); errors.Is(cause, store.ErrLeaseLost) {
			return fmt.Errorf("run %s: %w (%w)", t.loc, cause, err)
		}
		return fmt.Errorf("run %s: %w", t.loc, err)
	}
	if err := t.dir.RemoveTemp(); err != nil {
		return fmt.Errorf("run %s: %w", t.loc, err)
	}
	for _, prefix := range []string{store.ModelsPrefix, store.ArenaPrefix, store.GamesPrefix} {
		if err := t.wd.PushAll(ctx, prefix); err != nil {
			return leaseErr(err)
		}
	}
	if err := t.recoverBest(ctx); err != nil {
		return leaseErr(err)
	}
	return nil
}

// budget is ctx with the deadlines of loop.run_hours (the run's hours in
// all) and loop.hours (this invocation's, from runStart), and why the run
// stops at once ("" when it does not); stop releases the deadlines.
func (t *Trainer) budget(ctx context.Context, runStart time.Time) (_ context.Context, why string, stop func()) {
	var stops []context.CancelFunc
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if h := t.cfg.Loop.RunHours; h > 0 {
		if t.hours() >= h {
			return ctx, runHoursSpent(h, t.hours(), ""), stop
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, hoursDuration(h-t.hours()), errRunHours)
		stops = append(stops, cancel)
	}
	if t.cfg.Loop.Hours > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, runStart.Add(hoursDuration(t.cfg.Loop.Hours)))
		stops = append(stops, cancel)
	}
	return ctx, "", stop
}

// sayPlan says what the run plays: its variant, network, schedule of
// growth and visits, and a generation's games and steps.
func (t *Trainer) sayPlan() {
	steps := "" // the run's schedule: growth, then visits
	for _, s := range t.cfg.Loop.Grow {
		steps += fmt.Sprintf(", %dx%d from generation %d", s.Width, s.Blocks, s.Generation)
	}
	for _, s := range t.cfg.Loop.Visits {
		steps += fmt.Sprintf(", full searches of %d visits from generation %d", s.Simulations, s.Generation)
	}
	t.prog.Done("run %s: %s, network %v%s, %d games and %d steps a generation", t.loc, t.v.Name,
		model.NewArch(t.v, t.cfg.Model), steps, t.cfg.Loop.Games, t.cfg.Loop.Steps)
}

// stopped is what Run says and returns when generation g stopped with
// err: why, for a budget spent or an interrupt, else the error, which is
// recorded as the run's last error while the lease is held.
func (t *Trainer) stopped(ctx context.Context, g int, err error) (string, error) {
	switch {
	case errors.Is(context.Cause(ctx), store.ErrLeaseLost):
		// No last error is written: the lease is no longer held.
		return "", fmt.Errorf("generation %d: %w", g, context.Cause(ctx))
	case errors.Is(err, store.ErrLeaseLost):
		return "", fmt.Errorf("generation %d: %w", g, err) // a commit found it lost
	case errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errRunHours):
		return runHoursSpent(t.cfg.Loop.RunHours, t.hours(), fmt.Sprintf(" in generation %d", g)), nil
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the budget of %g hours is spent in generation %d; run the same command to go on", t.cfg.Loop.Hours, g), nil
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("interrupted in generation %d; run the same command to resume", g), nil
	}
	err = fmt.Errorf("generation %d: %w", g, err)
	actx, acancel := afterStop(ctx)
	t.recordError(actx, err)
	acancel()
	return "", err
}

// pullState brings the run's mutable state from the store into the
// trainer's cache: the best pointer, the ratings, the arena's records,
// and the checkpoints of the best and the newest generation (the metrics
// tables are merged with the store's: reconcileMetrics).
func (t *Trainer) pullState(ctx context.Context) error {
	if t.wd.Local() {
		return nil
	}
	for _, name := range []string{store.BestObject, store.RatingsObject} {
		if err := t.wd.Pull(ctx, name); err != nil {
			return err
		}
	}
	if _, err := t.wd.PullAll(ctx, store.ArenaPrefix); err != nil {
		return err
	}
	models, err := t.wd.Store().List(ctx, store.CheckpointsPrefix)
	if err != nil {
		return err
	}
	if n := len(models); n > 0 {
		if err := t.wd.Pull(ctx, models[n-1].Name); err != nil {
			return err
		}
	}
	if best, err := t.dir.Best(); err == nil && best > 0 {
		return t.wd.Pull(ctx, store.CheckpointObject(best))
	}
	return nil
}

// recordError writes err as the run's last error; a failure to write it
// is only logged (err is what matters).
func (t *Trainer) recordError(ctx context.Context, err error) {
	text := fmt.Sprintf("%s %v\n", time.Now().UTC().Format(time.RFC3339), err)
	werr := t.commit(ctx, func(ctx context.Context) error {
		return t.writeAndPush(ctx, store.LastErrorObject, []byte(text))
	})
	if werr != nil {
		t.log.Warn("record the last error", "err", werr)
	}
}

// afterStopTimeout bounds what a stopped trainer or worker still sends to
// the store (finished shards, plots, its last error): a store that does
// not answer must not keep an interrupted process waiting out its
// patience.
const afterStopTimeout = 30 * time.Second

// afterStop is a context for store work that must go on when ctx ends
// (the finished shards of an interrupted round): not cancelled with ctx,
// but afterStopTimeout after ctx ends.
func afterStop(ctx context.Context) (context.Context, context.CancelFunc) {
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(afterStopTimeout, cancel)
		context.AfterFunc(actx, func() { t.Stop() })
	})
	return actx, func() { stop(); cancel() }
}

// errRunHours is the cause of the deadline of loop.run_hours.
var errRunHours = errors.New("the run's hours are spent")

// runHoursSpent says that the run's budget of h hours in all
// (loop.run_hours) is spent, at its hours so far, where.
func runHoursSpent(h, hours float64, where string) string {
	return fmt.Sprintf("the run's budget of %g hours in all is spent%s (%.2f run hours); a larger --run-hours goes on", h, where, hours)
}

// hoursDuration is h hours.
func hoursDuration(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }
