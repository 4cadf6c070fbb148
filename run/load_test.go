package run

import (
	"context"
	"fmt"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/store"
	"github.com/millzero/millzero/store/miniotest"
)

// loadFollowers is how many self-play workers the load test runs beside
// the trainer; each writes shards of loadShardGames games, so several
// workers rename shards into a generation while the trainer and status
// list it.
const (
	loadFollowers  = 3
	loadShardGames = 32
	loadGens       = 2
	// loadDeadline bounds one run under load (about half a minute on
	// two idle cores, outage included).
	loadDeadline = 5 * time.Minute
)

// runUnderLoad runs a trainer that plays no games itself and loadFollowers
// `selfplay --follow` workers on the run at loc for loadGens generations of
// a tiny config (the workers start first and wait for the run), and checks
// that nothing died, every generation is in generations.csv once, and
// status counts every shard of the store once. outage, when not nil, is
// called while the run goes on (a store outage, say).
func runUnderLoad(t *testing.T, loc string, lease store.LeaseOptions, outage func()) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, loadFollowers)
	for i := range loadFollowers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := OpenWorker(ctx, loc, WorkerOptions{Options: Options{StorePatience: -1, Cache: t.TempDir()}, WaitForRun: true})
			if err != nil {
				if ctx.Err() == nil {
					errs <- fmt.Errorf("worker %d: open: %w", i, err)
				}
				return
			}
			defer w.Close()
			c := w.Config()
			c.SelfPlay.Workers, c.SelfPlay.GamesPerShard, c.SelfPlay.GamesInFlight = 1, loadShardGames, loadShardGames
			if _, err := w.Selfplay(ctx, 0, true); err != nil {
				errs <- fmt.Errorf("worker %d: %w", i, err)
			}
		}()
	}
	trainer, err := OpenTrainer(context.Background(), loc, "three-test", TrainerOptions{NoLocalSelfplay: true, Lease: lease,
		Options: Options{StorePatience: time.Minute, Cache: t.TempDir(), Progress: testProgress{t}}})
	if err != nil {
		t.Fatal(err)
	}
	defer trainer.Close()
	c := trainer.Config()
	c.Loop.Generations, c.Loop.Games, c.Loop.Steps = loadGens, 16, 5
	c.Gate.MaxGames, c.Gate.LadderPairs = 2, 0
	statusErrs := make(chan error, 1)
	reader, err := openReaderOn(ctx, trainer.wd.Store(), loc, Options{Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		// status, again and again, while the workers write.
		for ctx.Err() == nil {
			if _, err := reader.Status(ctx); err != nil && ctx.Err() == nil {
				statusErrs <- err
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	if outage != nil {
		go outage()
	}
	// A run that hangs fails with every goroutine's stack in the log,
	// instead of running into the suite's timeout.
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	watchdog := time.AfterFunc(loadDeadline, func() {
		buf := make([]byte, 1<<22)
		t.Errorf("the run under load did not end within %v; every goroutine:\n%s", loadDeadline, buf[:runtime.Stack(buf, true)])
		cancelRun()
		stop()
	})
	why, err := trainer.Run(runCtx)
	stop()
	wg.Wait()
	watchdog.Stop()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	select {
	case err := <-statusErrs:
		t.Errorf("status under load: %v", err)
	default:
	}
	if err != nil {
		t.Fatalf("the trainer under load: %v", err)
	}
	if !strings.Contains(why, fmt.Sprintf("budget of %d generations", loadGens)) {
		t.Fatalf("the trainer stopped: %s", why)
	}
	if got := strings.Join(mustLoad(t, trainer.gens).text("generation"), ","); got != "0,1" {
		t.Errorf("generations.csv has generations %s; want 0,1 once each", got)
	}
	if got := strings.Join(slices.Compact(mustLoad(t, trainer.loss).text("generation")), ","); got != "0,1" {
		t.Errorf("losses.csv has generations %s; want 0,1", got)
	}
	for _, name := range []string{"metrics/generations.csv", "metrics/losses.csv"} {
		stored, err := trainer.wd.Store().Get(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if own, err := os.ReadFile(trainer.wd.Path(name)); err != nil || string(own) != string(stored) {
			t.Errorf("the store's %s differs from the trainer's own (%v)", name, err)
		}
	}
	// Every shard in the store, counted from its own footer, once.
	st := trainer.wd.Store()
	objs, err := st.List(context.Background(), "games/")
	if err != nil {
		t.Fatal(err)
	}
	shards, games := map[int]int{}, map[int]int{}
	seen := map[string]bool{}
	for _, o := range objs {
		if !strings.HasSuffix(o.Name, dataset.ShardExt) {
			continue
		}
		if seen[o.Name] {
			t.Errorf("%s listed twice", o.Name)
		}
		seen[o.Name] = true
		g, _ := store.ParseModelName(path.Base(path.Dir(o.Name)))
		k, err := readShardCount(context.Background(), st, o)
		if err != nil {
			t.Fatalf("shard %s: %v", o.Name, err)
		}
		shards[g]++
		games[g] += k.Games
	}
	status := statusOf(t, trainer.wd.Store(), loc)
	recorded := mustLoad(t, trainer.gens).column("games")
	for _, gs := range status.PerGen {
		if gs.Shards != shards[gs.Generation] || gs.Games != games[gs.Generation] {
			t.Errorf("status of generation %d: %d shards, %d games; the store has %d, %d", gs.Generation, gs.Shards, gs.Games,
				shards[gs.Generation], games[gs.Generation])
		}
		if g := gs.Generation; g < len(recorded) && (int(recorded[g]) < c.Loop.Games || int(recorded[g]) > games[g]) {
			t.Errorf("generation %d recorded %v games; want at least %d and at most the %d its shards hold", g, recorded[g], c.Loop.Games, games[g])
		}
	}
	t.Logf("%d shards in %d generations", len(seen), len(status.PerGen))
}

func TestLoad_TrainerAndFollowersOnADirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("two generations with three workers")
	}
	runUnderLoad(t, t.TempDir()+"/run", store.LeaseOptions{}, nil)
}

func TestLoad_TrainerAndFollowersOnMinIO_RideOutAnOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("two generations with three workers")
	}
	srv := miniotest.Start(t)
	srv.CreateBucket(t, "runs")
	// The store goes away for longer than the trainer's lease lives: the
	// workers wait, the trainer's lease lapses, and the trainer takes it
	// back when the store answers again.
	runUnderLoad(t, srv.URL("runs", "load"), store.LeaseOptions{TTL: 3 * time.Second}, func() {
		time.Sleep(4 * time.Second)
		t.Logf("%s the store stops for 5 s", time.Now().Format("15:04:05.000"))
		if err := srv.Outage(5 * time.Second); err != nil {
			t.Errorf("restart MinIO: %v", err)
		}
		t.Logf("%s the store answers again", time.Now().Format("15:04:05.000"))
	})
}

// testProgress logs the loop's lasting lines in the test's log.
type testProgress struct{ t *testing.T }

func (testProgress) Update(string, ...any) {}
func (p testProgress) Done(format string, args ...any) {
	p.t.Logf("%s "+format, append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}
