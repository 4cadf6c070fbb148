package run

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

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/internal/proc"
	"github.com/millzero/millzero/model"
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

// openTrainerTest opens the run in st for a trainer with its own cache,
// like a process on its own machine.
func openTrainerTest(t *testing.T, st *store.Store, cfgName string, opts TrainerOptions) *Trainer {
	t.Helper()
	l, err := openTrainerOn(context.Background(), st, "mem://test", trainerRequest(t, cfgName), withCache(t, opts))
	if err != nil {
		t.Fatal(err)
	}
	l.cfg.SelfPlay.Workers = 1
	return l
}

// trainerRequest is the config cfgName asks a trainer for.
func trainerRequest(t *testing.T, cfgName string) configRequest {
	t.Helper()
	req := configRequest{path: cfgName}
	req.cfg, req.text, req.err = runconfig.LoadConfig(cfgName)
	if req.err != nil {
		t.Fatal(req.err)
	}
	return req
}

// withCache is opts with a cache of the test's own.
func withCache(t *testing.T, opts TrainerOptions) TrainerOptions {
	opts.Cache = t.TempDir()
	return opts
}

// openWorkerTest opens the run in st for a worker with its own cache.
func openWorkerTest(t *testing.T, st *store.Store, opts Options) *Worker {
	t.Helper()
	opts.Cache = t.TempDir()
	w, err := openWorkerOn(context.Background(), st, "mem://test", WorkerOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	w.cfg.SelfPlay.Workers = 1
	return w
}

// statusOf is the status of the run in st at loc, read by a reader of its
// own cache (not closed: st is the caller's).
func statusOf(t *testing.T, st *store.Store, loc string) Status {
	t.Helper()
	r, err := openReaderOn(context.Background(), st, loc, Options{Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	status, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// shardInfos reads the store's shards of generation g through w's cache:
// each shard's name and what its footer says.
func shardInfos(t *testing.T, w *Worker, st *store.Store, g int) map[string]dataset.ShardInfo {
	t.Helper()
	infos := map[string]dataset.ShardInfo{}
	for _, name := range storeShards(t, st, g) {
		if err := w.wd.Pull(context.Background(), name); err != nil {
			t.Fatal(err)
		}
		info, err := dataset.Inspect(w.wd.Path(name))
		if err != nil {
			t.Fatal(err)
		}
		infos[name] = info
	}
	return infos
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
	trainer := openTrainerTest(t, st, "three-test", TrainerOptions{NoLocalSelfplay: true})
	trainer.cfg.Loop.Generations = 2
	trainer.cfg.Loop.Games, trainer.cfg.Loop.Steps = 128, 100
	// Every candidate is accepted, so models/best exists whatever two
	// short generations learn: this test is about roles, not the gate.
	trainer.cfg.Gate.MaxGames = 0
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	workers := make([]*Worker, 2)
	for i := range workers {
		workers[i] = openWorkerTest(t, st, Options{})
		wg.Add(1)
		go func(w *Worker) {
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
	reader := openWorkerTest(t, st, Options{}) // its cache, to look into the shards
	for g := 0; g < 2; g++ {
		games := 0
		for name, info := range shardInfos(t, reader, st, g) {
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
	status := statusOf(t, st, "mem://test")
	if status.Generations != 2 || len(status.PerGen) < 2 || status.PerGen[0].Games < trainer.cfg.Loop.Games || len(status.Workers) == 0 {
		t.Errorf("status %+v", status)
	}
}

// Between the two pushes of a commit the store holds the new best but not
// yet its generation's row (the trainer pushes models/best first and
// generations.csv, the commit point, last). A worker's round that reads
// the store then plays into the best's generation, never the one before
// it with the newer model.
func TestRoles_AWorkerBetweenTheTwoPushesOfACommitPlaysTheBestsGeneration(t *testing.T) {
	st := sharedStore(t)
	trainer := openTrainerTest(t, st, "three-test", TrainerOptions{}) // the run, with no generation row yet
	ctx := context.Background()
	net, err := model.New(trainer.v.Name, model.NewArch(trainer.v, trainer.cfg.TrunkAt(1)), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gen-000001.safetensors")
	if err := (&model.Checkpoint{Net: net, Generation: 1}).Save(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := st.Put(ctx, store.CheckpointObject(1), f); err != nil {
		t.Fatal(err)
	}
	if err := st.PutReplace(ctx, store.BestObject, []byte("1\n")); err != nil {
		t.Fatal(err)
	}
	w := openWorkerTest(t, st, Options{})
	if rows, err := w.gens.Rows(); err != nil || len(rows) != 0 {
		t.Fatalf("generation rows %v, %v; want none, the first commit half done", rows, err)
	}
	if _, err := w.round(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if shards := storeShards(t, st, 0); len(shards) != 0 {
		t.Errorf("generation 0 got shards %v from a round that found model 1 the best", shards)
	}
	infos := shardInfos(t, w, st, 1)
	if len(infos) == 0 {
		t.Fatal("no shard in generation 1")
	}
	for name, info := range infos {
		if m := info.Metadata[selfplay.ModelKey]; m != "1" {
			t.Errorf("%s: played by model %q, want 1", name, m)
		}
	}
}

func TestRoles_ASecondTrainerStopsAtOnceNamingTheHolder(t *testing.T) {
	st := sharedStore(t)
	openTrainerTest(t, st, "three-test", TrainerOptions{}) // the first trainer holds the lease
	start := time.Now()
	_, err := openTrainerOn(context.Background(), st, "mem://test", configRequest{}, withCache(t, TrainerOptions{}))
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
	if _, err := openWorkerOn(context.Background(), st, "mem://test", WorkerOptions{Options: Options{Cache: t.TempDir()}}); err != nil {
		t.Errorf("a worker beside the trainer: %v", err)
	}
}

func TestRoles_AWorkerThatCannotLoadTheModelPlaysNothingAndRetries(t *testing.T) {
	st := sharedStore(t)
	openTrainerTest(t, st, "three-test", TrainerOptions{}) // creates the run
	// The best pointer names a generation whose checkpoint is missing.
	if err := st.PutReplace(context.Background(), "models/best", []byte("3\n")); err != nil {
		t.Fatal(err)
	}
	var out progressLog
	w := openWorkerTest(t, st, Options{Progress: &out})
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
	l, err := OpenTrainer(context.Background(), dir, "three-test", TrainerOptions{})
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
	for role, open := range map[string]func() error{
		"trainer": func() error {
			_, err := OpenTrainer(context.Background(), dir, "three-test", TrainerOptions{})
			return err
		},
		"worker": func() error { _, err := OpenWorker(context.Background(), dir, WorkerOptions{}); return err },
		"reader": func() error { _, err := OpenReader(context.Background(), dir, Options{}); return err },
	} {
		if err := open(); err == nil || !strings.Contains(err.Error(), "something other than a run") {
			t.Errorf("%s: %v, want an error naming what is there", role, err)
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
	l, err := OpenTrainer(context.Background(), dir, "three-test", TrainerOptions{})
	if err != nil {
		t.Fatalf("after killed trainers: %v", err)
	}
	l.Close()
}

// A reader of a run (status) writes nothing of it, takes no lease, and
// neither opens nor builds endgame tables, also with tablebase: auto.
func TestRoles_AReaderNeverWritesLeasesOrOpensTables(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := filepath.Join(t.TempDir(), "run")
	cfg := writeFile(t, t.TempDir(), "c.yaml", "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 1, games: 16, steps: 4}\n"+
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\ngate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n")
	tr, err := OpenTrainer(context.Background(), dir, cfg, TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	// The run's tables are auto's from now on: a process that opened them
	// would build them in the user's cache.
	text, err := os.ReadFile(filepath.Join(dir, "run.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text = []byte(strings.Replace(string(text), `tablebase: ""`, "tablebase: auto", 1))
	if err := os.WriteFile(filepath.Join(dir, "run.yaml"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	r, err := OpenReader(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Status(context.Background())
	if err != nil || st.Generations != 1 || st.Lease != nil {
		t.Fatalf("status = %+v, %v; want one generation and no lease held", st, err)
	}
	r.Close()
	if after := snapshot(t, dir); after != before {
		t.Errorf("the reader changed the run:\nbefore %s\nafter  %s", before, after)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("the reader put %d entries in the user cache (tables?)", len(entries))
	}
}

// snapshot is every file of dir with its size and modification time.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d;", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
