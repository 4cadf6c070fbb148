package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/millzero/millzero/internal/atomicfile"
)

// DefaultLeaseTTL is a lease's time to live unless the caller has reason
// for another: renewed every 20 s, and a trainer that crashed blocks its
// successor for at most a minute (not at all when the successor runs on the
// same host, boot and PID namespace and the holder's process is gone there;
// train --break-lease takes a lease at once).
const DefaultLeaseTTL = time.Minute

// ErrLeaseHeld is matched (errors.Is) by the error AcquireLease returns
// when another live trainer holds the run's lease.
var ErrLeaseHeld = errors.New("the run's lease is held by another trainer")

// ErrLeaseLost is the cause (context.Cause) of a Lease's context when the
// lease was taken over by another trainer or could not be renewed.
var ErrLeaseLost = errors.New("lease lost")

// ErrLeaseTaken is matched by the cause of a Lease's context, with
// ErrLeaseLost, when another trainer took the lease over (it expired, or
// was broken with --break-lease); a lease that only lapsed because the
// store could not be reached does not match it.
var ErrLeaseTaken = errors.New("taken over by another trainer")

// LeaseInfo is the content of lease.json: who holds the run and until when.
// Times are the holder's clock; holders' clocks must agree to well within
// the lease's time to live.
type LeaseInfo struct {
	Holder   string    `json:"holder"`          // what the holder calls itself, e.g. "train"
	Host     string    `json:"host"`            // its host name
	PID      int       `json:"pid"`             // its process id on Host
	Boot     string    `json:"boot,omitempty"`  // Host's boot id (Linux), to tell two hosts of one name apart
	PIDNS    string    `json:"pidns,omitempty"` // its PID namespace (Linux, "pid:[4026531836]"): PID means nothing outside it
	Acquired time.Time `json:"acquired"`        // when it took the lease
	Renewed  time.Time `json:"renewed"`         // when it last renewed it
	Expires  time.Time `json:"expires"`         // when the lease lapses unless renewed
	Token    string    `json:"token"`           // unique per acquisition
}

// LeaseHeldError is AcquireLease's error when another trainer holds the
// lease; it matches ErrLeaseHeld.
type LeaseHeldError struct {
	Loc    string    // the store
	Object string    // where lease.json is (Store.Where)
	Info   LeaseInfo // the lease found
	Now    time.Time // when it was found
}

// Error names the holder, where it runs and when the lease expires, and how
// to clear a stale lease.
func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("run %s is held by %q (pid %d on host %s) until %s (in %v, renewed %s); "+
		"only one trainer may run. If that process is gone, the lease lapses at that time; "+
		"to take it now, run train with --break-lease (or delete %s)",
		e.Loc, e.Info.Holder, e.Info.PID, e.Info.Host,
		e.Info.Expires.UTC().Format(time.RFC3339), e.Info.Expires.Sub(e.Now).Round(time.Second),
		e.Info.Renewed.UTC().Format(time.RFC3339), e.Object)
}

// Is makes the error match ErrLeaseHeld.
func (e *LeaseHeldError) Is(target error) bool { return target == ErrLeaseHeld }

// Lease is a held lease on a run: while it is held no other trainer can take
// it. A goroutine renews it every third of its time to live; when a renewal
// fails (the store refuses, or another trainer took the lease over) the
// lease's Context is cancelled with a cause matching ErrLeaseLost, and the
// holder must stop writing the run.
//
// The guarantee rests on the store's conditional create (see Store.Put):
// two trainers that start at once cannot both create lease.json, and two
// that find the same expired lease cannot both create its takeover object
// (lease-takeovers/TOKEN.json; one whose writer crashed before replacing
// the lease is itself taken over once it would have expired).
// Renewal reads lease.json and replaces it when it still holds this lease's
// token; that read-then-replace is not atomic, but a takeover needs the lease
// expired, and the holder's context is cancelled before its lease expires
// when renewals fail.
type Lease struct {
	store *Store
	ttl   time.Duration

	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once

	mu   sync.Mutex
	info LeaseInfo

	broken *LeaseInfo // the live lease BreakLease took, if any
}

