package run

import (
	"context"
	"os"
	"path/filepath"

	"github.com/millzero/millzero/internal/atomicfile"
)

// commit writes the run's shared state with write under the trainer's
// lease (store.Lease.Commit): the lease is confirmed first, so a trainer
// whose lease was taken writes nothing and stops with an error matching
// store.ErrLeaseTaken. Every write of an object other trainers' work
// depends on (the tables, the best pointer, the ratings, the checkpoints,
// run.yaml) and its upload goes through it. A commit started after ctx
// ended (what an interrupted generation still records) is made within
// afterStopTimeout.
func (t *Trainer) commit(ctx context.Context, write func(ctx context.Context) error) error {
	actx, cancel := afterStop(ctx)
	defer cancel()
	return t.lease.Commit(actx, write)
}

// writeAndPush writes data as the object name in the trainer's local
// directory (making its directory) and puts it in the store; within a
// commit.
func (t *Trainer) writeAndPush(ctx context.Context, name string, data []byte) error {
	path := t.wd.Path(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data); err != nil {
		return err
	}
	return t.wd.Push(ctx, name)
}

// migrateTables rewrites the metrics tables of an older version with
// today's headers, their columns mapped by name; within a commit.
func (t *Trainer) migrateTables() error {
	for _, m := range []interface{ Migrate() (bool, error) }{t.gens, t.loss, t.elo, t.str, t.phases} {
		if _, err := m.Migrate(); err != nil {
			return err
		}
	}
	return nil
}
