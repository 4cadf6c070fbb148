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
	"strings"
	"sync"
	"time"

	"github.com/millzero/millzero/internal/proc"
)

// The lease is a log of write-once records (LeaseRecord(n), under
// LeasePrefix), never rewritten: each says who holds the run and until
// when, or that nobody does. A trainer taking the run, its holder renewing
// it and its holder committing a write all write the record after the
// newest one they know, and the store's conditional create (Store.Put) lets
// exactly one writer of a number succeed. So:
//
//   - two trainers that take the run at once, or a renewal and a takeover
//     (--break-lease), cannot both win: they write the same number;
//   - a holder whose next record is written has confirmed that nobody took
//     the run since its last one; every write of the run's shared state
//     (Commit) is made right after such a confirmation, within a window the
//     record states, and a trainer that breaks the lease waits until an
//     open commit of the holder it broke is over before it reads the run;
//   - a holder that finds its next number taken has lost the lease and
//     commits nothing more.
//
// A refresh is a new object, as restic's lock refresh is; old records are
// deleted (the newest few are kept). A record counts only while the record
// before it is there, so a log deleted by hand while a holder lived does
// not hand that holder its old numbers back unnoticed.

// DefaultLeaseTTL is a lease's time to live unless the caller has reason
// for another: renewed every 20 s, and a trainer that crashed blocks its
// successor for at most a minute (not at all when the successor runs on the
// same host, boot and PID namespace and the holder's process is gone
// there; BreakLease takes a lease at once).
const DefaultLeaseTTL = time.Minute

// DefaultLeaseWatch is how often a holder looks whether another trainer
// wrote the lease's next record: the most it goes on working after its
// lease was broken before it knows.
const DefaultLeaseWatch = time.Second

// DefaultCommitWindow is how long a commit may write after it confirmed
// the lease, at least: uploads of a checkpoint and the tables to a remote
// store take seconds. A trainer that breaks a lease in the middle of a
// commit whose holder hangs waits that long.
const DefaultCommitWindow = 30 * time.Second

// leaseKeep is how many of the newest records (and their done objects) a
// holder keeps when it deletes old ones.
const leaseKeep = 8

// leaseTries bounds the attempts of a trainer to take a lease whose
// newest record keeps changing under it.
const leaseTries = 64

// The kinds of lease records.
const (
	leaseTake    = "take"    // a trainer took the run
	leaseRenew   = "renew"   // its holder renewed it
	leaseCommit  = "commit"  // its holder writes the run's shared state until Until
	leaseRelease = "release" // its holder let it go: nobody holds the run
)

// ErrLeaseHeld is matched (errors.Is) by the error AcquireLease returns
// when another live trainer holds the run's lease.
var ErrLeaseHeld = errors.New("the run's lease is held by another trainer")

// ErrLeaseLost is the cause (context.Cause) of a Lease's context when the
// lease was taken over by another trainer or could not be renewed, and is
// matched by Commit's error then.
var ErrLeaseLost = errors.New("lease lost")

// ErrLeaseTaken is matched with ErrLeaseLost when another trainer took the
// lease over (it expired, or was broken); a lease that only lapsed because
// the store could not be reached does not match it.
var ErrLeaseTaken = errors.New("taken over by another trainer")

// errLeaseReleased is the cause of a released Lease's context.
var errLeaseReleased = fmt.Errorf("%w: released", ErrLeaseLost)

// LeaseInfo is a record of the lease: who holds the run and until when.
// Times are the holder's clock; holders' clocks must agree to well within
// the lease's time to live.
type LeaseInfo struct {
	Holder   string    `json:"holder"`          // what the holder calls itself, e.g. "train"
	Host     string    `json:"host"`            // its host name
	PID      int       `json:"pid"`             // its process id on Host
	Boot     string    `json:"boot,omitempty"`  // Host's boot id (Linux), to tell two hosts of one name apart
	PIDNS    string    `json:"pidns,omitempty"` // its PID namespace (Linux, "pid:[4026531836]"): PID means nothing outside it
	Acquired time.Time `json:"acquired"`        // when it took the lease
	Renewed  time.Time `json:"renewed"`         // when it wrote this record
	Expires  time.Time `json:"expires"`         // when the lease lapses unless renewed
	Token    string    `json:"token"`           // unique per acquisition
	Seq      int64     `json:"seq,omitempty"`   // the record's number (LeaseRecord)
	Kind     string    `json:"kind,omitempty"`  // take, renew, commit or release
	Until    time.Time `json:"until,omitzero"`  // a commit's window: its writes end by then
}

