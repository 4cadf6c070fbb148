package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/gcerrors"
)

// putLease writes info as the run's lease.json, as another trainer would.
func putLease(t *testing.T, s *Store, info LeaseInfo) {
	t.Helper()
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutReplace(context.Background(), LeaseObject, data); err != nil {
		t.Fatal(err)
	}
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
			first, err := AcquireLease(ctx, s, "train", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			defer first.Release(ctx)
			_, err = AcquireLease(ctx, s, "train-2", time.Minute)
			var held *LeaseHeldError
			if !errors.Is(err, ErrLeaseHeld) || !errors.As(err, &held) {
				t.Fatalf("second AcquireLease = %v; want ErrLeaseHeld", err)
			}
			host, _ := os.Hostname()
			info := first.Info()
			for _, want := range []string{s.String(), `"train"`, host, info.Expires.UTC().Format(time.RFC3339), "delete " + s.Where(LeaseObject)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
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
	la, err := AcquireLease(ctx, a, "train", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLease(ctx, b, "train", time.Minute); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease on the same directory = %v; want ErrLeaseHeld", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LeaseObject)); err != nil {
		t.Fatalf("no lock file in the run directory: %v", err)
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lb, err := AcquireLease(ctx, b, "train", time.Minute)
	if err != nil {
		t.Fatalf("AcquireLease after Release = %v", err)
	}
	lb.Release(ctx)
}

func TestLease_Release_LetsTheNextTrainerInAndCancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	l, err := AcquireLease(ctx, s, "train", time.Minute)
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
	if ok, _ := s.Exists(ctx, LeaseObject); ok {
		t.Fatal("lease.json is still there after Release")
	}
	l2, err := AcquireLease(ctx, s, "train", time.Minute)
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
			leases[i], errs[i] = AcquireLease(context.Background(), stores[i%len(stores)], "train", time.Minute)
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
				t.Fatalf("lease.json = %+v, %v; want the winner's", cur, err)
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
	host, _ := os.Hostname()
	now := time.Now()
	if BootID() == "" || PIDNamespace() == "" {
		t.Skip("no boot id or PID namespace to tell this host's processes by")
	}
	putLease(t, s, LeaseInfo{Holder: "train", Host: host, Boot: BootID(), PIDNS: PIDNamespace(), PID: cmd.Process.Pid, Acquired: now, Renewed: now,
		Expires: now.Add(time.Hour), Token: "crashed"})
	l, err := AcquireLease(ctx, s, "train", time.Minute)
	if err != nil {
		t.Fatalf("AcquireLease over a crashed trainer's lease = %v", err)
	}
	l.Release(ctx)

	// A host of the same name that is another machine (another boot id)
	// keeps its lease: its process is not ours to look for.
	if boot := BootID(); boot != "" {
		putLease(t, s, LeaseInfo{Holder: "train", Host: host, Boot: "another-machine", PID: cmd.Process.Pid, Acquired: now, Renewed: now,
			Expires: now.Add(time.Hour), Token: "twin"})
		if _, err := AcquireLease(ctx, s, "train", time.Minute); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("AcquireLease over a same-named host's lease = %v; want ErrLeaseHeld", err)
		}
	}

	// A holder in another PID namespace of this kernel (another container
	// of the same host name) keeps its lease: the pid is not ours to look
	// up. So does a lease that does not say its namespace.
	for _, ns := range []string{"pid:[1]", ""} {
		putLease(t, s, LeaseInfo{Holder: "train", Host: host, Boot: BootID(), PIDNS: ns, PID: cmd.Process.Pid, Acquired: now, Renewed: now,
			Expires: now.Add(time.Hour), Token: "container" + ns})
		if _, err := AcquireLease(ctx, s, "train", time.Minute); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("AcquireLease over a lease of PID namespace %q = %v; want ErrLeaseHeld", ns, err)
		}
	}

	// A live process on another host keeps its lease.
	putLease(t, s, LeaseInfo{Holder: "train", Host: "elsewhere", PID: cmd.Process.Pid, Acquired: now, Renewed: now,
		Expires: now.Add(time.Hour), Token: "remote"})
	if _, err := AcquireLease(ctx, s, "train", time.Minute); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease over another host's live lease = %v; want ErrLeaseHeld", err)
	}
}

