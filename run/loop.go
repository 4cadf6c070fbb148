package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/progress"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
	"github.com/millzero/millzero/train"
)

// Loop is `millzero train`: generation after generation of self-play,
// training, and the arena, each step resumable from what is on disk.
type Loop struct {
	wd     *store.WorkDir // the store and the local directory
	loc    string         // the run's path or URL, for messages
	dir    store.Dir      // the local directory: the run's own, or its cache
	cfg    runconfig.Config
	v      *engine.Variant
	prog   progress.Reporter
	log    *slog.Logger
	gens   *series // one row per finished generation: the commit point of a generation
	loss   *series // training and validation losses
	elo    *series // the best model's rating after each generation
	str    *series // the strength benchmark of the best, now and then (strength.every_hours)
	phases *series // the seconds (and self-play's figures) of each phase run, by every process: summed per generation
	start  time.Time
	base   float64                // run hours before this invocation
	tables mcts.Prover            // the endgame tables of cfg.Tablebase; nil without
	oracle []arena.TablePosition  // the tables' positions the strength benchmark measures, drawn once
	nets   map[int]*model.Network // the networks of the best and the candidate, loaded once; others are dropped
	shards shardChecks            // the verdict on each shard counted
	kept   *dataset.ShardCache    // the training window's decoded shards, carried to the next generation's window

	plotted time.Time // when the plots were last drawn
	stale   bool      // a generation finished since
	redraws int       // plots drawn by this invocation

	noLocal  bool          // play no games: wait for the workers'
	lease    *store.Lease  // the trainer's; nil for a worker
	patience time.Duration // Options.StorePatience

	tel Telemetry // the figures' receiver for monitoring; nil: none
}

// Options are what a command gives the loop.
type Options struct {
	Progress progress.Reporter // shows the loop's state; nil shows nothing
	Log      *slog.Logger      // warnings, such as a skipped shard; nil: slog.Default()
	Cache    string            // the local cache of a run in an object store; "" is store.DefaultCache
	Existing bool              // the run must exist, and this process only reads it and adds games (self-play, status)

	// NoLocalSelfplay makes the trainer play no games itself: it waits
	// for self-play workers' shards (millzero selfplay --follow).
	NoLocalSelfplay bool

	// StorePatience is how long a store operation is retried while the
	// store does not answer (store.Store.SetPatience), saying every 30 s what it
	// waits for: 0 keeps the store's few retries over about 12 s, a
	// negative value retries until the process is stopped. The trainer
	// whose lease lapsed while the store was away takes it back when the
	// store answers again within the patience (and no other trainer took
	// it meanwhile).
	StorePatience time.Duration

	// WaitForRun makes a process that only adds games (Existing) wait for
	// a run that does not exist yet (its directory, its run.yaml) and for
	// a store that cannot be reached at open, saying every 30 s what it
	// waits for, instead of failing. Without it a missing run is an error
	// and nothing is created.
	WaitForRun bool

	// BreakLease makes the trainer take the run's lease even from a live
	// holder (store.BreakLease), saying whose lease it broke.
	BreakLease bool

	// Lease are the timings of the trainer's lease; the zero value is the
	// store's defaults.
	Lease store.LeaseOptions

	configPath string // Open's cfgPath: laid over an existing run's run.yaml
	configErr  error  // cfgPath's error over the default config: a new run's
}

// quiet is the progress.Reporter that shows nothing.
type quiet struct{}

func (quiet) Update(string, ...any) {}
func (quiet) Done(string, ...any)   {}