// LeaseOptions are a lease's timings; zero fields take their defaults.
type LeaseOptions struct {
	TTL    time.Duration // time to live; DefaultLeaseTTL; at least a second
	Renew  time.Duration // how often the holder renews; TTL/3
	Watch  time.Duration // how often the holder looks for a record after its own; DefaultLeaseWatch
	Window time.Duration // how long a commit may write after its record; DefaultCommitWindow or TTL/2, the longer
}

// withDefaults fills the zero fields and checks the rest.
func (o LeaseOptions) withDefaults() (LeaseOptions, error) {
	if o.TTL == 0 {
		o.TTL = DefaultLeaseTTL
	}
	if o.TTL < time.Second {
		return o, fmt.Errorf("a lease's time to live %v is under a second", o.TTL)
	}
	if o.Renew <= 0 {
		o.Renew = o.TTL / 3
	}
	if o.Watch <= 0 {
		o.Watch = DefaultLeaseWatch
	}
	if o.Window <= 0 {
		o.Window = max(DefaultCommitWindow, o.TTL/2)
	}
	if o.Renew >= o.TTL {
		return o, fmt.Errorf("a lease renewed every %v must live longer than that (time to live %v)", o.Renew, o.TTL)
	}
	return o, nil
}

// LeaseHeldError is AcquireLease's error when another trainer holds the
// lease; it matches ErrLeaseHeld.
type LeaseHeldError struct {
	Loc  string    // the store
	Info LeaseInfo // the lease found
	Now  time.Time // when it was found
}

// Error names the holder, where it runs and when the lease expires.
func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("run %s is held by %q (pid %d on host %s) until %s (in %v, renewed %s); "+
		"only one trainer may run, and if that process is gone the lease lapses at that time",
		e.Loc, e.Info.Holder, e.Info.PID, e.Info.Host,
		e.Info.Expires.UTC().Format(time.RFC3339), e.Info.Expires.Sub(e.Now).Round(time.Second),
		e.Info.Renewed.UTC().Format(time.RFC3339))
}

// Is makes the error match ErrLeaseHeld.
func (e *LeaseHeldError) Is(target error) bool { return target == ErrLeaseHeld }

// Lease is a held lease on a run: while it is held no other trainer can take
// it except by breaking it (BreakLease). A goroutine renews it
// (LeaseOptions.Renew) and watches for a record after its own
// (LeaseOptions.Watch); when a renewal fails (the store refuses, or another
// trainer took the lease over) the lease's Context is cancelled with a
// cause matching ErrLeaseLost, and the holder must stop. Writes of the
// run's shared state go through Commit, which confirms the lease first.
type Lease struct {
	store *Store
	opts  LeaseOptions

	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once

	mu   sync.Mutex // the holder's records are written one at a time
	info LeaseInfo  // the newest record this holder wrote

	broken *LeaseInfo // the live lease BreakLease took, if any
}

// AcquireLease takes the lease of the run in store for holder and starts
// renewing it; the lease's Context derives from ctx. When another trainer
// holds a live lease it returns a *LeaseHeldError. A lease that expired or
// was released is taken over; so is one whose holder ran on this host,
// boot and PID namespace with a process id that no longer exists there (a
// crashed trainer). A holder in another PID namespace (another container
// on this kernel) is alive until its lease expires: its process id means
// nothing here.
func AcquireLease(ctx context.Context, store *Store, holder string, opts LeaseOptions) (*Lease, error) {
	return acquireLease(ctx, store, holder, opts, leaseTakeMode{})
}

