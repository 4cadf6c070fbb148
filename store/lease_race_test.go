package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// raceTable is the object the race test's trainers commit generations to:
// one line "GENERATION,TRAINER" a generation, rewritten whole by each
// commit, as the loop rewrites generations.csv.
const raceTable = "metrics/generations.csv"

// raceOpts are the race test's lease timings: the holder renews and looks
// for a break every millisecond, so renewals and the break meet.
// The window is long, so that a store slowed down by a loaded machine
// does not make a commit outlast it.
var raceOpts = LeaseOptions{TTL: time.Minute, Renew: 2 * time.Millisecond, Watch: time.Millisecond, Window: 20 * time.Second}

// commitGeneration is a commit of trainer who: the table's next generation.
// It pauses pause inside the commit, so that a break lands in an open
// commit now and then.
func commitGeneration(st *Store, who string, pause time.Duration) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		data, err := st.Get(ctx, raceTable)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		text := string(data)
		g := strings.Count(text, "\n")
		time.Sleep(pause)
		return st.PutReplace(ctx, raceTable, []byte(text+fmt.Sprintf("%d,%s\n", g, who)))
	}
}

// breakRound is one round of the race: trainer a holds the run, renewing
// and committing generation after generation; after a random pause
// trainer b breaks the lease and commits two generations. It returns
// what went wrong: a not stopped, a generation committed twice or not in
// order, a commit of a after b's first, or another holder than b.
func breakRound(st *Store, r *rand.Rand) error {
	ctx := context.Background()
	a, err := AcquireLease(ctx, st, "a", raceOpts)
	if err != nil {
		return fmt.Errorf("a: %w", err)
	}
	defer a.Release(ctx)
	aDone := make(chan error, 1)
	go func() {
		for {
			if err := a.Commit(ctx, commitGeneration(st, "a", time.Duration(r.IntN(300))*time.Microsecond)); err != nil {
				aDone <- err
				return
			}
		}
	}()
	time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond)
	b, _, err := BreakLease(ctx, st, "b", raceOpts)
	if err != nil {
		return fmt.Errorf("b: %w", err)
	}
	defer b.Release(ctx)
	for range 2 {
		if err := b.Commit(ctx, commitGeneration(st, "b", 0)); err != nil {
			return fmt.Errorf("b's commit: %w", err)
		}
	}
	select {
	case err := <-aDone:
		if !errors.Is(err, ErrLeaseTaken) {
			return fmt.Errorf("a stopped with %v; want ErrLeaseTaken", err)
		}
	case <-time.After(5 * time.Second):
		return errors.New("a went on committing after its lease was broken")
	}
	if !errors.Is(context.Cause(a.Context()), ErrLeaseTaken) || b.Context().Err() != nil {
		return fmt.Errorf("a's lease: %v, b's: %v; want a's taken and b's held", context.Cause(a.Context()), context.Cause(b.Context()))
	}
	if cur, err := ReadLease(ctx, st); err != nil || cur.Token != b.Info().Token {
		return fmt.Errorf("the lease is %+v (%v); want b's", cur, err)
	}
	data, err := st.Get(ctx, raceTable)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	seenB := false
	for i, line := range lines {
		gen, who, _ := strings.Cut(line, ",")
		if g, err := strconv.Atoi(gen); err != nil || g != i {
			return fmt.Errorf("row %d is generation %s (a generation written twice or lost): %q", i, gen, data)
		}
		if who == "a" && seenB {
			return fmt.Errorf("a committed generation %d after b's first commit: %q", i, data)
		}
		seenB = seenB || who == "b"
	}
	if !seenB {
		return fmt.Errorf("no commit of b in %q", data)
	}
	return nil
}

// raceRounds runs rounds rounds of breakRound, each on a new store from
// open, four at a time (each round waits on its store more than it
// computes), and fails the test with every round that went wrong.
func raceRounds(t *testing.T, rounds int, open func(i int) *Store) {
	seed := uint64(time.Now().UnixNano())
	errs := make([]error, rounds)
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = breakRound(open(i), rand.New(rand.NewPCG(seed, uint64(i))))
			}
		}()
	}
	for i := range rounds {
		next <- i
	}
	close(next)
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			t.Errorf("round %d: %v", i, err)
		}
	}
	t.Logf("%d of %d rounds: one holder, every generation once (%v, seed %d)", rounds-failed, rounds, time.Since(start).Round(time.Millisecond), seed)
}

func TestLease_RenewalAgainstBreakLease_OneHolderAndNoGenerationTwice(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 20
	}
	t.Run("mem", func(t *testing.T) {
		raceRounds(t, rounds, func(int) *Store {
			s, err := Open(context.Background(), "mem://")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("path", func(t *testing.T) {
		// In memory where the system has a memory file system: the race is
		// the store's, not the disk's, and a disk syncs each write for
		// milliseconds.
		base := t.TempDir()
		if shm, err := os.MkdirTemp("/dev/shm", "millzero-race-"); err == nil {
			base = shm
			t.Cleanup(func() { os.RemoveAll(shm) })
		}
		raceRounds(t, rounds, func(i int) *Store {
			s, err := Open(context.Background(), filepath.Join(base, strconv.Itoa(i)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
}
