package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/gcerrors"

	"github.com/millzero/millzero/internal/proc"
)

// ttl is LeaseOptions with time to live d and the other timings derived.
func ttl(d time.Duration) LeaseOptions { return LeaseOptions{TTL: d} }

// putLease writes info as the lease's next record, as another trainer
// would, and returns it as written.
func putLease(t *testing.T, s *Store, info LeaseInfo) LeaseInfo {
	t.Helper()
	ctx := context.Background()
	cur, found, err := newestLease(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	info.Seq = time.Now().UnixMilli()
	if found {
		info.Seq = cur.Seq + 1
	}
	if info.Kind == "" {
		info.Kind = leaseTake
	}
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, LeaseRecord(info.Seq), strings.NewReader(string(data))); err != nil {
		t.Fatal(err)
	}
	return info
}

// waitCancelled waits (bounded) until ctx is cancelled.
func waitCancelled(t *testing.T, ctx context.Context, within time.Duration) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(within):
		t.Fatalf("the lease's context was not cancelled within %v", within)
	}
}

func TestLease_SecondTrainer_GetsAnErrorNamingHolderHostAndExpiry(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			first, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			defer first.Release(ctx)
			_, err = AcquireLease(ctx, s, "train-2", ttl(time.Minute))
			var held *LeaseHeldError
			if !errors.Is(err, ErrLeaseHeld) || !errors.As(err, &held) {
				t.Fatalf("second AcquireLease = %v; want ErrLeaseHeld", err)
			}
			info := first.Info()
			for _, want := range []string{s.String(), `"train"`, proc.Host(), info.Expires.UTC().Format(time.RFC3339)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("error %q names a command's flag", err)
			}
			if held.Info.Token != info.Token {
				t.Errorf("error names lease %s; want %s", held.Info.Token, info.Token)
			}
		})
	}
}

func TestLease_TwoLocalProcesses_OneDirectory_Exclude(t *testing.T) {
	// Two stores on one directory are what two trainers on one host see.
	ctx := context.Background()
	dir := t.TempDir()
	a, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	la, err := AcquireLease(ctx, a, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLease(ctx, b, "train", ttl(time.Minute)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease on the same directory = %v; want ErrLeaseHeld", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LeaseRecord(la.Info().Seq))); err != nil {
		t.Fatalf("no lease record in the run directory: %v", err)
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lb, err := AcquireLease(ctx, b, "train", ttl(time.Minute))
	if err != nil {
		t.Fatalf("AcquireLease after Release = %v", err)
	}
	lb.Release(ctx)
}

func TestLease_Release_LetsTheNextTrainerInAndCancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("second Release = %v", err)
	}
	waitCancelled(t, l.Context(), time.Second)
	if _, err := ReadLease(ctx, s); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadLease after Release = %v; want nobody holding the run", err)
	}
	if err := l.Commit(ctx, func(context.Context) error { t.Fatal("a released lease committed"); return nil }); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Commit after Release = %v; want ErrLeaseLost", err)
	}
	l2, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatalf("AcquireLease after Release = %v", err)
	}
	l2.Release(ctx)
}

func TestLease_SimultaneousStarts_OneWins(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			winner, errs := raceForLease(t, []*Store{s}, 6)
			defer winner.Release(ctx)
			for _, err := range errs {
				if err != nil && !errors.Is(err, ErrLeaseHeld) {
					t.Errorf("a losing trainer got %v; want ErrLeaseHeld", err)
				}
			}
		})
	}
}

// raceForLease has n trainers ask for the lease at once, trainer i through
// stores[i%len(stores)], and returns the one that got it with every
// trainer's error. It fails the test unless exactly one got it.
func raceForLease(t *testing.T, stores []*Store, n int) (*Lease, []error) {
	t.Helper()
	leases := make([]*Lease, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leases[i], errs[i] = AcquireLease(context.Background(), stores[i%len(stores)], "train", ttl(time.Minute))
		}()
	}
	wg.Wait()
	var winner *Lease
	for i, err := range errs {
		if err == nil {
			if winner != nil {
				t.Fatalf("two trainers got the lease (%v); want 1", errs)
			}
			winner = leases[i]
		}
	}
	if winner == nil {
		t.Fatalf("no trainer got the lease: %v", errs)
	}
	return winner, errs
}

func TestLease_Expired_IsTakenOverByExactlyOne(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			old := time.Now().Add(-time.Hour)
			putLease(t, s, LeaseInfo{Holder: "train", Host: "elsewhere", PID: 42, Acquired: old, Renewed: old,
				Expires: old.Add(time.Minute), Token: "stale"})
			winner, _ := raceForLease(t, []*Store{s}, 6)
			defer winner.Release(ctx)
			cur, err := ReadLease(ctx, s)
			if err != nil || cur.Token != winner.Info().Token {
				t.Fatalf("lease = %+v, %v; want the winner's", cur, err)
			}
		})
	}
}