// BreakLease takes the lease of the run in store for holder at once, live
// holder or not: the holder, when alive, finds its lease taken within
// its LeaseOptions.Watch and commits nothing more. When the broken holder
// was committing, BreakLease returns once that commit is over (or its
// window passed). The live lease that was broken, if any, is returned too
// (nil when there was none or it was stale anyway).
func BreakLease(ctx context.Context, store *Store, holder string, opts LeaseOptions) (*Lease, *LeaseInfo, error) {
	l, err := acquireLease(ctx, store, holder, opts, leaseTakeMode{force: true})
	if err != nil {
		return nil, nil, err
	}
	return l, l.broken, nil
}

// leaseTakeMode is how acquireLease treats a lease it finds.
type leaseTakeMode struct {
	force bool   // take it whoever holds it (BreakLease)
	own   string // the token of this process's own lapsed lease (retaken after a store outage)
}

func acquireLease(ctx context.Context, store *Store, holder string, opts LeaseOptions, mode leaseTakeMode) (*Lease, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("acquire lease on %s: %w", store, err)
	}
	var tok [16]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, fmt.Errorf("acquire lease on %s: %w", store, err)
	}
	me := LeaseInfo{Holder: holder, Host: proc.Host(), PID: os.Getpid(), Boot: proc.BootID(), PIDNS: proc.PIDNamespace(),
		Token: hex.EncodeToString(tok[:]), Kind: leaseTake}
	if err := clearLegacyLease(ctx, store, me, mode.force); err != nil {
		return nil, err
	}
	for try := 0; try < leaseTries; try++ {
		cur, found, err := newestLease(ctx, store)
		if err != nil {
			return nil, fmt.Errorf("acquire lease: %w", err)
		}
		var broken *LeaseInfo
		if found && cur.Kind != leaseRelease {
			// This trainer's own record is one a failed attempt wrote.
			stale := leaseStale(cur, time.Now(), me) || cur.Token == me.Token || mode.own != "" && cur.Token == mode.own
			if !stale && !mode.force {
				return nil, heldError(store, cur)
			}
			if !stale {
				broken = &cur
			}
		}
		rec, prev := me, ""
		rec.Seq = 1
		if found {
			rec.Seq, prev = cur.Seq+1, cur.Token
		}
		rec.Acquired = time.Now()
		rec.Renewed, rec.Expires = rec.Acquired, rec.Acquired.Add(opts.TTL)
		_, err = writeLeaseRecord(ctx, store, rec, prev)
		if errors.Is(err, errNumberTaken) || errors.Is(err, errNewerRecord) || errors.Is(err, errLogBroken) {
			continue // another trainer wrote first, or the log changed: look again
		}
		if err != nil {
			return nil, fmt.Errorf("acquire lease: %w", err)
		}
		l := &Lease{store: store, opts: opts, info: rec, broken: broken, stop: make(chan struct{}), done: make(chan struct{})}
		l.ctx, l.cancel = context.WithCancelCause(ctx)
		if found && cur.Kind == leaseCommit && cur.Token != me.Token && cur.Token != mode.own {
			// A commit's window may outlast its lease: wait for it
			// whether the lease was broken or had expired.
			if err := awaitCommit(ctx, store, cur); err != nil {
				l.cancel(err)
				return nil, fmt.Errorf("acquire lease: %w", err)
			}
		}
		go l.keep()
		return l, nil
	}
	return nil, fmt.Errorf("acquire lease on %s: its newest record changed %d times while this trainer tried to take it", store, leaseTries)
}

// Why writeLeaseRecord's record is not the newest.
var (
	errNumberTaken = errors.New("another trainer wrote that record first")
	errNewerRecord = errors.New("a newer record exists")
	errLogBroken   = errors.New("the record before it is gone")
)

