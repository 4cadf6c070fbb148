package run

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// TrainerOptions are what a command gives the trainer beyond Options.
type TrainerOptions struct {
	Options

	// NoLocalSelfplay makes the trainer play no games itself: it waits
	// for self-play workers' shards (millzero selfplay --follow).
	NoLocalSelfplay bool

	// BreakLease makes the trainer take the run's lease even from a live
	// holder (store.BreakLease), saying whose lease it broke.
	BreakLease bool

	// Lease are the timings of the trainer's lease; the zero value is the
	// store's defaults. The trainer whose lease lapsed while the store was
	// away takes it back when the store answers again within the
	// patience (and no other trainer took it meanwhile).
	Lease store.LeaseOptions
}

// WorkerOptions are what a command gives a self-play worker beyond
// Options.
type WorkerOptions struct {
	Options

	// WaitForRun makes the worker wait for a run that does not exist yet
	// (its directory, its run.yaml) and for a store that cannot be reached
	// at open, saying every 30 s what it waits for, instead of failing.
	// Without it a missing run is an error; either way nothing is created.
	WaitForRun bool
}

// OpenTrainer opens (or creates) the run at loc for its one trainer: a
// local path ("" is runs/VARIANT) or an object-store URL (see
// store.Open), which the trainer mirrors in a local cache
// (Options.Cache). It takes the run's lease first, so a second trainer
// stops here naming the first. A new run stores the resolved config
// (cfgPath over the default) as run.yaml; an existing run uses its
// run.yaml, with cfgPath laid over it: the settings that may change
// between generations change (and are printed), the others are refused
// with the reason (runconfig.Reconfigure).
func OpenTrainer(ctx context.Context, loc, cfgPath string, opts TrainerOptions) (*Trainer, error) {
	opts.Options = opts.Options.withDefaults()
	req := configRequest{path: cfgPath}
	req.cfg, req.text, req.err = runconfig.LoadConfig(cfgPath)
	if req.err != nil && (loc == "" || !store.IsURL(loc) && !isFile(store.Dir(loc).Config())) {
		return nil, req.err // no run to lay cfgPath over: nothing is made
	}
	if loc == "" {
		loc = filepath.Join("runs", req.cfg.VariantSpec.Name) // the name, also of a variant file
	}
	st, err := openStoreWaiting(ctx, loc, false, opts.Options)
	if err != nil {
		return nil, err
	}
	t, err := openTrainerOn(ctx, st, loc, req, opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return t, nil
}

// configRequest is the config a trainer is asked to run: the file at
// path ("" none) over the default, as cfg and text, or err.
type configRequest struct {
	path string
	cfg  runconfig.Config
	text []byte
	err  error
}

// openTrainerOn opens the run in store st, opened from loc, for the
// trainer: under the lease, which it releases on failure.
func openTrainerOn(ctx context.Context, st *store.Store, loc string, req configRequest, opts TrainerOptions) (*Trainer, error) {
	opts.Options = opts.Options.withDefaults()
	wd, err := store.NewWorkDir(st, loc, opts.Cache, "train")
	if err != nil {
		return nil, err
	}
	exists, err := st.CheckRun(ctx)
	if err != nil {
		return nil, err
	}
	if err := st.CheckWriteOnce(ctx); err != nil {
		return nil, err
	}
	lease, err := takeLease(ctx, st, loc, opts)
	if err != nil {
		return nil, err
	}
	t, err := newTrainer(ctx, wd, lease, loc, req, exists, opts)
	if err != nil {
		lease.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	return t, nil
}

// takeLease takes the run's lease for the trainer (breaking a live
// holder's with opts.BreakLease, and saying whose).
func takeLease(ctx context.Context, st *store.Store, loc string, opts TrainerOptions) (*store.Lease, error) {
	if !opts.BreakLease {
		return store.AcquireLease(ctx, st, "train", opts.Lease)
	}
	lease, broken, err := store.BreakLease(ctx, st, "train", opts.Lease)
	if err != nil {
		return nil, err
	}
	if broken != nil {
		opts.Progress.Done("run %s: broke the lease of %q (pid %d on host %s, renewed %s ago): if that trainer is alive, it commits nothing more and stops within %v",
			loc, broken.Holder, broken.PID, broken.Host, time.Since(broken.Renewed).Round(time.Second), lease.Options().Watch)
	}
	return lease, nil
}

// newTrainer opens the run in wd (one exists in the store when exists)
// for the trainer holding lease.
func newTrainer(ctx context.Context, wd *store.WorkDir, lease *store.Lease, loc string, req configRequest, exists bool, opts TrainerOptions) (*Trainer, error) {
	cfg, changes, err := trainerConfig(ctx, wd, lease, loc, req, exists)
	if err != nil {
		return nil, err
	}
	c, err := newCore(wd, loc, cfg, opts.Options)
	if err != nil {
		return nil, err
	}
	p, err := newPlayer(c, true) // the trainer measures with the tables
	if err != nil {
		return nil, err
	}
	t := &Trainer{player: p, start: time.Now(), noLocal: opts.NoLocalSelfplay, lease: lease, patience: opts.StorePatience}
	if len(changes) > 0 {
		t.prog.Done("run %s: its config changes (run.yaml):\n  %s", loc, strings.Join(changes, "\n  "))
	}
	if err := t.pullState(ctx); err != nil {
		return nil, fmt.Errorf("run %s: %w", loc, err)
	}
	if err := t.commit(ctx, func(context.Context) error { return t.migrateTables() }); err != nil {
		return nil, err
	}
	if err := t.reconcileMetrics(ctx); err != nil {
		return nil, fmt.Errorf("run %s: %w", loc, err)
	}
	gens, err := t.gens.Rows()
	if err != nil {
		return nil, err
	}
	if n := len(gens); n > 0 {
		t.base = gens[n-1].Hours
	}
	return t, nil
}

// trainerConfig is the config the trainer runs and what changed in it: a
// new run's config, stored as its run.yaml (when it is valid: else
// newCore reports why, before the run is made); or an existing run's
// run.yaml, with req's file laid over it when one is given.
func trainerConfig(ctx context.Context, wd *store.WorkDir, lease *store.Lease, loc string, req configRequest, exists bool) (runconfig.Config, []string, error) {
	if !exists {
		if req.err != nil {
			return req.cfg, nil, req.err
		}
		cfg := req.cfg
		if v, err := cfg.LoadVariant(); err != nil || runconfig.CheckBeforeGames(&cfg, v) != nil {
			return cfg, nil, nil
		}
		err := lease.Commit(ctx, func(ctx context.Context) error {
			if err := atomicfile.WriteFile(wd.Dir().Config(), req.text); err != nil {
				return err
			}
			return wd.Push(ctx, store.ConfigObject)
		})
		if err != nil {
			return cfg, nil, fmt.Errorf("run %s: %w", loc, err)
		}
		return cfg, nil, nil
	}
	cfg, text, err := readRunConfig(ctx, wd, loc)
	if err != nil || req.path == "" || bytes.Equal(text, req.text) {
		return cfg, nil, err
	}
	cfg, changes, err := reconfigureRun(ctx, wd, lease, text, req.path)
	if err != nil {
		return cfg, nil, fmt.Errorf("run %s: %w", loc, err)
	}
	return cfg, changes, nil
}

// readRunConfig reads the run's run.yaml from the store.
func readRunConfig(ctx context.Context, wd *store.WorkDir, loc string) (runconfig.Config, []byte, error) {
	if err := wd.Pull(ctx, store.ConfigObject); err != nil {
		return runconfig.Config{}, nil, fmt.Errorf("run %s: %w", loc, err)
	}
	cfg, text, err := runconfig.LoadRunConfig(wd.Dir().Config())
	if err != nil {
		return cfg, nil, fmt.Errorf("run %s: %w", loc, err)
	}
	return cfg, text, nil
}

// OpenWorker opens the existing run at loc for a self-play worker
// (millzero selfplay): it reads the run's config and adds games to it,
// with the endgame tables when self-play uses them. It creates nothing of
// the run, not even its directory (a mistyped path stays unmade).
func OpenWorker(ctx context.Context, loc string, opts WorkerOptions) (*Worker, error) {
	opts.Options = opts.Options.withDefaults()
	st, err := openExistingStore(ctx, loc, opts.Options, opts.WaitForRun)
	if err != nil {
		return nil, err
	}
	w, err := openWorkerOn(ctx, st, loc, opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return w, nil
}

// openWorkerOn opens the run in store st, opened from loc, for a worker.
func openWorkerOn(ctx context.Context, st *store.Store, loc string, opts WorkerOptions) (*Worker, error) {
	opts.Options = opts.Options.withDefaults()
	wd, cfg, err := readExisting(ctx, st, loc, opts.Options, opts.WaitForRun)
	if err != nil {
		return nil, err
	}
	c, err := newCore(wd, loc, cfg, opts.Options)
	if err != nil {
		return nil, err
	}
	p, err := newPlayer(c, cfg.SelfPlay.Tables != selfplay.TablesOff)
	if err != nil {
		return nil, err
	}
	if err := c.pullTables(ctx); err != nil {
		return nil, fmt.Errorf("run %s: %w", loc, err)
	}
	return &Worker{player: p}, nil
}

// OpenReader opens the existing run at loc to read its state (millzero
// status): it never writes the run, takes no lease and opens no tables;
// a run in an object store is read into the reader's own cache.
func OpenReader(ctx context.Context, loc string, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	st, err := openExistingStore(ctx, loc, opts, false)
	if err != nil {
		return nil, err
	}
	r, err := openReaderOn(ctx, st, loc, opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	return r, nil
}

// openReaderOn opens the run in store st, opened from loc, for a reader.
func openReaderOn(ctx context.Context, st *store.Store, loc string, opts Options) (*Reader, error) {
	opts = opts.withDefaults()
	wd, cfg, err := readExisting(ctx, st, loc, opts, false)
	if err != nil {
		return nil, err
	}
	c, err := newCore(wd, loc, cfg, opts)
	if err != nil {
		return nil, err
	}
	return &Reader{core: c}, nil
}

// openExistingStore opens the store of the existing run at loc, waiting
// for it (and a local run's directory) when wait: never making anything
// of the run.
func openExistingStore(ctx context.Context, loc string, opts Options, wait bool) (*store.Store, error) {
	if !store.IsURL(loc) {
		if err := awaitRunDir(ctx, loc, wait, opts.Log); err != nil {
			return nil, err
		}
	}
	return openStoreWaiting(ctx, loc, wait, opts)
}

// readExisting reads the config of the run in st, which must hold one (or
// come to, when wait).
func readExisting(ctx context.Context, st *store.Store, loc string, opts Options, wait bool) (*store.WorkDir, runconfig.Config, error) {
	wd, err := store.NewWorkDir(st, loc, opts.Cache, "follow")
	if err != nil {
		return nil, runconfig.Config{}, err
	}
	exists, err := st.CheckRun(ctx)
	if err != nil {
		return nil, runconfig.Config{}, err
	}
	if !exists && wait {
		if err := awaitRun(ctx, st, loc, opts.Log); err != nil {
			return nil, runconfig.Config{}, err
		}
		exists = true
	}
	if !exists {
		return nil, runconfig.Config{}, fmt.Errorf("run %s: no run.yaml: start the run with millzero train first", loc)
	}
	cfg, _, err := readRunConfig(ctx, wd, loc)
	return wd, cfg, err
}