func TestLease_HolderOnThisHostWhoseProcessIsGone_IsTakenOverAtOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a process to get a dead pid: %v", err)
	}
	host, boot, ns := proc.Host(), proc.BootID(), proc.PIDNamespace()
	now := time.Now()
	if boot == "" || ns == "" {
		t.Skip("no boot id or PID namespace to tell this host's processes by")
	}
	putLease(t, s, LeaseInfo{Holder: "train", Host: host, Boot: boot, PIDNS: ns, PID: cmd.Process.Pid, Acquired: now, Renewed: now,
		Expires: now.Add(time.Hour), Token: "crashed"})
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatalf("AcquireLease over a crashed trainer's lease = %v", err)
	}
	l.Release(ctx)

	// A host of the same name that is another machine (another boot id)
	// keeps its lease: its process is not ours to look for. So does a
	// holder in another PID namespace of this kernel (another container of
	// the same host name), and a lease that does not say its namespace.
	for _, other := range []LeaseInfo{{Boot: "another-machine", PIDNS: ns}, {Boot: boot, PIDNS: "pid:[1]"}, {Boot: boot}} {
		putLease(t, s, LeaseInfo{Holder: "train", Host: host, Boot: other.Boot, PIDNS: other.PIDNS, PID: cmd.Process.Pid, Acquired: now, Renewed: now,
			Expires: now.Add(time.Hour), Token: "twin" + other.Boot + other.PIDNS})
		if _, err := AcquireLease(ctx, s, "train", ttl(time.Minute)); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("AcquireLease over the lease of boot %q, namespace %q = %v; want ErrLeaseHeld", other.Boot, other.PIDNS, err)
		}
	}

	// A live process on another host keeps its lease.
	putLease(t, s, LeaseInfo{Holder: "train", Host: "elsewhere", PID: cmd.Process.Pid, Acquired: now, Renewed: now,
		Expires: now.Add(time.Hour), Token: "remote"})
	if _, err := AcquireLease(ctx, s, "train", ttl(time.Minute)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease over another host's live lease = %v; want ErrLeaseHeld", err)
	}
}