// writeLeaseRecord writes rec as its record and confirms it is the newest,
// following the record before it, of token prev (none when rec.Seq is 1).
// Otherwise it returns an error matching errNumberTaken (another writer has
// rec's number), errNewerRecord (a record after it exists: rec's number was
// an old one, deleted) or errLogBroken (the record before it is gone or
// another: a log deleted by hand), with the number of the newest record.
func writeLeaseRecord(ctx context.Context, store *Store, rec LeaseInfo, prev string) (int64, error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return 0, err
	}
	err = store.Put(ctx, LeaseRecord(rec.Seq), bytes.NewReader(data))
	if errors.Is(err, fs.ErrExist) {
		return rec.Seq, errNumberTaken
	}
	if err != nil {
		return 0, err
	}
	objs, err := store.List(ctx, LeasePrefix)
	if err != nil {
		return 0, err
	}
	newest, _ := leaseNumbers(objs)
	if newest > rec.Seq {
		return newest, errNewerRecord
	}
	if rec.Seq > 1 {
		before, err := readLeaseRecord(ctx, store, rec.Seq-1)
		if errors.Is(err, fs.ErrNotExist) || err == nil && before.Token != prev {
			return newest, errLogBroken
		}
		if err != nil {
			return 0, err
		}
	}
	return rec.Seq, nil
}

// leaseNumbers is the newest record's number among objs (0: none), and
// every record's and done object's number by name.
func leaseNumbers(objs []ObjectInfo) (int64, map[string]int64) {
	var newest int64
	all := map[string]int64{}
	for _, o := range objs {
		if n, ok := ParseLeaseRecord(o.Name); ok {
			newest = max(newest, n)
			all[o.Name] = n
		} else if n, ok := parseLeaseDone(o.Name); ok {
			all[o.Name] = n
		}
	}
	return newest, all
}

// newestLease reads the lease's newest record; found is false when the
// run has none.
func newestLease(ctx context.Context, store *Store) (info LeaseInfo, found bool, err error) {
	for range 3 {
		objs, err := store.List(ctx, LeasePrefix)
		if err != nil {
			return LeaseInfo{}, false, err
		}
		newest, _ := leaseNumbers(objs)
		if newest == 0 {
			return LeaseInfo{}, false, nil
		}
		info, err = readLeaseRecord(ctx, store, newest)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since the listing (a log deleted by hand): look again
		}
		return info, err == nil, err
	}
	return LeaseInfo{}, false, fmt.Errorf("the records of %s keep vanishing", store.Where(LeasePrefix))
}

// readLeaseRecord reads record n.
func readLeaseRecord(ctx context.Context, store *Store, n int64) (LeaseInfo, error) {
	data, err := store.Get(ctx, LeaseRecord(n))
	if err != nil {
		return LeaseInfo{}, err
	}
	return parseLease(store, LeaseRecord(n), data)
}

// parseLease parses the lease record name.
func parseLease(store *Store, name string, data []byte) (LeaseInfo, error) {
	var info LeaseInfo
	if err := json.Unmarshal(data, &info); err != nil || info.Token == "" || info.Expires.IsZero() {
		if err == nil {
			err = errors.New("no token or expiry")
		}
		return LeaseInfo{}, fmt.Errorf("%s is not a lease record (%v); delete it if no trainer is running", store.Where(name), err)
	}
	return info, nil
}

