// Package run is a training run at work: the generation loop of
// self-play, training and the arena (a Trainer, the one process that
// writes the run's state), the self-play workers beside it (a Worker,
// which adds games), and what a run's state is (a Reader, which never
// writes, leases or opens tables); resume, the gate, the metrics and
// their plots. A run's storage is package store's, its config package
// runconfig's and its metrics tables package runmetrics'; commands wire
// the roles to flags and terminals.
package run

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// Options are what a command gives every role of a run.
type Options struct {
	Progress progress.Reporter // shows the run's state; nil shows nothing
	Log      *slog.Logger      // warnings, such as a skipped shard; nil: slog.Default()
	Cache    string            // the local cache of a run in an object store; "" is store.DefaultCache

	// StorePatience is how long a store operation is retried while the
	// store does not answer (store.WithPatience), saying every 30 s
	// what it waits for: 0 keeps the store's few retries over about 12 s,
	// a negative value retries until the process is stopped.
	StorePatience time.Duration
}

// withDefaults fills what o leaves to the defaults.
func (o Options) withDefaults() Options {
	if o.Progress == nil {
		o.Progress = quiet{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return o
}

// quiet is the progress.Reporter that shows nothing.
type quiet struct{}

func (quiet) Update(string, ...any) {}
func (quiet) Done(string, ...any)   {}

// core is what every role knows of a run: where it lives, its config and
// variant, its metrics tables, and whom it tells.
type core struct {
	wd   *store.WorkDir // the store and the local directory
	loc  string         // the run's path or URL, for messages
	dir  store.Dir      // the local directory: the run's own, or its cache
	cfg  runconfig.Config
	v    *engine.Variant
	prog progress.Reporter
	log  *slog.Logger
	tel  Telemetry // the figures' receiver for monitoring; nil: none

	gens   *runmetrics.Table[runmetrics.GenRow]      // one row per finished generation: the commit point of a generation
	loss   *runmetrics.Table[runmetrics.LossRow]     // training and validation losses
	elo    *runmetrics.Table[runmetrics.EloRow]      // the best model's rating after each generation
	str    *runmetrics.Table[runmetrics.StrengthRow] // the strength benchmark of the best, now and then (strength.every_hours)
	phases *runmetrics.Table[runmetrics.PhaseRow]    // the seconds (and self-play's figures) of each phase run, by every process: summed per generation
}

// newCore is the core of the run in wd (opened from loc) of config cfg.
func newCore(wd *store.WorkDir, loc string, cfg runconfig.Config, opts Options) (core, error) {
	v, err := cfg.LoadVariant()
	if err != nil {
		return core{}, err
	}
	if err := runconfig.CheckBeforeGames(&cfg, v); err != nil {
		return core{}, fmt.Errorf("run %s: %w", loc, err)
	}
	d := wd.Dir()
	return core{wd: wd, loc: loc, dir: d, cfg: cfg, v: v, prog: opts.Progress, log: opts.Log,
		gens: runmetrics.Generations(d), loss: runmetrics.Losses(d), elo: runmetrics.Elo(d), str: runmetrics.Strength(d),
		phases: runmetrics.Phases(d)}, nil
}

// Config is the run's config; a command may change the budget
// (loop.generations, loop.hours, loop.run_hours) and self-play's workers
// before the work starts.
func (c *core) Config() *runconfig.Config { return &c.cfg }

// Variant is the run's variant.
func (c *core) Variant() *engine.Variant { return c.v }

// closeStore releases the run's store.
func (c *core) closeStore() error { return c.wd.Store().Close() }

// pullTables brings the metrics tables and the best pointer from the
// store into a reader's or a worker's cache (the trainer merges its
// tables with the store's instead: reconcileMetrics).
func (c *core) pullTables(ctx context.Context) error {
	if c.wd.Local() {
		return nil
	}
	for _, name := range []string{store.BestObject, store.RatingsObject, store.GenerationsTable, store.LossesTable,
		store.EloTable, store.PhasesTable, store.StrengthTable} {
		if err := c.wd.Pull(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// player is what plays a run's games: the trainer's own self-play, and a
// worker's.
type player struct {
	core
	tables mcts.Prover            // the endgame tables of cfg.Tablebase; nil without
	nets   map[int]*model.Network // the networks of the best and the candidate, loaded once; others are dropped
	shards shardChecks            // the verdict on each shard counted
}

// newPlayer is a player of the run of c, with the tables of its
// tablebase key when withTables, built in the user cache when they are
// auto's and missing.
func newPlayer(c core, withTables bool) (player, error) {
	p := player{core: c, nets: map[int]*model.Network{}, shards: shardChecks{}}
	if withTables && c.cfg.Tablebase != "" {
		set, err := runconfig.OpenTables(c.v, c.cfg.Tablebase, true, c.prog)
		if err != nil {
			return p, fmt.Errorf("run %s: tablebase %s: %w", c.loc, c.cfg.Tablebase, err)
		}
		p.tables = runconfig.Prover(set)
	}
	return p, nil
}
