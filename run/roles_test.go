package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/internal/proc"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// sharedStore is an object store (not a local directory) that several
// loops of one test share, as processes share a bucket.
func sharedStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "mem://test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// openTest opens the run in st with its own cache, like a process on its
// own machine.
func openTest(t *testing.T, st *store.Store, cfgName string, opts Options) *Loop {
	t.Helper()
	cfg, text, err := runconfig.LoadConfig(cfgName)
	if err != nil {
		t.Fatal(err)
	}
	opts.Cache = t.TempDir()
	l, err := openOn(context.Background(), st, "mem://test", cfg, text, cfgName != "", opts)
	if err != nil {
		t.Fatal(err)
	}
	l.cfg.SelfPlay.Workers = 1
	return l
}

// storeShards lists the store's shards of generation g.
func storeShards(t *testing.T, st *store.Store, g int) []string {
	t.Helper()
	objs, err := st.List(context.Background(), store.ShardsPrefix(g))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		if strings.HasSuffix(o.Name, dataset.ShardExt) {
			names = append(names, o.Name)
		}
	}
	return names
}

func TestRoles_TrainerWaitsForFollowingWorkersAndTrainsOnTheirGames(t *testing.T) {
	if testing.Short() {
		t.Skip("two generations of three-test with two workers")
	}
	st := sharedStore(t)
	trainer := openTest(t, st, "three-test", Options{NoLocalSelfplay: true})
	trainer.cfg.Loop.Generations = 2
	trainer.cfg.Loop.Games, trainer.cfg.Loop.Steps = 128, 100
	// Every candidate is accepted, so models/best exists whatever two
	// short generations learn: this test is about roles, not the gate.
	trainer.cfg.Gate.MaxGames = 0
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	workers := make([]*Loop, 2)
	for i := range workers {
		workers[i] = openTest(t, st, "", Options{Existing: true})
		wg.Add(1)
		go func(w *Loop) {
			defer wg.Done()
			if _, err := w.Selfplay(ctx, 0, true); err != nil {
				t.Errorf("worker: %v", err)
			}
		}(workers[i])
	}
	why, err := trainer.Run(context.Background())
	stop()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if err := trainer.lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(why, "budget of 2 generations") {
		t.Fatalf("stopped: %s", why)
	}
	// The store holds what a run needs, uploaded by the trainer.
	for _, name := range []string{"run.yaml", "models/best", "models/gen-000001.safetensors", "models/gen-000002.safetensors",
		"metrics/generations.csv", "metrics/losses.csv", "arena/ratings.csv", "metrics/elo.png"} {
		if ok, err := st.Exists(ctx, name); err != nil || !ok {
			t.Errorf("store lacks %s (%v)", name, err)
		}
	}
	if info, err := store.ReadLease(ctx, st); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lease was not released: %+v, %v", info, err)
	}
	// Every game of a generation is the workers', each shard tagged with
	// the model that played it: none in generation 0, the best after.
	reader := openTest(t, st, "", Options{Existing: true})
	for g := 0; g < 2; g++ {
		shards := storeShards(t, st, g)
		games := 0
		for _, name := range shards {
			if err := reader.wd.Pull(ctx, name); err != nil {
				t.Fatal(err)
			}
			info, err := dataset.Inspect(reader.wd.Path(name))
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.Atoi(info.Metadata[selfplay.GamesKey])
			games += n
			model, err := strconv.Atoi(info.Metadata[selfplay.ModelKey])
			if err != nil || model > g || (g == 0 && model != 0) {
				t.Errorf("%s: played by model %q, want a generation up to %d", name, info.Metadata[selfplay.ModelKey], g)
			}
		}
		if games < trainer.cfg.Loop.Games {
			t.Errorf("generation %d: %d games in the store, want at least %d", g, games, trainer.cfg.Loop.Games)
		}
	}
	rows := mustLoad(t, trainer.gens).rows
	if len(rows) != 2 {
		t.Fatalf("%d generation rows, want 2", len(rows))
	}
	// Status reads the same from the store.
	status, err := reader.Status(context.Background()) // ctx ended with the workers
	if err != nil {
		t.Fatal(err)
	}
	if status.Generations != 2 || len(status.PerGen) < 2 || status.PerGen[0].Games < trainer.cfg.Loop.Games || len(status.Workers) == 0 {
		t.Errorf("status %+v", status)
	}
}