// awaitCommit waits until the commit record rec of a holder whose lease was
// just broken is over: its done object is there, or its window passed (with
// a second's margin for a write in flight). A holder's writes end with its
// window whatever happens to it.
func awaitCommit(ctx context.Context, store *Store, rec LeaseInfo) error {
	end := rec.Until.Add(time.Second)
	poll := time.Millisecond // doubled up to 50 ms: most commits are over in milliseconds
	for time.Now().Before(end) {
		ok, err := store.Exists(ctx, LeaseDone(rec.Seq))
		if err == nil && ok {
			return nil
		}
		if HolderGone(rec) {
			return nil // its writes ended with its process
		}
		t := time.NewTimer(min(poll, time.Until(end)))
		poll = min(2*poll, 50*time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for the commit of the broken lease: %w", ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// heldError is the error for a live lease held by someone else.
func heldError(store *Store, info LeaseInfo) error {
	return &LeaseHeldError{Loc: store.String(), Info: info, Now: time.Now()}
}

// ReadLease reads the run's lease: the newest record of its holder. A run
// that no trainer holds (no record, or a release) is an error matching
// fs.ErrNotExist.
func ReadLease(ctx context.Context, store *Store) (LeaseInfo, error) {
	info, found, err := newestLease(ctx, store)
	if err != nil {
		return LeaseInfo{}, err
	}
	if !found || info.Kind == leaseRelease {
		if legacy, err := readLegacyLease(ctx, store); err == nil {
			return legacy, nil
		}
		return LeaseInfo{}, fmt.Errorf("read the lease of %s: no trainer holds it: %w", store, fs.ErrNotExist)
	}
	return info, nil
}

// leaseStale tells whether the lease cur may be taken over at now by me:
// it expired, or its holder's process is gone, which is judged only when
// the holder ran where me runs: the same host name, boot id and PID
// namespace, each known. A process id read in another PID namespace (a
// container sharing the host name and kernel) names another process or
// none, so such a holder is alive until its lease expires.
func leaseStale(cur LeaseInfo, now time.Time, me LeaseInfo) bool {
	if now.After(cur.Expires) {
		return true
	}
	if !sameProcessSpace(cur, me) {
		return false
	}
	return cur.PID > 0 && cur.PID != os.Getpid() && !proc.Alive(cur.PID)
}

// sameProcessSpace tells whether the process ids of the lease cur can be
// looked up where me runs: the same host, boot and PID namespace, all known.
func sameProcessSpace(cur, me LeaseInfo) bool {
	return cur.Host == me.Host && cur.Boot != "" && cur.Boot == me.Boot && cur.PIDNS != "" && cur.PIDNS == me.PIDNS
}

// HolderGone tells whether the process of the lease info is known to be
// gone: it ran on this host, boot and PID namespace and no process has its
// id. false means alive or unknown.
func HolderGone(info LeaseInfo) bool {
	me := LeaseInfo{Host: proc.Host(), Boot: proc.BootID(), PIDNS: proc.PIDNamespace()}
	return sameProcessSpace(info, me) && info.PID > 0 && info.PID != os.Getpid() && !proc.Alive(info.PID)
}

// Retake takes the lease again after it was lost because the store could
// not be reached to renew it: when its newest record is still this
// lease's (no other trainer took it meanwhile) the next record is written
// as any contender's would be, so a trainer that found it expired
// meanwhile and this one cannot both win. Another trainer's live lease is
// a *LeaseHeldError. The new Lease replaces l, which must not be used any
// more.
func (l *Lease) Retake(ctx context.Context) (*Lease, error) {
	info := l.Info()
	return acquireLease(ctx, l.store, info.Holder, l.opts, leaseTakeMode{own: info.Token})
}

// Context returns a context that is cancelled when the lease is lost or
// released (context.Cause tells which) or the context given to AcquireLease
// ends.
func (l *Lease) Context() context.Context { return l.ctx }

// Info returns the newest record this holder wrote.
func (l *Lease) Info() LeaseInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

// Options are the lease's timings.
func (l *Lease) Options() LeaseOptions { return l.opts }

// keep renews the lease every LeaseOptions.Renew and looks for a record
// after its own every LeaseOptions.Watch, until it is released, lost or
// its context ends.
func (l *Lease) keep() {
	defer close(l.done)
	t := time.NewTicker(min(l.opts.Watch, l.opts.Renew))
	defer t.Stop()
	next := time.Now().Add(l.opts.Renew)
	for {
		select {
		case <-l.stop:
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		var err error
		if time.Now().Before(next) {
			err = l.watch()
		} else {
			err = l.renew()
			next = time.Now().Add(l.opts.Renew)
		}
		if err != nil {
			l.lose(err)
			return
		}
	}
}

// lose cancels the lease's context with err as the cause (wrapped to match
// ErrLeaseLost).
func (l *Lease) lose(err error) {
	if !errors.Is(err, ErrLeaseLost) {
		err = fmt.Errorf("%w: %w", ErrLeaseLost, err)
	}
	l.cancel(err)
}

// watch looks whether another trainer wrote the record after this
// holder's newest; a store that does not answer is the renewal's business.
func (l *Lease) watch() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithTimeout(l.ctx, max(l.opts.Watch, time.Second))
	defer cancel()
	next := l.info.Seq + 1
	ok, err := l.store.Exists(ctx, LeaseRecord(next))
	if err != nil || !ok {
		return nil
	}
	return l.takenError(ctx, next)
}

// takenError is the error of a holder that found record n written by
// another trainer.
func (l *Lease) takenError(ctx context.Context, n int64) error {
	who := "another trainer"
	if other, err := readLeaseRecord(ctx, l.store, n); err == nil {
		who = fmt.Sprintf("%q (pid %d on host %s) at %s", other.Holder, other.PID, other.Host, other.Renewed.UTC().Format(time.RFC3339))
	}
	return fmt.Errorf("%w: %w: lease of %s: %s", ErrLeaseLost, ErrLeaseTaken, l.store, who)
}

// renew extends the lease by its time to live, unless another trainer took
// it over. It gives up before the lease expires, so that a holder whose
// store does not answer stops before another may take the run.
func (l *Lease) renew() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithDeadline(l.ctx, l.info.Expires.Add(-l.opts.TTL/10))
	defer cancel()
	if _, err := l.next(ctx, leaseRenew, time.Time{}); err != nil {
		return fmt.Errorf("renew lease: %w", err)
	}
	return nil
}

// next writes the holder's next record, of kind (a commit's window ending
// at until), and returns it; l.mu is held. Another trainer's record of that
// number is an error matching ErrLeaseTaken. A record of this holder's
// that a failed attempt wrote (its confirmation failed) is stepped over.
func (l *Lease) next(ctx context.Context, kind string, until time.Time) (LeaseInfo, error) {
	for {
		rec := l.info
		rec.Seq++
		rec.Kind, rec.Until = kind, until
		rec.Renewed = time.Now()
		rec.Expires = rec.Renewed.Add(l.opts.TTL)
		newest, err := writeLeaseRecord(ctx, l.store, rec, rec.Token)
		switch {
		case err == nil:
			l.info = rec
			l.prune(ctx)
			return rec, nil
		case errors.Is(err, errNumberTaken):
			other, rerr := readLeaseRecord(ctx, l.store, rec.Seq)
			if rerr == nil && other.Token == rec.Token {
				l.info = other // this holder's own, from an attempt whose confirmation failed
				continue
			}
			return LeaseInfo{}, l.takenError(ctx, rec.Seq)
		case errors.Is(err, errNewerRecord):
			return LeaseInfo{}, l.takenError(ctx, newest)
		case errors.Is(err, errLogBroken):
			return LeaseInfo{}, fmt.Errorf("%w: %w: lease of %s: its record %d is gone (the log was deleted)",
				ErrLeaseLost, ErrLeaseTaken, l.store, rec.Seq-1)
		}
		return LeaseInfo{}, err
	}
}

// prune deletes the records and done objects older than the newest
// leaseKeep, best effort; l.mu is held.
func (l *Lease) prune(ctx context.Context) {
	if l.info.Seq%leaseKeep != 0 {
		return // a listing every leaseKeep records is enough
	}
	objs, err := l.store.List(ctx, LeasePrefix)
	if err != nil {
		return
	}
	_, all := leaseNumbers(objs)
	for name, n := range all {
		if n <= l.info.Seq-leaseKeep {
			l.store.Delete(ctx, name)
		}
	}
}

// Commit writes the run's shared state under the lease: it writes the
// lease's next record, a commit, which confirms that no other trainer took
// the run since this holder's last record and states the commit's window
// (LeaseOptions.Window); then it calls write with a context that ends with
// the window (and is not cancelled with ctx, so that a commit is not cut
// in half by an interrupt), and then records that the commit is over. A
// lease whose context ended with ctx (an interrupt) still commits: the
// record confirms it. When the lease was lost or released, Commit calls
// nothing and returns an error matching ErrLeaseLost (and ErrLeaseTaken
// when another trainer took it); write's error is returned as it is,
// wrapped to match ErrLeaseLost when the window passed.
func (l *Lease) Commit(ctx context.Context, write func(ctx context.Context) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cause := context.Cause(l.ctx); errors.Is(cause, ErrLeaseLost) || errors.Is(cause, errLeaseReleased) {
		return fmt.Errorf("commit: %w", cause)
	}
	until := time.Now().Add(l.opts.Window)
	rec, err := l.next(ctx, leaseCommit, until)
	if err != nil {
		if errors.Is(err, ErrLeaseTaken) {
			l.lose(err)
		}
		if !errors.Is(err, ErrLeaseLost) {
			err = fmt.Errorf("%w: confirm the lease: %w", ErrLeaseLost, err)
		}
		return fmt.Errorf("commit: %w", err)
	}
	wctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), until)
	err = write(wctx)
	late := wctx.Err() != nil
	cancel()
	dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), l.opts.Watch+time.Second)
	l.store.Put(dctx, LeaseDone(rec.Seq), strings.NewReader(rec.Token))
	dcancel()
	if err != nil && late {
		// A trainer that broke the lease may be reading the run already.
		err = fmt.Errorf("%w: a commit outlasted its window of %v: %w", ErrLeaseLost, l.opts.Window, err)
		l.lose(err)
	}
	return err
}

