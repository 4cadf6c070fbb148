package run

import (
	"context"
	"fmt"
)

// commit writes the run's shared state with write under the trainer's
// lease (store.Lease.Commit): the lease is confirmed first, so a trainer
// whose lease was taken writes nothing and stops with an error matching
// store.ErrLeaseTaken. Every write of an object other trainers' work
// depends on (the tables, the best pointer, the ratings, the checkpoints,
// run.yaml) and its upload goes through it. A commit started after ctx
// ended (what an interrupted generation still records) is made within
// afterStopTimeout.
func (l *Loop) commit(ctx context.Context, write func(ctx context.Context) error) error {
	if l.lease == nil {
		return fmt.Errorf("run %s: opened to add games or read, not to write the run's state", l.loc)
	}
	actx, cancel := afterStop(ctx)
	defer cancel()
	return l.lease.Commit(actx, write)
}