// AcquireLease takes the lease of the run in store for holder, with time to
// live ttl, and starts renewing it; the lease's Context derives from ctx.
// When another trainer holds a live lease it returns a *LeaseHeldError. A
// lease that expired is taken over; so is one whose holder ran on this
// host, boot and PID namespace with a process id that no longer exists
// there (a crashed trainer). A holder in another PID namespace (another
// container on this kernel) is alive until its lease expires: its process
// id means nothing here.
func AcquireLease(ctx context.Context, store *Store, holder string, ttl time.Duration) (*Lease, error) {
	return acquireLease(ctx, store, holder, ttl, leaseTake{})
}

// BreakLease takes the lease of the run in store for holder at once, live
// holder or not: the holder, when alive, finds its lease taken at its next
// renewal (within a third of its time to live) and stops. The live lease
// that was broken, if any, is returned too (nil when there was none or it
// was stale anyway).
func BreakLease(ctx context.Context, store *Store, holder string, ttl time.Duration) (*Lease, *LeaseInfo, error) {
	take := leaseTake{force: true}
	l, err := acquireLease(ctx, store, holder, ttl, take)
	if err != nil {
		return nil, nil, err
	}
	return l, l.broken, nil
}

// leaseTake is how acquireLease treats a lease it finds.
type leaseTake struct {
	force bool   // take it whoever holds it (BreakLease)
	own   string // the token of this process's own lapsed lease (retaken after a store outage)
}

func acquireLease(ctx context.Context, store *Store, holder string, ttl time.Duration, take leaseTake) (*Lease, error) {
	if ttl < time.Second {
		return nil, fmt.Errorf("acquire lease on %s: time to live %v is under a second", store, ttl)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, fmt.Errorf("acquire lease on %s: %w", store, err)
	}
	now := time.Now()
	info := LeaseInfo{Holder: holder, Host: host, PID: os.Getpid(), Boot: BootID(), PIDNS: PIDNamespace(), Acquired: now, Renewed: now,
		Expires: now.Add(ttl), Token: hex.EncodeToString(tok[:])}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, err
	}
	var broken *LeaseInfo
	for try := 0; ; try++ {
		err := store.Put(ctx, LeaseObject, bytes.NewReader(data))
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("acquire lease: %w", err)
		}
		cur, err := ReadLease(ctx, store)
		if errors.Is(err, fs.ErrNotExist) && try < 3 {
			continue // released between our write and our read
		}
		if err != nil {
			return nil, fmt.Errorf("acquire lease: %w", err)
		}
		now := time.Now()
		stale := leaseStale(cur, now, host, info.Boot, info.PIDNS) || take.own != "" && cur.Token == take.own
		if !stale && !take.force {
			return nil, heldError(store, cur)
		}
		if err := takeOver(ctx, store, cur, data, take.force); err != nil {
			return nil, err
		}
		if !stale {
			broken = &cur
		}
		break
	}
	l := &Lease{store: store, ttl: ttl, info: info, stop: make(chan struct{}), done: make(chan struct{}), broken: broken}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	go l.renewLoop()
	return l, nil
}

// takeOverKeep is how long takeover objects are kept: far longer than a
// contender takes between reading an expired lease and creating its
// takeover object.
const takeOverKeep = time.Hour

// takeOver replaces the expired lease cur by ours (data) if this contender
// creates cur's takeover object. A takeover object whose writer never
// replaced the lease (it crashed between the two writes) is itself expired
// once the lease it holds would have (at once when its process is gone
// from this host); then that lease's takeover object
// decides, and so on.
//
// With force (BreakLease) the lease need not be expired, and an unfinished
// takeover of it is taken over too.
func takeOver(ctx context.Context, store *Store, cur LeaseInfo, data []byte, force bool) error {
	stale := cur
	for range 8 {
		marker := LeaseTakeoverObject(stale.Token)
		err := store.Put(ctx, marker, bytes.NewReader(data))
		if err == nil {
			if err := store.PutReplace(ctx, LeaseObject, data); err != nil {
				return fmt.Errorf("acquire lease: take over: %w", err)
			}
			cleanTakeOvers(ctx, store)
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("acquire lease: take over: %w", err)
		}
		if now, err := ReadLease(ctx, store); err == nil && now.Token != cur.Token {
			return heldError(store, now) // the other contender finished
		}
		mdata, err := store.Get(ctx, marker)
		if err != nil {
			return fmt.Errorf("acquire lease: take over: %w", err)
		}
		var m LeaseInfo
		if err := json.Unmarshal(mdata, &m); err != nil || m.Token == "" {
			return fmt.Errorf("acquire lease: %s is not a lease (%v); delete it if no trainer is running", store.Where(marker), err)
		}
		// A contender that crashed between its two writes is stale by the
		// lease's own rule: expired, or its process gone from this host.
		host, _ := os.Hostname()
		if !force && !leaseStale(m, time.Now(), host, BootID(), PIDNamespace()) {
			return fmt.Errorf("acquire lease on %s: %q (pid %d on host %s) is taking over the expired lease of %q (pid %d on %s) right now",
				store, m.Holder, m.PID, m.Host, cur.Holder, cur.PID, cur.Host)
		}
		stale = m
	}
	return fmt.Errorf("acquire lease on %s: too many abandoned takeovers in %s; delete it and %s if no trainer is running",
		store, store.Where(LeaseTakeoversPrefix), store.Where(LeaseObject))
}

