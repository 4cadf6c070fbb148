package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/internal/proc"
	"github.com/millzero/millzero/store"
)

func TestStoreShardGames_FromTheFooter_LocalAndObjectStore(t *testing.T) {
	ctx := context.Background()
	games := t.TempDir()
	path := writeTestShard(t, games, "three", 2)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := store.ShardsPrefix(2) + filepath.Base(path)
	local, err := store.Open(ctx, filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	for label, st := range map[string]*store.Store{"object store": sharedStore(t), "directory": local} {
		if err := st.Put(ctx, name, strings.NewReader(string(data))); err != nil {
			t.Fatal(err)
		}
		objs, err := st.List(ctx, store.GamesPrefix)
		if err != nil || len(objs) != 1 {
			t.Fatalf("%s: List = %v, %v", label, objs, err)
		}
		if k, err := readShardCount(ctx, st, objs[0]); err != nil || k.Games != 40 {
			t.Errorf("%s: readShardCount = %d games, %v; want the footer's 40", label, k.Games, err)
		}
		bad := store.ShardsPrefix(2) + "cut.parquet"
		if err := st.Put(ctx, bad, strings.NewReader(string(data[:len(data)/2]))); err != nil {
			t.Fatal(err)
		}
		if _, err := readShardCount(ctx, st, store.ObjectInfo{Name: bad, Size: int64(len(data) / 2)}); err == nil {
			t.Errorf("%s: a truncated shard was counted", label)
		}
	}
}

// Status counts a finished generation's games from its shards, also those
// a worker added after the generation was recorded.
func TestStatus_GameCountsAreTheShardsAlsoForFinishedGenerations(t *testing.T) {
	if testing.Short() {
		t.Skip("a quick generation")
	}
	dir := t.TempDir()
	l := quickLoop(t, dir, nil)
	l.Config().Loop.WindowGenerations = 1
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	late := writeTestShard(t, filepath.Join(dir, "games"), "three", 0) // 40 games, after the generation
	defer os.Remove(late)
	st := statusOf(t, l.wd.Store(), l.loc)
	recorded := int(mustLoad(t, l.gens).column("games")[0])
	if len(st.PerGen) == 0 || st.PerGen[0].Games != recorded+40 {
		t.Fatalf("status of generation 0: %+v; want the %d recorded games and the late shard's 40", st.PerGen, recorded)
	}
}

func TestLeaseState_SaysHowAliveTheHolderIs(t *testing.T) {
	now := time.Now()
	host, _ := os.Hostname()
	lease := func(renewedAgo time.Duration, pid int, ns string) store.LeaseInfo {
		r := now.Add(-renewedAgo)
		return store.LeaseInfo{Holder: "train", Host: host, Boot: proc.BootID(), PIDNS: ns, PID: pid, Renewed: r, Expires: r.Add(time.Minute)}
	}
	for _, c := range []struct {
		name string
		info store.LeaseInfo
		want string
	}{
		{"renewed lately", lease(5*time.Second, os.Getpid(), proc.PIDNamespace()), "live"},
		{"two renewals missed", lease(45*time.Second, 1<<30, "pid:[1]"), "possibly dead"},
		{"past its expiry", lease(2*time.Minute, 1<<30, "pid:[1]"), "expired"},
	} {
		if got, why := leaseState(c.info, now); got != c.want || why == "" {
			t.Errorf("%s: leaseState = %q (%s); want %q", c.name, got, why, c.want)
		}
	}
	if proc.BootID() != "" && proc.PIDNamespace() != "" {
		if got, _ := leaseState(lease(time.Second, 1<<30, proc.PIDNamespace()), now); got != "dead" {
			t.Errorf("a holder whose process is gone from this host: %q; want dead", got)
		}
	}
}

func TestOpen_AReaderNeverMakesTheRunDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "mistyped")
	_, err := OpenReader(context.Background(), missing, Options{})
	if err == nil || !strings.Contains(err.Error(), "no such directory") {
		t.Fatalf("Open of a missing run to read = %v; want an error saying so", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("the reader made %s (%v)", missing, err)
	}
}

// A worker started before its run waits for the trainer to make it, and
// makes nothing itself.
func TestOpen_AWorkerWaitsForTheRunToStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type opened struct {
		l   *Worker
		err error
	}
	done := make(chan opened, 1)
	go func() {
		l, err := OpenWorker(ctx, dir, WorkerOptions{Options: Options{Cache: t.TempDir()}, WaitForRun: true})
		done <- opened{l, err}
	}()
	time.Sleep(3 * awaitPoll / 2)
	select {
	case o := <-done:
		t.Fatalf("the worker did not wait: %v", o.err)
	default:
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the waiting worker made %s (%v)", dir, err)
	}
	trainer, err := OpenTrainer(context.Background(), dir, "three-test", TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer trainer.Close()
	o := <-done
	if o.err != nil {
		t.Fatalf("the worker, once the run exists: %v", o.err)
	}
	o.l.Close()
}