func TestLease_Renewal_ExtendsTheExpiry(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	l, err := AcquireLease(ctx, s, "train", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	first := l.Info().Expires
	time.Sleep(1500 * time.Millisecond) // past the first expiry
	if err := l.Context().Err(); err != nil {
		t.Fatalf("context ended: %v", context.Cause(l.Context()))
	}
	cur, err := ReadLease(ctx, s)
	if err != nil || !cur.Expires.After(first) || cur.Token != l.Info().Token {
		t.Fatalf("lease.json = %+v, %v; want it renewed past %v", cur, err, first)
	}
	if _, err := AcquireLease(ctx, s, "train", time.Second); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("AcquireLease on a renewed lease = %v; want ErrLeaseHeld", err)
	}
}

func TestLease_TakenOver_CancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	l, err := AcquireLease(ctx, s, "train", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	now := time.Now()
	putLease(t, s, LeaseInfo{Holder: "usurper", Host: "elsewhere", PID: 7, Acquired: now, Renewed: now,
		Expires: now.Add(time.Hour), Token: "theirs"})
	waitCancelled(t, l.Context(), 2*time.Second)
	cause := context.Cause(l.Context())
	if !errors.Is(cause, ErrLeaseLost) || !strings.Contains(cause.Error(), "usurper") {
		t.Fatalf("cause = %v; want ErrLeaseLost naming the new holder", cause)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, _ := ReadLease(ctx, s); cur.Token != "theirs" {
		t.Fatal("Release of a lost lease deleted the new holder's lease")
	}
}

func TestLease_RenewalFailure_CancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	l, err := AcquireLease(ctx, s, "train", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	fb.inject("write", LeaseObject, 1000, gcerrors.PermissionDenied, false)
	waitCancelled(t, l.Context(), 2*time.Second)
	if cause := context.Cause(l.Context()); !errors.Is(cause, ErrLeaseLost) || !strings.Contains(cause.Error(), "PermissionDenied") {
		t.Fatalf("cause = %v; want ErrLeaseLost with the store's error", cause)
	}
}

func TestLease_RenewalThatCannotFinishBeforeExpiry_CancelsTheContext(t *testing.T) {
	ctx := context.Background()
	s, fb := newFaultStore(t)
	s.retry = retryPolicy{attempts: 1000, first: 50 * time.Millisecond, max: 50 * time.Millisecond}
	l, err := AcquireLease(ctx, s, "train", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		fb.clear()
		l.Release(ctx)
	}()
	fb.inject("read", LeaseObject, 1_000_000, gcerrors.ResourceExhausted, false)
	waitCancelled(t, l.Context(), 2*time.Second)
	if done, expires := time.Now(), l.Info().Expires; done.After(expires) {
		t.Fatalf("the context ended at %v, after the lease expired at %v", done, expires)
	}
	if cause := context.Cause(l.Context()); !errors.Is(cause, ErrLeaseLost) {
		t.Fatalf("cause = %v; want ErrLeaseLost", cause)
	}
}

func TestLease_NotALease_IsNamed(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	if err := s.PutReplace(ctx, LeaseObject, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	_, err := AcquireLease(ctx, s, "train", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "is not a lease") {
		t.Fatalf("AcquireLease = %v; want an error saying lease.json is not a lease", err)
	}
}

// putTakeOver writes a takeover object for the lease with token stale, as
// a contender would.
func putTakeOver(t *testing.T, s *Store, stale string, info LeaseInfo) {
	t.Helper()
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(context.Background(), LeaseTakeoversPrefix+stale+".json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

func TestLease_TakeOverAbandonedMidway_IsTakenOverOnceItWouldHaveExpired(t *testing.T) {
	ctx := context.Background()
	for kind, s := range openTestStores(t) {
		t.Run(kind, func(t *testing.T) {
			old := time.Now().Add(-time.Hour)
			putLease(t, s, LeaseInfo{Holder: "train", Host: "a", PID: 1, Acquired: old, Renewed: old, Expires: old.Add(time.Minute), Token: "L0"})
			// A contender created L0's takeover object and crashed before
			// replacing the lease; its own lease expired since.
			putTakeOver(t, s, "L0", LeaseInfo{Holder: "crashed", Host: "b", PID: 2, Acquired: old, Renewed: old, Expires: old.Add(2 * time.Minute), Token: "M1"})
			l, err := AcquireLease(ctx, s, "train", time.Minute)
			if err != nil {
				t.Fatalf("AcquireLease = %v; want a takeover", err)
			}
			defer l.Release(ctx)
			if ok, _ := s.Exists(ctx, LeaseTakeoversPrefix+"M1.json"); !ok {
				t.Fatal("the takeover went through without M1's takeover object")
			}
		})
	}
}

func TestLease_TakeOverInProgress_IsNamed(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["mem"]
	old, now := time.Now().Add(-time.Hour), time.Now()
	putLease(t, s, LeaseInfo{Holder: "train", Host: "a", PID: 1, Acquired: old, Renewed: old, Expires: old.Add(time.Minute), Token: "L0"})
	putTakeOver(t, s, "L0", LeaseInfo{Holder: "quicker", Host: "b", PID: 2, Acquired: now, Renewed: now, Expires: now.Add(time.Minute), Token: "M1"})
	_, err := AcquireLease(ctx, s, "train", time.Minute)
	if err == nil || !strings.Contains(err.Error(), `"quicker"`) || !strings.Contains(err.Error(), "taking over") {
		t.Fatalf("AcquireLease = %v; want an error naming the trainer taking over", err)
	}
}

func TestLease_TakeOver_DeletesOldTakeOverObjects(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	dir, _ := s.Local()
	old := time.Now().Add(-3 * time.Hour)
	putTakeOver(t, s, "ancient", LeaseInfo{Holder: "x", Token: "A", Expires: old})
	if err := os.Chtimes(filepath.Join(dir, LeaseTakeoversPrefix, "ancient.json"), old, old); err != nil {
		t.Fatal(err)
	}
	// What a contender killed while writing a takeover object leaves: an
	// old one goes, one that may still be being written stays.
	tmpOld := filepath.Join(dir, LeaseTakeoversPrefix, ".B.json.123.tmp")
	tmpNew := filepath.Join(dir, LeaseTakeoversPrefix, ".C.json.456.tmp")
	for _, f := range []string{tmpOld, tmpNew} {
		if err := os.WriteFile(f, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(tmpOld, old, old); err != nil {
		t.Fatal(err)
	}
	putLease(t, s, LeaseInfo{Holder: "train", Host: "a", PID: 1, Acquired: old, Renewed: old, Expires: old.Add(time.Minute), Token: "L0"})
	l, err := AcquireLease(ctx, s, "train", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	objs, err := s.List(ctx, LeaseTakeoversPrefix)
	if err != nil || len(objs) != 1 || objs[0].Name != LeaseTakeoversPrefix+"L0.json" {
		t.Fatalf("takeover objects = %v, %v; want only the new one", objs, err)
	}
	if _, err := os.Stat(tmpOld); !os.IsNotExist(err) {
		t.Errorf("an hour-old temporary takeover file was kept (%v)", err)
	}
	if _, err := os.Stat(tmpNew); err != nil {
		t.Errorf("a fresh temporary takeover file was deleted: %v", err)
	}
}

func TestLease_BreakLease_TakesALiveLeaseAndItsHolderStops(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	first, err := AcquireLease(ctx, s, "train", 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release(ctx)
	second, broken, err := BreakLease(ctx, s, "train", 3*time.Second)
	if err != nil {
		t.Fatalf("BreakLease over a live lease = %v", err)
	}
	defer second.Release(ctx)
	if broken == nil || broken.Token != first.Info().Token {
		t.Fatalf("BreakLease broke %+v; want the first trainer's lease", broken)
	}
	select {
	case <-first.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the broken holder did not stop at its next renewal")
	}
	if cause := context.Cause(first.Context()); !errors.Is(cause, ErrLeaseLost) || !errors.Is(cause, ErrLeaseTaken) {
		t.Fatalf("the broken holder's cause = %v; want ErrLeaseLost and ErrLeaseTaken", cause)
	}
	if cur, err := ReadLease(ctx, s); err != nil || cur.Token != second.Info().Token {
		t.Fatalf("lease.json = %+v, %v; want the breaker's", cur, err)
	}
}

func TestLease_Retake_AfterALapseWhenNobodyTookIt_ButNotFromAnother(t *testing.T) {
	ctx := context.Background()
	s := openTestStores(t)["path"]
	l, err := AcquireLease(ctx, s, "train", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// As after a store outage: the renewer gave up; lease.json still holds
	// this lease, not yet expired.
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
	other, _, err := BreakLease(ctx, s, "train-2", time.Minute)
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
	l, err := AcquireLease(context.Background(), s, "train-2", time.Minute)
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
	l, err := AcquireLease(ctx, s, "train", time.Minute)
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
		t.Fatalf("lease.json = %+v, %v; want the first trainer's", cur, err)
	}
}