// cleanTakeOvers deletes takeover objects older than takeOverKeep, best
// effort (a leftover costs a few bytes). In a local run directory it also
// deletes the temporary files of takeover objects that old: what a
// contender killed in the middle of writing one leaves (List skips them).
func cleanTakeOvers(ctx context.Context, store *Store) {
	if dir, ok := store.Local(); ok {
		tmps, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(LeaseTakeoversPrefix), "*"+atomicfile.TempSuffix))
		for _, f := range tmps {
			if fi, err := os.Stat(f); err == nil && time.Since(fi.ModTime()) > takeOverKeep {
				os.Remove(f)
			}
		}
	}
	objs, err := store.List(ctx, LeaseTakeoversPrefix)
	if err != nil {
		return
	}
	for _, o := range objs {
		if time.Since(o.ModTime) > takeOverKeep {
			store.Delete(ctx, o.Name)
		}
	}
}

// heldError is the error for a live lease held by someone else.
func heldError(store *Store, info LeaseInfo) error {
	return &LeaseHeldError{Loc: store.String(), Object: store.Where(LeaseObject), Info: info, Now: time.Now()}
}

// ReadLease reads the run's lease.json; a missing lease is an error matching
// fs.ErrNotExist.
func ReadLease(ctx context.Context, store *Store) (LeaseInfo, error) {
	data, err := store.Get(ctx, LeaseObject)
	if err != nil {
		return LeaseInfo{}, err
	}
	var info LeaseInfo
	if err := json.Unmarshal(data, &info); err != nil || info.Token == "" || info.Expires.IsZero() {
		if err == nil {
			err = errors.New("no token or expiry")
		}
		return LeaseInfo{}, fmt.Errorf("%s in %s is not a lease (%v); delete it if no trainer is running", LeaseObject, store, err)
	}
	return info, nil
}

// leaseStale tells whether the lease cur may be taken over at now: it
// expired, or its holder's process is gone, which is judged only when the
// holder ran where this process runs: the same host name, boot id and PID
// namespace, each known. A process id read in another PID namespace (a
// container sharing the host name and kernel) names another process or
// none, so such a holder is alive until its lease expires.
func leaseStale(cur LeaseInfo, now time.Time, host, boot, pidns string) bool {
	if now.After(cur.Expires) {
		return true
	}
	if !sameProcessSpace(cur, host, boot, pidns) {
		return false
	}
	return cur.PID > 0 && cur.PID != os.Getpid() && !processAlive(cur.PID)
}

// sameProcessSpace tells whether the process ids of the lease cur can be
// looked up here: it was taken on host, boot and pidns, all known.
func sameProcessSpace(cur LeaseInfo, host, boot, pidns string) bool {
	return cur.Host == host && cur.Boot != "" && cur.Boot == boot && cur.PIDNS != "" && cur.PIDNS == pidns
}

// PIDNamespace returns this process's PID namespace ("pid:[4026531836]" on
// Linux, "" where it cannot be read): process ids are only comparable
// within one.
func PIDNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// HolderGone tells whether the process of the lease info is known to be
// gone: it ran on this host, boot and PID namespace and no process has its
// id. false means alive or unknown.
func HolderGone(info LeaseInfo) bool {
	host, _ := os.Hostname()
	return sameProcessSpace(info, host, BootID(), PIDNamespace()) && info.PID > 0 && info.PID != os.Getpid() && !processAlive(info.PID)
}