// Open opens (or creates) the run at loc: a local path ("" is
// runs/VARIANT) or an object-store URL (see store.Open), which the loop
// mirrors in a local cache (Options.Cache). A new run stores the resolved
// config (cfgPath over the default) as run.yaml; an existing run uses its
// run.yaml, and the trainer lays a cfgPath over it: the settings that may
// change between generations change (and are printed), the others are
// refused with the reason (see reconfigure).
func Open(ctx context.Context, loc, cfgPath string, opts Options) (*Loop, error) {
	cfg, text, err := runconfig.LoadConfig(cfgPath)
	if err != nil && (loc == "" || opts.Existing || !store.IsURL(loc) && !isFile(store.Dir(loc).Config())) {
		return nil, err // no run to lay cfgPath over: nothing is made
	}
	opts.configErr = err // over the default; the error of a new run, while an existing one lays cfgPath over its run.yaml
	if loc == "" {
		loc = filepath.Join("runs", cfg.VariantSpec.Name) // the name, also of a variant file
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Existing && !store.IsURL(loc) {
		// A reader never makes the directory (a mistyped path stays unmade).
		if err := awaitRunDir(ctx, loc, opts); err != nil {
			return nil, err
		}
	}
	st, err := openStoreWaiting(ctx, loc, opts)
	if err != nil {
		return nil, err
	}
	st.SetPatience(opts.StorePatience, func(msg string) { opts.Log.Warn(msg) })
	opts.configPath = cfgPath
	l, err := openOn(ctx, st, loc, cfg, text, cfgPath != "", opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return l, nil
}

// openOn opens the run in store st, opened from loc.
func openOn(ctx context.Context, st *store.Store, loc string, cfg runconfig.Config, text []byte, given bool, opts Options) (*Loop, error) {
	role := "train"
	if opts.Existing {
		role = "follow"
	}
	wd, err := store.NewWorkDir(st, loc, opts.Cache, role)
	if err != nil {
		return nil, err
	}
	return open(ctx, wd, loc, cfg, text, given, opts)
}

func open(ctx context.Context, wd *store.WorkDir, loc string, cfg runconfig.Config, text []byte, given bool, opts Options) (*Loop, error) {
	exists, err := wd.Store().CheckRun(ctx)
	if err != nil {
		return nil, err
	}
	if !exists && opts.Existing && opts.WaitForRun {
		if err := awaitRun(ctx, wd.Store(), loc, opts); err != nil {
			return nil, err
		}
		exists = true
	}
	// Only a lease and no run.yaml: a new run whose trainer is starting,
	// or died before it wrote run.yaml.
	var lease *store.Lease
	if !opts.Existing {
		// The trainer takes the lease before it reads or writes anything:
		// a second trainer stops here, naming the first.
		if err := wd.Store().CheckWriteOnce(ctx); err != nil {
			return nil, err
		}
		if opts.BreakLease {
			var broken *store.LeaseInfo
			if lease, broken, err = store.BreakLease(ctx, wd.Store(), "train", opts.Lease); err != nil {
				return nil, err
			}
			if broken != nil && opts.Progress != nil {
				opts.Progress.Done("run %s: broke the lease of %q (pid %d on host %s, renewed %s ago): if that trainer is alive, it commits nothing more and stops within %v",
					loc, broken.Holder, broken.PID, broken.Host, time.Since(broken.Renewed).Round(time.Second), lease.Options().Watch)
			}
		} else if lease, err = store.AcquireLease(ctx, wd.Store(), "train", opts.Lease); err != nil {
			return nil, err
		}
	}
	l, err := openLeased(ctx, wd, lease, loc, cfg, text, given, opts, exists)
	if err != nil && lease != nil {
		lease.Release(context.WithoutCancel(ctx))
	}
	return l, err
}

// openLeased opens the run (one exists in the store when exists), the
// trainer under its lease (nil for the other roles).
func openLeased(ctx context.Context, wd *store.WorkDir, lease *store.Lease, loc string, cfg runconfig.Config, text []byte, given bool, opts Options, exists bool) (*Loop, error) {
	dir := wd.Dir()
	var changes []string
	switch {
	case exists:
		if err := wd.Pull(ctx, store.ConfigObject); err != nil {
			return nil, fmt.Errorf("run %s: %w", loc, err)
		}
		storedCfg, storedText, err := runconfig.LoadRunConfig(dir.Config())
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", loc, err)
		}
		cfg = storedCfg
		if given && !bytes.Equal(storedText, text) {
			if opts.Existing || opts.configPath == "" {
				return nil, fmt.Errorf("run %s was started with another config (its run.yaml): leave out --config to resume it, or use a new --run", loc)
			}
			if cfg, changes, err = reconfigureRun(ctx, wd, lease, storedText, opts.configPath); err != nil {
				return nil, fmt.Errorf("run %s: %w", loc, err)
			}
		}
	case opts.Existing:
		return nil, fmt.Errorf("run %s: no run.yaml: start the run with millzero train first", loc)
	default:
		if opts.configErr != nil {
			return nil, opts.configErr
		}
		if v, err := cfg.LoadVariant(); err != nil || runconfig.CheckBeforeGames(&cfg, v) != nil {
			break // the error, below, before the run is made
		}
		err := lease.Commit(ctx, func(ctx context.Context) error {
			if err := atomicfile.WriteFile(dir.Config(), text); err != nil {
				return err
			}
			return wd.Push(ctx, store.ConfigObject)
		})
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", loc, err)
		}
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		return nil, err
	}
	if err := runconfig.CheckBeforeGames(&cfg, v); err != nil {
		return nil, fmt.Errorf("run %s: %w", loc, err)
	}
	l := &Loop{wd: wd, loc: loc, dir: dir, cfg: cfg, v: v, prog: opts.Progress, log: opts.Log, start: time.Now(),
		nets: map[int]*model.Network{}, noLocal: opts.NoLocalSelfplay, shards: shardChecks{}, patience: opts.StorePatience, lease: lease}
	if l.prog == nil {
		l.prog = quiet{}
	}
	// Only the trainer measures with the tables: a process that only adds
	// games needs them when self-play uses them.
	if cfg.Tablebase != "" && !(opts.Existing && cfg.SelfPlay.Tables == selfplay.TablesOff) {
		set, err := runconfig.OpenTables(v, cfg.Tablebase, true, l.prog)
		if err != nil {
			return nil, fmt.Errorf("run %s: tablebase %s: %w", loc, cfg.Tablebase, err)
		}
		l.tables = runconfig.Prover(set)
	}
	if len(changes) > 0 {
		l.prog.Done("run %s: its config changes (run.yaml):\n  %s", loc, strings.Join(changes, "\n  "))
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	if err := l.pullState(ctx, !opts.Existing); err != nil {
		return nil, fmt.Errorf("run %s: %w", loc, err)
	}
	if l.gens, err = openSeries(dir.Path(store.GenerationsTable),
		genColumns...); err != nil {
		return nil, err
	}
	if l.loss, err = openSeries(dir.Path(store.LossesTable),
		lossColumns...); err != nil {
		return nil, err
	}
	if l.elo, err = openSeries(dir.Path(store.EloTable),
		"generation", "hours", "player", "elo", "low", "high", "games"); err != nil {
		return nil, err
	}
	if l.str, err = openSeries(dir.Path(store.StrengthTable), strengthHeader...); err != nil {
		return nil, err
	}
	if l.phases, err = openSeries(dir.Path(store.PhasesTable), phaseColumns...); err != nil {
		return nil, err
	}
	if !opts.Existing {
		if err := l.reconcileMetrics(ctx); err != nil {
			return nil, fmt.Errorf("run %s: %w", loc, err)
		}
	}
	gens, err := l.gens.load()
	if err != nil {
		return nil, err
	}
	if h := gens.column("hours"); len(h) > 0 {
		l.base = h[len(h)-1]
	}
	return l, nil
}

// pullState brings the run's mutable state from the store into the cache:
// the best pointer and the metrics tables (the trainer merges its tables
// with the store's instead: reconcileMetrics), and for the trainer the
// arena's records and ratings, and the checkpoints of the best and the
// newest generation.
func (l *Loop) pullState(ctx context.Context, trainer bool) error {
	if l.wd.Local() {
		return nil
	}
	names := []string{store.BestObject, store.RatingsObject}
	if !trainer {
		names = append(names, store.GenerationsTable, store.LossesTable, store.EloTable, store.PhasesTable, store.StrengthTable)
	}
	for _, name := range names {
		if err := l.wd.Pull(ctx, name); err != nil {
			return err
		}
	}
	if !trainer {
		return nil
	}
	if _, err := l.wd.PullAll(ctx, store.ArenaPrefix); err != nil {
		return err
	}
	models, err := l.wd.Store().List(ctx, store.CheckpointsPrefix)
	if err != nil {
		return err
	}
	if n := len(models); n > 0 {
		if err := l.wd.Pull(ctx, models[n-1].Name); err != nil {
			return err
		}
	}
	if best, err := l.dir.Best(); err == nil && best > 0 {
		return l.wd.Pull(ctx, store.CheckpointObject(best))
	}
	return nil
}

// Close releases the trainer's lease and the run's store.
func (l *Loop) Close() error {
	if l.lease != nil {
		// Bounded: a store that does not answer must not hold the exit for
		// its patience (the lease then lapses at its expiry).
		ctx, cancel := context.WithTimeout(context.Background(), afterStopTimeout)
		defer cancel()
		if err := l.lease.Release(ctx); err != nil {
			l.wd.Store().Close()
			return err
		}
	}
	return l.wd.Store().Close()
}

// runconfig.Config is the run's config; a command may change the budget
// (loop.generations, loop.hours, loop.run_hours) and self-play's workers before Run.
func (l *Loop) Config() *runconfig.Config { return &l.cfg }

// Variant is the run's variant.
func (l *Loop) Variant() *engine.Variant { return l.v }

func (l *Loop) hours() float64 { return l.base + time.Since(l.start).Hours() }

// Run plays generations until the budget is spent or ctx ends, and says
// why it stopped. When the lease lapses because the store did not answer
// and the loop has a store patience, the lease is taken back once the store
// answers (unless another trainer took it meanwhile) and the generation
// resumes from what is saved.
func (l *Loop) Run(ctx context.Context) (string, error) {
	if l.lease == nil {
		return "", fmt.Errorf("run %s: opened to add games (Options.Existing), not to train", l.loc)
	}
	runStart := time.Now()
	for {
		why, err := l.runLeased(ctx, runStart)
		if err == nil || l.patience == 0 || ctx.Err() != nil || !errors.Is(err, store.ErrLeaseLost) || errors.Is(err, store.ErrLeaseTaken) {
			return why, err
		}
		l.prog.Done("run %s: the lease lapsed while the store did not answer (%v); taking it back once the store answers", l.loc, err)
		lease, rerr := l.lease.Retake(ctx)
		if rerr != nil {
			return "", fmt.Errorf("%w; take the lease back: %w", err, rerr)
		}
		l.lease = lease
		// The lease may have lapsed between a generation's row and its
		// upload (generations.csv is the commit point): the store would
		// then lack the row, the workers would go on playing into the
		// generation before, and the trainer would wait for the next
		// one's games for ever. The tables are merged with the store's
		// and uploaded where they differ, as when a trainer starts.
		if rerr := l.reconcileMetrics(ctx); rerr != nil {
			return "", fmt.Errorf("%w; after taking the lease back: %w", err, rerr)
		}
		l.prog.Done("run %s: the lease is held again; resuming", l.loc)
	}
}

// runLeased is Run under the lease held now; runStart is when Run began.
func (l *Loop) runLeased(ctx context.Context, runStart time.Time) (string, error) {
	// Stop, with the lease's cause, when the lease is lost.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lc := l.lease.Context()
	defer context.AfterFunc(lc, func() { cancel(context.Cause(lc)) })()
	// An error while the lease is lost says so, so that Run takes the
	// lease back (it may lapse again right after it was taken back, on a
	// loaded machine, before a generation begins).
	leaseErr := func(err error) error {
		if cause := context.Cause(ctx); errors.Is(cause, store.ErrLeaseLost) {
			return fmt.Errorf("run %s: %w (%w)", l.loc, cause, err)
		}
		return fmt.Errorf("run %s: %w", l.loc, err)
	}
	if err := l.dir.RemoveTemp(); err != nil {
		return "", fmt.Errorf("run %s: %w", l.loc, err)
	}
	// What a stopped trainer finished but did not upload (the best
	// pointer and metrics are uploaded with each generation's end).
	for _, prefix := range []string{store.ModelsPrefix, store.ArenaPrefix, store.GamesPrefix} {
		if err := l.wd.PushAll(ctx, prefix); err != nil {
			return "", leaseErr(err)
		}
	}
	if err := l.recoverBest(ctx); err != nil {
		return "", leaseErr(err)
	}
	if h := l.cfg.Loop.RunHours; h > 0 {
		if l.hours() >= h {
			return runHoursSpent(h, l.hours(), ""), nil
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, hoursDuration(h-l.hours()), errRunHours)
		defer cancel()
	}
	if l.cfg.Loop.Hours > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, runStart.Add(hoursDuration(l.cfg.Loop.Hours)))
		defer cancel()
	}
	steps := "" // the run's schedule: growth, then visits
	for _, s := range l.cfg.Loop.Grow {
		steps += fmt.Sprintf(", %dx%d from generation %d", s.Width, s.Blocks, s.Generation)
	}
	for _, s := range l.cfg.Loop.Visits {
		steps += fmt.Sprintf(", full searches of %d visits from generation %d", s.Simulations, s.Generation)
	}
	l.prog.Done("run %s: %s, network %v%s, %d games and %d steps a generation", l.loc, l.v.Name,
		model.NewArch(l.v, l.cfg.Model), steps, l.cfg.Loop.Games, l.cfg.Loop.Steps)
	defer l.finalPlots(ctx)
	for {
		gens, err := l.gens.load()
		if err != nil {
			return "", err
		}
		g := len(gens.rows)
		l.showBudget(ctx, g)
		l.telGeneration(g)
		if n := l.cfg.Loop.Generations; n > 0 && g >= n {
			return fmt.Sprintf("reached the budget of %d generations (run %s)", n, l.loc), nil
		}
		err = l.generation(ctx, g)
		switch {
		case err == nil:
			continue
		case errors.Is(context.Cause(ctx), store.ErrLeaseLost):
			// No last error is written: the lease is no longer held.
			return "", fmt.Errorf("generation %d: %w", g, context.Cause(ctx))
		case errors.Is(err, store.ErrLeaseLost):
			return "", fmt.Errorf("generation %d: %w", g, err) // a commit found it lost
		case errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errRunHours):
			return runHoursSpent(l.cfg.Loop.RunHours, l.hours(), fmt.Sprintf(" in generation %d", g)), nil
		case errors.Is(err, context.DeadlineExceeded):
			return fmt.Sprintf("the budget of %g hours is spent in generation %d; run the same command to go on", l.cfg.Loop.Hours, g), nil
		case errors.Is(err, context.Canceled):
			return fmt.Sprintf("interrupted in generation %d; run the same command to resume", g), nil
		}
		err = fmt.Errorf("generation %d: %w", g, err)
		actx, acancel := afterStop(ctx)
		l.recordError(actx, err)
		acancel()
		return "", err
	}
}