func TestLease_Renewal_ExtendsTheExpiryWithANewRecord(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	l, err := AcquireLease(ctx, s, "train", ttl(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	first := l.Info()
	time.Sleep(1500 * time.Millisecond) // past the first expiry
	if err := l.Context().Err(); err != nil {
		t.Fatalf("context ended: %v", context.Cause(l.Context()))
	}
	cur, err := ReadLease(ctx, s)
	if err != nil || !cur.Expires.After(first.Expires) || cur.Token != first.Token || cur.Seq <= first.Seq || cur.Kind != leaseRenew {
		t.Fatalf("lease = %+v, %v; want a renewal record after %d, past %v", cur, err, first.Seq, first.Expires)
	}
	if data, err := s.Get(ctx, LeaseRecord(first.Seq)); err != nil || !strings.Contains(string(data), first.Expires.Format(time.RFC3339Nano)) {
		t.Fatalf("the first record was rewritten or lost: %s, %v", data, err)
	}
	if _, err := AcquireLease(ctx, s, "train", ttl(time.Second)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease on a renewed lease = %v; want ErrLeaseHeld", err)
	}
}

func TestLease_OldRecordsAreDeleted_TheNewestKept(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	l, err := AcquireLease(ctx, s, "train", LeaseOptions{TTL: time.Second, Renew: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	first := l.Info().Seq
	for l.Info().Seq < first+5*leaseKeep {
		if err := l.Commit(ctx, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	l.mu.Lock()
	objs, err := s.List(ctx, LeasePrefix)
	newest, all := leaseNumbers(objs)
	seq := l.info.Seq
	l.mu.Unlock()
	if err != nil || newest != seq || len(all) > 3*leaseKeep {
		t.Fatalf("after %d records: %d objects under %s, newest %d (%v); want the newest, %d at most",
			5*leaseKeep, len(all), LeasePrefix, newest, err, 3*leaseKeep)
	}
}

func TestLease_TakenOver_CancelsTheContextNamingTheNewHolder(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	now := time.Now()
	putLease(t, s, LeaseInfo{Holder: "usurper", Host: "elsewhere", PID: 7, Acquired: now, Renewed: now,
		Expires: now.Add(time.Hour), Token: "theirs"})
	waitCancelled(t, l.Context(), 2*time.Second) // the watch, every second, not the renewal every 20 s
	cause := context.Cause(l.Context())
	if !errors.Is(cause, ErrLeaseLost) || !errors.Is(cause, ErrLeaseTaken) || !strings.Contains(cause.Error(), "usurper") {
		t.Fatalf("cause = %v; want ErrLeaseTaken naming the new holder", cause)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, _ := ReadLease(ctx, s); cur.Token != "theirs" {
		t.Fatal("Release of a lost lease released the new holder's lease")
	}
}

func TestLease_ARecordNumberDeletedByHand_IsNotTakenAsTheHolders(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	l, err := AcquireLease(ctx, s, "train", LeaseOptions{TTL: time.Minute, Watch: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	// Someone deletes the log and another trainer starts a new one: the
	// holder's next number is free again, but a newer record exists.
	objs, _ := s.List(ctx, LeasePrefix)
	for _, o := range objs {
		s.Delete(ctx, o.Name)
	}
	time.Sleep(5 * time.Millisecond)
	other, err := AcquireLease(ctx, s, "train-2", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release(ctx)
	called := false
	err = l.Commit(ctx, func(context.Context) error { called = true; return nil })
	if !errors.Is(err, ErrLeaseTaken) || called {
		t.Fatalf("Commit = %v (write called %v); want ErrLeaseTaken and no write", err, called)
	}
}

func TestLease_RenewalFailure_CancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	l, err := AcquireLease(ctx, s, "train", ttl(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	fb.inject("write", LeasePrefix+"*", 1000, gcerrors.PermissionDenied, false)
	waitCancelled(t, l.Context(), 2*time.Second)
	if cause := context.Cause(l.Context()); !errors.Is(cause, ErrLeaseLost) || errors.Is(cause, ErrLeaseTaken) || !strings.Contains(cause.Error(), "PermissionDenied") {
		t.Fatalf("cause = %v; want ErrLeaseLost with the store's error", cause)
	}
}

func TestLease_RenewalThatCannotFinishBeforeExpiry_CancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	s.retry = retryPolicy{attempts: 1000, first: 50 * time.Millisecond, max: 50 * time.Millisecond}
	l, err := AcquireLease(ctx, s, "train", ttl(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		fb.clear()
		l.Release(ctx)
	}()
	fb.inject("write", LeasePrefix+"*", 1_000_000, gcerrors.ResourceExhausted, false)
	waitCancelled(t, l.Context(), 2*time.Second)
	if done, expires := time.Now(), l.Info().Expires; done.After(expires) {
		t.Fatalf("the context ended at %v, after the lease expired at %v", done, expires)
	}
	if cause := context.Cause(l.Context()); !errors.Is(cause, ErrLeaseLost) {
		t.Fatalf("cause = %v; want ErrLeaseLost", cause)
	}
}

func TestLease_NotALeaseRecord_IsNamed(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	if err := s.Put(ctx, LeaseRecord(7), strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	_, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err == nil || !strings.Contains(err.Error(), "is not a lease record") || !strings.Contains(err.Error(), LeaseRecord(7)) {
		t.Fatalf("AcquireLease = %v; want an error naming the record that is not a lease", err)
	}
}

func TestLease_AnOlderVersionsLiveLeaseIsHeld_AStaleOneIsCleared(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	now := time.Now()
	live, _ := json.Marshal(LeaseInfo{Holder: "train", Host: "elsewhere", PID: 9, Acquired: now, Renewed: now, Expires: now.Add(time.Hour), Token: "old"})
	if err := s.PutReplace(ctx, legacyLeaseObject, live); err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLease(ctx, s, "train", ttl(time.Minute)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease beside a live lease.json = %v; want ErrLeaseHeld", err)
	}
	if info, err := ReadLease(ctx, s); err != nil || info.Token != "old" {
		t.Fatalf("ReadLease = %+v, %v; want the older version's holder", info, err)
	}
	stale, _ := json.Marshal(LeaseInfo{Holder: "train", Host: "elsewhere", PID: 9, Acquired: now, Renewed: now, Expires: now.Add(-time.Hour), Token: "old"})
	if err := s.PutReplace(ctx, legacyLeaseObject, stale); err != nil {
		t.Fatal(err)
	}
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatalf("AcquireLease beside a stale lease.json = %v", err)
	}
	defer l.Release(ctx)
	if ok, _ := s.Exists(ctx, legacyLeaseObject); ok {
		t.Fatal("the stale lease.json is still there")
	}
}

func TestLease_BreakLease_TakesALiveLeaseAndItsHolderStopsWithinItsWatch(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	first, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release(ctx)
	second, broken, err := BreakLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatalf("BreakLease over a live lease = %v", err)
	}
	defer second.Release(ctx)
	if broken == nil || broken.Token != first.Info().Token {
		t.Fatalf("BreakLease broke %+v; want the first trainer's lease", broken)
	}
	waitCancelled(t, first.Context(), 3*DefaultLeaseWatch)
	if cause := context.Cause(first.Context()); !errors.Is(cause, ErrLeaseLost) || !errors.Is(cause, ErrLeaseTaken) {
		t.Fatalf("the broken holder's cause = %v; want ErrLeaseLost and ErrLeaseTaken", cause)
	}
	if cur, err := ReadLease(ctx, s); err != nil || cur.Token != second.Info().Token {
		t.Fatalf("lease = %+v, %v; want the breaker's", cur, err)
	}
}

func TestLease_CommitOfABrokenHolder_WritesNothing(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			first, err := AcquireLease(ctx, s, "train", LeaseOptions{TTL: time.Minute, Watch: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer first.Release(ctx)
			second, _, err := BreakLease(ctx, s, "train", ttl(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			defer second.Release(ctx)
			called := false
			err = first.Commit(ctx, func(context.Context) error { called = true; return nil })
			if !errors.Is(err, ErrLeaseLost) || !errors.Is(err, ErrLeaseTaken) || called {
				t.Fatalf("Commit of the broken holder = %v (write called: %v); want ErrLeaseTaken and no write", err, called)
			}
			if context.Cause(first.Context()) == nil {
				t.Fatal("a failed commit left the lease's context going")
			}
		})
	}
}

func TestLease_BreakLease_WaitsForTheBrokenHoldersOpenCommit(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	first, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release(ctx)
	inCommit, finish := make(chan struct{}), make(chan struct{})
	var committed atomic.Bool
	go first.Commit(ctx, func(context.Context) error {
		close(inCommit)
		<-finish
		time.Sleep(20 * time.Millisecond)
		committed.Store(true)
		return nil
	})
	<-inCommit
	go func() { time.Sleep(50 * time.Millisecond); close(finish) }()
	start := time.Now()
	second, _, err := BreakLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release(ctx)
	if !committed.Load() {
		t.Fatal("BreakLease returned while the broken holder's commit was still writing")
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("BreakLease waited %v; want the commit's end, not its window", waited)
	}
}

func TestLease_CommitAfterAnInterrupt_StillCommits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := openTestStores(t)["mem"]
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitCancelled(t, l.Context(), time.Second)
	called := false
	if err := l.Commit(context.Background(), func(context.Context) error { called = true; return nil }); err != nil || !called {
		t.Fatalf("Commit after the lease's context ended with its parent = %v (called %v); want it committed", err, called)
	}
	if err := l.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLease_Retake_AfterALapseWhenNobodyTookIt_ButNotFromAnother(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	// As after a store outage: the renewer gave up; the newest record is
	// still this lease's, not yet expired.
	close(l.stop)
	<-l.done
	l2, err := l.Retake(ctx)
	if err != nil {
		t.Fatalf("Retake of the own lapsed lease = %v", err)
	}
	if l2.Info().Token == l.Info().Token {
		t.Fatal("Retake kept the old token")
	}
	// Another trainer broke in meanwhile: Retake is refused.
	close(l2.stop)
	<-l2.done
	other, _, err := BreakLease(ctx, s, "train-2", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release(ctx)
	if _, err := l2.Retake(ctx); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Retake over another trainer's lease = %v; want ErrLeaseHeld", err)
	}
}

// leaseChildEnv names the run directory in which TestLeaseChildProcess,
// run as a child process, tries to take the lease.
const leaseChildEnv = "MILLZERO_LEASE_CHILD_RUN"

// TestLeaseChildProcess is not a test of its own: the namespace test runs
// the test binary with it, in a new PID namespace, as a second trainer.
func TestLeaseChildProcess(t *testing.T) {
	dir := os.Getenv(leaseChildEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestLease_HolderInAnotherPIDNamespace_IsNotTakenOver")
	}
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := AcquireLease(context.Background(), s, "train-2", ttl(time.Minute))
	if err == nil {
		l.Release(context.Background())
		fmt.Println("ACQUIRED")
		return
	}
	fmt.Println("REFUSED:", err)
}

func TestLease_HolderInAnotherPIDNamespace_IsNotTakenOver(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare command")
	}
	if out, err := exec.Command(unshare, "-p", "-f", "--mount-proc", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -p is not permitted here: %v %s", err, out)
	}
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := AcquireLease(ctx, s, "train", ttl(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	// The second trainer runs on this host and boot, where this process's
	// id is not visible: it must not read that as a dead holder.
	cmd := exec.Command(unshare, "-p", "-f", "--mount-proc", os.Args[0], "-test.run=^TestLeaseChildProcess$", "-test.v")
	cmd.Env = append(os.Environ(), leaseChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the trainer in another PID namespace: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "REFUSED:") || !strings.Contains(string(out), "held by") {
		t.Fatalf("a trainer in another PID namespace was not refused:\n%s", out)
	}
	if cur, err := ReadLease(ctx, s); err != nil || cur.Token != l.Info().Token {
		t.Fatalf("lease = %+v, %v; want the first trainer's", cur, err)
	}
}