// BootID returns the Linux kernel's boot id ("" elsewhere): two machines
// that share a host name have different ones, and a rebooted machine a new
// one.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// processAlive tells whether a process with id pid exists on this host
// and has not exited (a killed process that its parent has not reaped yet,
// a zombie, is gone).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill's answer
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// Retake takes the lease again after it was lost because the store could
// not be reached to renew it: when lease.json still holds this lease (no
// other trainer took it meanwhile) it is taken over through the same
// write-once takeover object any contender would have to create, so a
// trainer that found it expired meanwhile and this one cannot both win.
// Another trainer's live lease is a *LeaseHeldError. The new Lease
// replaces l, which must not be used any more.
func (l *Lease) Retake(ctx context.Context) (*Lease, error) {
	info := l.Info()
	return acquireLease(ctx, l.store, info.Holder, l.ttl, leaseTake{own: info.Token})
}

// Context returns a context that is cancelled when the lease is lost or
// released (context.Cause tells which) or the context given to AcquireLease
// ends.
func (l *Lease) Context() context.Context { return l.ctx }

// Info returns the lease as last written.
func (l *Lease) Info() LeaseInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

// renewLoop renews the lease every third of its time to live until it is
// released, lost or its context ends.
func (l *Lease) renewLoop() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		if err := l.renew(); err != nil {
			l.cancel(fmt.Errorf("%w: %w", ErrLeaseLost, err))
			return
		}
	}
}

// renew extends the lease by its time to live, unless another trainer took
// it over. It gives up before the lease expires: a holder must never write
// under a lease that may have lapsed.
func (l *Lease) renew() error {
	info := l.Info()
	ctx, cancel := context.WithDeadline(l.ctx, info.Expires.Add(-l.ttl/10))
	defer cancel()
	cur, err := ReadLease(ctx, l.store)
	if err != nil {
		return fmt.Errorf("renew lease: %w", err)
	}
	if cur.Token != info.Token {
		return fmt.Errorf("renew lease on %s: %w: %q (pid %d on host %s) at %s",
			l.store, ErrLeaseTaken, cur.Holder, cur.PID, cur.Host, cur.Acquired.UTC().Format(time.RFC3339))
	}
	now := time.Now()
	info.Renewed, info.Expires = now, now.Add(l.ttl)
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := l.store.PutReplace(ctx, LeaseObject, data); err != nil {
		return fmt.Errorf("renew lease: %w", err)
	}
	l.mu.Lock()
	l.info = info
	l.mu.Unlock()
	return nil
}

// Release stops renewing the lease and deletes lease.json if it still holds
// this lease, so the next trainer starts at once. The lease's context is
// cancelled. Release may be called more than once.
func (l *Lease) Release(ctx context.Context) error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.cancel(errors.New("lease released"))
		cur, rerr := ReadLease(ctx, l.store)
		if rerr != nil {
			if !errors.Is(rerr, fs.ErrNotExist) {
				err = fmt.Errorf("release lease: %w", rerr)
			}
			return
		}
		if cur.Token != l.Info().Token {
			return
		}
		if derr := l.store.Delete(ctx, LeaseObject); derr != nil {
			err = fmt.Errorf("release lease: %w", derr)
		}
	})
	return err
}

// OnlyLease reports whether the store holds nothing but lease objects
// and objects under the prefixes also: a new run whose trainer is
// starting, or died before it wrote run.yaml.
func OnlyLease(ctx context.Context, st *Store, also ...string) bool {
	objs, err := st.List(ctx, "")
	if err != nil {
		return false
	}
	for _, o := range objs {
		ok := isLeaseObject(o.Name)
		for _, p := range also {
			ok = ok || strings.HasPrefix(o.Name, p)
		}
		if !ok {
			return false
		}
	}
	return true
}

// isLeaseObject tells whether name is the lease or a record of a takeover.
func isLeaseObject(name string) bool {
	return name == LeaseObject || strings.HasPrefix(name, LeaseTakeoversPrefix)
}