func TestRoles_ASecondTrainerStopsAtOnceNamingTheHolder(t *testing.T) {
	st := sharedStore(t)
	openTest(t, st, "three-test", Options{}) // the first trainer holds the lease
	cfg, text, err := runconfig.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = openOn(context.Background(), st, "mem://test", cfg, text, false, Options{Cache: t.TempDir()})
	if !errors.Is(err, store.ErrLeaseHeld) || !strings.Contains(err.Error(), `"train"`) {
		t.Fatalf("a second trainer: %v, want the lease's holder named", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the second trainer took %s to stop", el)
	}
	if shards := storeShards(t, st, 0); len(shards) != 0 {
		t.Errorf("the second trainer played %d shards", len(shards))
	}
	// A worker opens the run beside the trainer.
	if _, err := openOn(context.Background(), st, "mem://test", cfg, text, false, Options{Cache: t.TempDir(), Existing: true}); err != nil {
		t.Errorf("a worker beside the trainer: %v", err)
	}
}

func TestRoles_AWorkerThatCannotLoadTheModelPlaysNothingAndRetries(t *testing.T) {
	st := sharedStore(t)
	openTest(t, st, "three-test", Options{}) // creates the run
	// The best pointer names a generation whose checkpoint is missing.
	if err := st.PutReplace(context.Background(), "models/best", []byte("3\n")); err != nil {
		t.Fatal(err)
	}
	var out progressLog
	w := openTest(t, st, "", Options{Existing: true, Progress: &out})
	ctx, stop := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer stop()
	total, err := w.Selfplay(ctx, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if total.Games != 0 || len(storeShards(t, st, 0)) != 0 {
		t.Errorf("%d games played, %d shards, with no model loaded", total.Games, len(storeShards(t, st, 0)))
	}
	if !strings.Contains(out.String(), "cannot load the best model gen-000003") || !strings.Contains(out.String(), "trying again") {
		t.Errorf("the worker said %q", out.String())
	}
	// Without --follow it is an error.
	if _, err := w.Selfplay(context.Background(), 1, false); err == nil || !strings.Contains(err.Error(), "gen-000003") {
		t.Errorf("without follow: %v", err)
	}
}

// progressLog keeps the lines shown.
type progressLog struct {
	mu    sync.Mutex
	lines []string
}

func (p *progressLog) Update(string, ...any) {}
func (p *progressLog) Done(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}
func (p *progressLog) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

func TestRoles_ANewRunWhoseTrainerDiedBeforeItsConfigStartsAgain(t *testing.T) {
	dir := t.TempDir()
	// What a trainer killed between taking the lease and writing run.yaml
	// leaves: an expired lease of a process that is gone.
	stale := `{"holder":"train","host":"elsewhere","pid":1,"acquired":"2020-01-01T00:00:00Z","renewed":"2020-01-01T00:00:00Z","expires":"2020-01-01T00:01:00Z","token":"t","seq":1,"kind":"take"}`
	if err := os.MkdirAll(filepath.Join(dir, store.LeasePrefix), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.LeaseRecord(1)), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(context.Background(), dir, "three-test", Options{})
	if err != nil {
		t.Fatalf("a new run with only a stale lease: %v", err)
	}
	l.Close()
	if _, err := os.Stat(filepath.Join(dir, "run.yaml")); err != nil {
		t.Error(err)
	}
}

func TestRoles_ARunLocationHoldingSomethingElseIsRefusedBeforeAnyWork(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a run"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {Existing: true}} {
		_, err := Open(context.Background(), dir, "three-test", opts)
		if err == nil || !strings.Contains(err.Error(), "something other than a run") {
			t.Errorf("trainer %v: %v, want an error naming what is there", !opts.Existing, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, store.LeasePrefix)); !os.IsNotExist(err) {
		t.Errorf("the refused trainer left its lease: %v", err)
	}
}

// A trainer killed right after it took a crashed trainer's lease leaves
// both records behind (and an older version's lease.json of a trainer
// killed too); the next trainer on the host goes on at once: every
// process is gone.
func TestRoles_ATrainerKilledRightAfterTakingTheLeaseDoesNotBlockTheNext(t *testing.T) {
	dir := t.TempDir()
	host := proc.Host()
	lease := func(seq int64, pid int, token string) string {
		now := time.Now().UTC()
		return fmt.Sprintf(`{"holder":"train","host":%q,"pid":%d,"boot":%q,"pidns":%q,"acquired":%q,"renewed":%q,"expires":%q,"token":%q,"seq":%d,"kind":"take"}`,
			host, pid, proc.BootID(), proc.PIDNamespace(), now.Format(time.RFC3339), now.Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339), token, seq)
	}
	const gone1, gone2 = 1 << 30, 1<<30 + 1 // no such processes
	if err := os.WriteFile(filepath.Join(dir, "lease.json"), []byte(lease(0, gone1, "older")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, store.LeasePrefix), 0o755); err != nil {
		t.Fatal(err)
	}
	for seq, pid := range map[int64]int{1: gone1, 2: gone2} {
		if err := os.WriteFile(filepath.Join(dir, store.LeaseRecord(seq)), []byte(lease(seq, pid, fmt.Sprint("t", seq))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(context.Background(), dir, "three-test", Options{})
	if err != nil {
		t.Fatalf("after killed trainers: %v", err)
	}
	l.Close()
}