// Release stops renewing the lease and writes a release record when this
// holder still holds it, so the next trainer starts at once (within ctx, or
// 10 s when ctx has ended already). The lease's context is cancelled.
// Release may be called more than once.
func (l *Lease) Release(ctx context.Context) error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		defer l.mu.Unlock()
		if ctx.Err() != nil { // an interrupted caller still lets the run go
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
		}
		if !errors.Is(context.Cause(l.ctx), ErrLeaseTaken) {
			if _, rerr := l.next(ctx, leaseRelease, time.Time{}); rerr != nil && !errors.Is(rerr, ErrLeaseTaken) {
				err = fmt.Errorf("release lease: %w", rerr)
			}
		}
		l.cancel(errLeaseReleased)
	})
	return err
}

// OnlyLease reports whether the store holds nothing but the lease's
// objects and objects under the prefixes also: a new run whose trainer is
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

// isLeaseObject tells whether name is one of the lease's objects (or of an
// older version's lease).
func isLeaseObject(name string) bool {
	return strings.HasPrefix(name, LeasePrefix) || name == legacyLeaseObject || strings.HasPrefix(name, legacyTakeoversPrefix)
}

// The lease of older versions: one object, lease.json, rewritten at every
// renewal, and write-once takeover objects.
const (
	legacyLeaseObject     = "lease.json"
	legacyTakeoversPrefix = "lease-takeovers/"
)

// readLegacyLease reads an older version's lease.json.
func readLegacyLease(ctx context.Context, store *Store) (LeaseInfo, error) {
	data, err := store.Get(ctx, legacyLeaseObject)
	if err != nil {
		return LeaseInfo{}, err
	}
	return parseLease(store, legacyLeaseObject, data)
}

// clearLegacyLease refuses to take a run whose older version's lease is
// live (unless force), and deletes it when it is not: a trainer of an
// older version may still be running the run.
func clearLegacyLease(ctx context.Context, store *Store, me LeaseInfo, force bool) error {
	old, err := readLegacyLease(ctx, store)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil && !force && !leaseStale(old, time.Now(), me) {
		return heldError(store, old)
	}
	if err := store.Delete(ctx, legacyLeaseObject); err != nil {
		return fmt.Errorf("acquire lease: remove the older version's lease: %w", err)
	}
	if objs, err := store.List(ctx, legacyTakeoversPrefix); err == nil {
		for _, o := range objs {
			store.Delete(ctx, o.Name)
		}
	}
	return nil
}
