package run

import (
	"context"
	"fmt"
	"os"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/store"
)

// Records is a run's arena records for the arena command: a local
// directory the matches write to (the run's own, or its cache's) and the
// store they go up to. Each match's records are one write-once object
// under a unique name, so any process may add them.
type Records struct {
	wd *store.WorkDir
}

// OpenRecords opens the arena records of the run at loc (a path or URL;
// cache as in Options.Cache): a run, or a location that holds only arena
// records (or nothing yet). A location holding something else is an
// error, before any game is played.
func OpenRecords(ctx context.Context, loc, cache string) (*Records, error) {
	st, err := store.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	if _, err := st.CheckRun(ctx); err != nil && !store.OnlyLease(ctx, st, store.ArenaPrefix) {
		st.Close()
		return nil, err
	}
	wd, err := store.NewWorkDir(st, loc, cache, "follow")
	if err != nil {
		st.Close()
		return nil, err
	}
	return &Records{wd: wd}, nil
}

// Dir is the local directory of the records.
func (r *Records) Dir() string { return r.wd.Dir().Arena() }

// Pull brings every record of the run into Dir.
func (r *Records) Pull(ctx context.Context) error {
	_, err := r.wd.PullAll(ctx, store.ArenaPrefix)
	return err
}

// Push puts the records written in Dir that the store lacks.
func (r *Records) Push(ctx context.Context) error { return r.wd.PushAll(ctx, store.ArenaPrefix) }

// Close releases the store.
func (r *Records) Close() error { return r.wd.Store().Close() }

// CheckVariant refuses, before any game, to add games of v to the records
// of a run of another variant; a location holding only arena records
// takes any variant.
func (r *Records) CheckVariant(ctx context.Context, v *engine.Variant) error {
	if err := r.wd.Pull(ctx, store.ConfigObject); err != nil {
		return err
	}
	path := r.wd.Dir().Config()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	rv, err := runconfig.VariantOf(r.wd.Dir())
	if err != nil {
		return fmt.Errorf("run %s: %w", r.wd.Store(), err)
	}
	if rv.Name != v.Name {
		return fmt.Errorf("run %s is a run of %s: its arena takes no games of %s", r.wd.Store(), rv.Name, v.Name)
	}
	return nil
}
