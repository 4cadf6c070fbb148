package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/millzero/millzero/store"
)

// awaitPoll is how often a process waiting for a run looks again.
const awaitPoll = 2 * time.Second

// awaiter says, after store.WaitFirst and then every store.WaitEvery
// (as the store does when it retries), what a process waits for.
type awaiter struct {
	start, next time.Time
	say         func(msg string)
}

func newAwaiter(log *slog.Logger) *awaiter {
	now := time.Now()
	return &awaiter{start: now, next: now.Add(store.WaitFirst), say: func(msg string) { log.Warn(msg) }}
}

// sleep reports what (a phrase) when it is time, then waits awaitPoll or
// until ctx ends.
func (a *awaiter) sleep(ctx context.Context, what string) error {
	if time.Now().After(a.next) {
		a.say(fmt.Sprintf("waiting %v so far for %s", time.Since(a.start).Round(time.Second), what))
		a.next = time.Now().Add(store.WaitEvery)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(awaitPoll):
		return nil
	}
}

// awaitRunDir checks that the local run directory dir exists, without
// making it: a process that only reads a run or adds games to it never
// makes a directory (a mistyped path would be made and waited on). With
// wait it waits for the directory to appear (the trainer makes it); else
// a missing directory is an error.
func awaitRunDir(ctx context.Context, dir string, wait bool, log *slog.Logger) error {
	a := newAwaiter(log)
	for {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil:
			return fmt.Errorf("run %s: not a directory", dir)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("run %s: %w", dir, err)
		case !wait:
			return fmt.Errorf("run %s: no such directory (a mistyped path?): start the run with millzero train first", dir)
		}
		if err := a.sleep(ctx, fmt.Sprintf("run %s to be made (millzero train --run %s)", dir, dir)); err != nil {
			return err
		}
	}
}

// openStoreWaiting opens the store at loc with the patience opts gives
// (Options.StorePatience, its waits told to opts.Log); with wait a store
// that cannot be reached or does not answer is waited for, saying so,
// while an error no wait mends (bad credentials, an unknown scheme) is
// returned at once.
func openStoreWaiting(ctx context.Context, loc string, wait bool, opts Options) (*store.Store, error) {
	a := newAwaiter(opts.Log)
	patience := store.WithPatience(opts.StorePatience, func(msg string) { opts.Log.Warn(msg) })
	for {
		st, err := store.Open(ctx, loc, patience)
		if err == nil || !wait || !(store.IsTransient(err) || store.IsUnreachable(err)) || store.IsCredentialError(err) {
			return st, err
		}
		if err := a.sleep(ctx, fmt.Sprintf("run store %s to answer (%v)", loc, err)); err != nil {
			return nil, err
		}
	}
}

// awaitRun waits until the store holds a run (its run.yaml): a worker
// started before its trainer.
func awaitRun(ctx context.Context, st *store.Store, loc string, log *slog.Logger) error {
	a := newAwaiter(log)
	for {
		ok, err := st.CheckRun(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if err := a.sleep(ctx, fmt.Sprintf("run %s to start (no run.yaml yet: millzero train --run %s)", loc, loc)); err != nil {
			return err
		}
	}
}