// afterStopTimeout bounds what a stopped loop still sends to the store
// (finished shards, plots, its last error): a store that does not answer
// must not keep an interrupted process waiting out its patience.
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

// plotEvery is how often the loop redraws its plots (and at the end of
// an invocation): drawing every point of the run takes about a quarter of a
// second by the end of an hour, a twentieth of a generation, and grows with
// the run.
const plotEvery = time.Minute

// plotFiles are the plots redraw draws.
var plotFiles = []string{store.EloPlot, store.LossPlot, store.TimePlot, store.SelfPlayPlot}

// redraw draws the plots of the metrics so far.
func (l *Loop) redraw() error {
	if err := l.plots(); err != nil {
		return err
	}
	l.plotted, l.stale = time.Now(), false
	l.redraws++
	return nil
}

// finalPlots draws the plots of the generations finished since the last
// drawing, as the invocation ends (however it ends), and uploads them; a
// failure is only logged.
func (l *Loop) finalPlots(ctx context.Context) {
	if !l.stale {
		return
	}
	err := l.commit(ctx, func(ctx context.Context) error {
		if err := l.redraw(); err != nil {
			return err
		}
		for _, name := range plotFiles {
			if err := l.wd.Push(ctx, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		l.log.Warn("draw the plots", "err", err)
	}
}

// recordError writes err as the run's last error; a failure to write it
// is only logged (err is what matters).
func (l *Loop) recordError(ctx context.Context, err error) {
	text := fmt.Sprintf("%s %v\n", time.Now().UTC().Format(time.RFC3339), err)
	werr := l.commit(ctx, func(ctx context.Context) error {
		if err := os.MkdirAll(l.dir.Metrics(), 0o777); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(l.wd.Path(store.LastErrorObject), []byte(text)); err != nil {
			return err
		}
		return l.wd.Push(ctx, store.LastErrorObject)
	})
	if werr != nil {
		l.log.Warn("record the last error", "err", werr)
	}
}

// generation runs the phases of generation g; each skips what is done.
func (l *Loop) generation(ctx context.Context, g int) error {
	best, err := l.dir.Best()
	if errors.Is(err, store.ErrNoModel) {
		best = 0
	} else if err != nil {
		return err
	}
	if err := l.timed(ctx, g, "ladder", func() error { return l.ladder(ctx, best) }); err != nil {
		return err
	}
	if err := l.selfplay(ctx, g, best); err != nil {
		return err
	}
	if l.cfg.Loop.Reanalyse > 0 && best > 0 {
		if err := l.timed(ctx, g, "reanalyse", func() error { return l.reanalyse(ctx, g, best) }); err != nil {
			return err
		}
	}
	var trainLoss, valLoss float64
	if err := l.timed(ctx, g, "train", func() (err error) { trainLoss, valLoss, err = l.train(ctx, g); return err }); err != nil {
		return err
	}
	var res arena.GateResult
	if l.cfg.Gate.MaxGames > 0 {
		if err := l.timed(ctx, g, "gate", func() (err error) { res, err = l.gate(ctx, g+1, best); return err }); err != nil {
			return err
		}
	}
	decision := l.cfg.Gate.Decision(res)
	l.telGate(decision, res)
	if decision != "rejected" {
		if err := l.commit(ctx, func(context.Context) error { return l.dir.SetBest(g + 1) }); err != nil {
			return err
		}
		best = g + 1
		if err := l.timed(ctx, g, "ladder", func() error { return l.ladder(ctx, best) }); err != nil {
			return err
		}
	}
	if err := l.strength(ctx, g, best); err != nil {
		return err
	}
	games, err := l.countGames(ctx, g)
	if err != nil {
		return err
	}
	t, err := l.phaseTotals(g)
	if err != nil {
		return err
	}
	row := genRow{Generation: g, Hours: l.hours(), Games: games, MovesPerS: t.movesPerSecond(),
		TrainLoss: trainLoss, ValLoss: valLoss, Candidate: store.ModelName(g + 1), Decision: decision, LLR: res.LLR,
		Pairs: res.Counts(), Best: store.ModelName(best),
		SelfplayS: t.seconds["selfplay"], TrainS: t.seconds["train"], GateS: t.seconds["gate"], LadderS: t.seconds["ladder"],
		SearchKL: t.meanKL(), DrawShare: t.drawShare(), GamePlies: t.meanPlies(), TargetEntropy: t.meanEntropy(),
		Lease: leaseTag(l.lease), ReanalyseS: t.seconds["reanalyse"]}
	if err := l.commit(ctx, func(ctx context.Context) error { return l.commitGeneration(ctx, &row) }); err != nil {
		return err
	}
	l.prog.Done("generation %d: %s %s: %s, %s %s; best %s, Elo %.0f", g, store.ModelName(g+1), decision, l.cfg.Gate.Why(res), res.Unit(), res.Counts(), store.ModelName(best), row.BestElo)
	l.forget(best)
	if !l.wd.Local() {
		// The store keeps every shard; the trainer's cache only the
		// window's (the next generation's window starts at g+2-W).
		for k := 0; k <= g+1-l.cfg.Loop.WindowAt(g+1); k++ {
			if err := os.RemoveAll(l.dir.ShardDir(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// commitGeneration ends generation row.Generation, under the lease: the
// ratings (its best's Elo in row), the row in generations.csv, the plots
// when due, and the uploads of the generation's mutable objects,
// generations.csv last: it is the commit point of a generation.
func (l *Loop) commitGeneration(ctx context.Context, row *genRow) error {
	g := row.Generation
	eloBest, err := l.ratings(g)
	if err != nil {
		return err
	}
	row.BestElo = eloBest
	if err := l.gens.add(row.values()...); err != nil {
		return err
	}
	l.stale = true
	if n := l.cfg.Loop.Generations; time.Since(l.plotted) >= plotEvery || n > 0 && g+1 >= n {
		if err := l.redraw(); err != nil {
			return err
		}
		for _, name := range plotFiles {
			if err := l.wd.Push(ctx, name); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{store.BestObject, store.RatingsObject, store.EloTable, store.PhasesTable,
		store.StrengthTable, store.StrengthPlot, store.GenerationsTable} {
		if _, err := os.Stat(l.wd.Path(name)); os.IsNotExist(err) {
			continue
		}
		if err := l.wd.Push(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// network loads generation gen's network, once: the cache holds the
// best's and the candidate's (forget drops the others after each
// generation, so a long run does not keep every network it loaded).
func (l *Loop) network(gen int) (*model.Network, error) {
	if n, ok := l.nets[gen]; ok {
		return n, nil
	}
	ck, err := model.LoadCheckpointFor(l.dir.Model(gen), l.v)
	if err != nil {
		return nil, err
	}
	l.nets[gen] = ck.Net
	return ck.Net, nil
}

// forget drops the cached networks of every generation but keep.
func (l *Loop) forget(keep int) {
	for gen := range l.nets {
		if gen != keep {
			delete(l.nets, gen)
		}
	}
}

// selfplay tops generation g's games up to loop.games, played by model
// generation best (0: rollouts), and records its time and figures in
// metrics/phases.csv, also when interrupted.
func (l *Loop) selfplay(ctx context.Context, g, best int) error {
	have, err := l.countGames(ctx, g)
	if err != nil {
		return err
	}
	need := l.cfg.Loop.Games - have
	if need <= 0 {
		return nil
	}
	if l.noLocal {
		return l.timed(ctx, g, "selfplay", func() error { return l.awaitGames(ctx, g, best) })
	}
	job, err := l.selfplayJob(g, best, need, seedpkg.Derive(l.cfg.Loop.Seed, "selfplay", uint64(g), uint64(have)))
	if err != nil {
		return err
	}
	job.ProgressEvery = time.Second
	tell := l.selfplayTelemetry()
	job.Progress = func(s selfplay.Stats) {
		l.phase(have+int(s.Games), l.cfg.Loop.Games)
		tell(s)
		l.prog.Update("generation %d self-play (%s): %d/%d games, %.0f moves/s, mean length %.0f, wins %v draws %d",
			g, store.ModelName(best), have+int(s.Games), l.cfg.Loop.Games, s.MovesPerSecond(), s.MeanLength(), s.Wins[:l.v.Players], s.Draws)
	}
	start := time.Now()
	st, err := selfplay.Run(ctx, job)
	tell(st)
	pctx, pcancel := afterStop(ctx)
	defer pcancel()
	if perr := l.wd.PushAll(pctx, store.ShardsPrefix(g)); err == nil {
		err = perr // the finished shards, also of an interrupted process
	}
	rerr := l.commit(ctx, func(context.Context) error {
		return l.phases.add(g, "selfplay", time.Since(start).Seconds(), st.Moves, st.Positions, st.KLMicro, st.Games, st.Plies, st.Draws, st.EntropyMicro)
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	l.prog.Done("generation %d self-play (%s): %d games, %.0f moves/s, %d positions, mean length %.0f, draws %d (ply cap %d), search KL from the prior %.3f nats (the target's entropy %.3f), %d adjudicated and %d positions rescored by the tables%s%s",
		g, store.ModelName(best), have+int(st.Games), st.MovesPerSecond(), st.Positions, st.MeanLength(), st.Draws, st.Reasons[engine.PlyCapDraw], st.MeanPolicyKL(), st.MeanTargetEntropy(), st.Adjudicated, st.Rescored, st.ResignSummary(), endgameSummary(st))
	return nil
}

// countGames is the number of games of generation g, from every self-play
// process: the shards in the store, brought into the cache.
func (l *Loop) countGames(ctx context.Context, g int) (int, error) {
	if _, err := l.wd.PullAll(ctx, store.ShardsPrefix(g)); err != nil {
		return 0, err
	}
	return l.shards.count(l.dir.ShardDir(g), l.v.Name, l.log)
}

// pollEvery is how often a trainer without local self-play looks for the
// workers' shards.
const pollEvery = 2 * time.Second

// awaitGames waits until self-play workers have played generation g's
// games.
func (l *Loop) awaitGames(ctx context.Context, g, best int) error {
	for {
		have, err := l.countGames(ctx, g)
		if err != nil {
			return err
		}
		if have >= l.cfg.Loop.Games {
			l.prog.Done("generation %d self-play (%s): %d games from the workers", g, store.ModelName(best), have)
			return nil
		}
		l.phase(have, l.cfg.Loop.Games)
		l.prog.Update("generation %d: waiting for self-play workers (millzero selfplay --run %s --follow): %d/%d games",
			g, l.loc, have, l.cfg.Loop.Games)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// selfplayJob is the job of n games of generation g played by model
// generation best (0: rollouts).
func (l *Loop) selfplayJob(g, best, n int, seed uint64) (selfplay.Job, error) {
	set := l.cfg.SelfPlayAt(g)
	job := selfplay.Job{Variant: l.v, Settings: set, Games: n, Generation: g, Model: best, ShardDir: l.dir.ShardDir(g), Seed: seed,
		Prover: l.tables}
	if best > 0 {
		net, err := l.network(best)
		if err != nil {
			return job, err
		}
		job.NewEvaluator = model.WorkerEvaluators(l.v, net, set.MaxBatch(), set.Orientations, seed)
	}
	return job, nil
}

// train fits the candidate of generation g+1 on the newest games, from the
// newest checkpoint (weights and optimizer state), and saves it. Losses go
// to metrics/losses.csv before the checkpoint, replacing any rows of a
// run killed before its checkpoint, so they are never counted twice.
func (l *Loop) train(ctx context.Context, g int) (float64, float64, error) {
	path := l.dir.Model(g + 1)
	if _, err := os.Stat(path); err == nil {
		return l.lastLosses(g)
	}
	var net *model.Network
	var from *model.Checkpoint
	for k := g; k >= 1; k-- {
		if _, err := os.Stat(l.dir.Model(k)); err == nil {
			ck, err := model.LoadCheckpointFor(l.dir.Model(k), l.v)
			if err != nil {
				return 0, 0, err
			}
			from, net = ck, ck.Net.Clone()
			break
		}
	}
	trunk := l.cfg.TrunkAt(g)
	if net == nil {
		var err error
		a := model.NewArch(l.v, trunk)
		a.Aux = l.cfg.Train.Aux()
		net, err = model.New(l.v.Name, a, rand.New(rand.NewPCG(l.cfg.Loop.Seed, 0x6e6574)))
		if err != nil {
			return 0, 0, err
		}
		if net.Arch.Symmetric {
			if err := model.Tie(l.v, net); err != nil {
				return 0, 0, err
			}
		}
	} else if a := from.Net.Arch; trunk.Width > a.Width || trunk.Blocks > a.Blocks {
		// loop.grow: a network only grows.
		to := model.Config{Width: max(trunk.Width, a.Width), Blocks: max(trunk.Blocks, a.Blocks)}
		grown, err := train.GrowCheckpoint(from, to, seedpkg.Derive(l.cfg.Loop.Seed, "grow", uint64(g)))
		if err != nil {
			return 0, 0, fmt.Errorf("generation %d: %w", g, err)
		}
		from, net = grown, grown.Net.Clone()
		l.prog.Done("generation %d: the network grows from %v to %v (loop.grow), the same function", g, a, net.Arch)
	}
	if want := trunk.Orientation == model.OrientCanonical; from != nil && net.Arch.Canonical != want {
		// model.orientation changed in a run under way: the same weights,
		// from this candidate on seeing each board in its canonical turn
		// (or in any turn again).
		ck := *from
		ck.Net = from.Net.Reoriented(want)
		from, net = &ck, ck.Net.Clone()
		l.prog.Done("generation %d: the network sees %s from now on (model.orientation %s)", g,
			map[bool]string{true: "every board in its canonical turn", false: "the boards turned any way"}[want], trunk.Orientation)
	}
	if want := l.cfg.Train.Aux(); from != nil && net.Arch.Aux != want {
		// train.*_weight changed in a run under way: the heads follow,
		// every other weight and the optimizer's state kept.
		ck, err := train.WithAux(from, want, seedpkg.Derive(l.cfg.Loop.Seed, "heads", uint64(g)))
		if err != nil {
			return 0, 0, fmt.Errorf("generation %d: %w", g, err)
		}
		from, net = ck, ck.Net.Clone()
		l.prog.Done("generation %d: the network's auxiliary heads are %v from now on (train.*_weight)", g, want)
	}
	tr, err := train.New(l.v, net, l.cfg.Train)
	if err != nil {
		return 0, 0, err
	}
	defer tr.Close()
	if from != nil {
		if err := tr.Restore(from); err != nil {
			return 0, 0, err
		}
	}
	lc := l.cfg.Loop
	window := lc.WindowAt(g)
	for k := max(0, g-window+1); k < g; k++ {
		// The window's shards, with those the workers added late; older
		// generations are not read.
		if _, err := l.wd.PullAll(ctx, store.ShardsPrefix(k)); err != nil {
			return 0, 0, err
		}
	}
	if l.kept == nil {
		l.kept = dataset.NewShardCache()
	}
	src, vsrc, err := train.OpenSplits(l.dir.Games(), dataset.WindowOptions{Generations: window,
		Samples: lc.WindowSamples, Shuffle: lc.Shuffle, Seed: seedpkg.Derive(lc.Seed, "shuffle", uint64(g)), FullOnly: true, Logger: l.log, Variant: l.v,
		Cache: l.kept}, lc.ValFraction)
	if err != nil {
		return 0, 0, err
	}
	defer src.Close()
	defer vsrc.Close()
	var rows [][]any
	trainLoss := math.NaN()
	every, first := max(1, lc.Steps/10), tr.Steps()
	_, err = tr.Fit(ctx, src, lc.Steps, every, func(step int64, s train.Stats) {
		rows = append(rows, []any{g, step, "train", s.LR, s.Total, s.Policy, s.Outcome, s.L2, leaseTag(l.lease)})
		trainLoss = s.Total
		l.telLosses(s.Policy, s.Outcome, s.Total)
		l.phase(int(step-first), lc.Steps)
		l.prog.Update("generation %d training: step %d, %s", g, step, s)
	})
	if err != nil {
		return 0, 0, err
	}
	valLoss := math.NaN()
	if lc.ValBatches > 0 && lc.ValFraction > 0 {
		if s, err := tr.Validate(vsrc, lc.ValBatches); err == nil {
			valLoss = s.Total
			rows = append(rows, []any{g, tr.Steps(), "val", 0.0, s.Total, s.Policy, s.Outcome, s.L2, leaseTag(l.lease)})
		} else {
			l.prog.Done("generation %d: no validation loss: %v", g, err)
		}
	}
	if err := os.MkdirAll(l.dir.Models(), 0o777); err != nil {
		return 0, 0, err
	}
	tmp := atomicfile.TempName(path) // written outside the commit: the commit only publishes it
	defer os.Remove(tmp)
	if err := tr.Checkpoint(g + 1).Save(tmp); err != nil {
		return 0, 0, err
	}
	err = l.commit(ctx, func(ctx context.Context) error {
		if err := l.replaceLossRows(g, rows); err != nil {
			return err
		}
		if err := atomicfile.Publish(tmp, path, true); err != nil {
			return fmt.Errorf("publish the candidate %s: %w", path, err)
		}
		for _, name := range []string{store.LossesTable, store.CheckpointObject(g + 1)} {
			if err := l.wd.Push(ctx, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	l.prog.Done("generation %d training: %d steps in all, loss %.4f, validation %.4f -> %s", g, tr.Steps(), trainLoss, valLoss, filepath.Base(path))
	return trainLoss, valLoss, nil
}

// replaceLossRows puts rows in place of generation g's loss rows.
func (l *Loop) replaceLossRows(g int, rows [][]any) error {
	if len(rows) == 0 {
		rows = [][]any{{g, 0, "none", 0.0, math.NaN(), math.NaN(), math.NaN(), math.NaN(), leaseTag(l.lease)}}
	}
	return l.loss.replace(fmt.Sprint(g), rows...)
}

// lastLosses are generation g's last recorded training and validation
// losses (NaN where none is).
func (l *Loop) lastLosses(g int) (float64, float64, error) {
	t, err := l.loss.load()
	if err != nil {
		return 0, 0, err
	}
	gen := fmt.Sprint(g)
	total := t.column("total")
	last := map[string]float64{"train": math.NaN(), "val": math.NaN()}
	for i, r := range t.rows {
		if r[0] == gen {
			last[r[2]] = total[i]
		}
	}
	return last["train"], last["val"], nil
}

// endgameSummary says how many games began from a random endgame or
// opened with random plies, when any did.
func endgameSummary(st selfplay.Stats) string {
	s := ""
	if st.EndgameStarts > 0 {
		s += fmt.Sprintf(", %d started from a random endgame", st.EndgameStarts)
	}
	if st.OpeningStarts > 0 {
		s += fmt.Sprintf(", %d opened with random plies", st.OpeningStarts)
	}
	return s
}
