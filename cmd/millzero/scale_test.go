package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/syncbuf"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
	"github.com/millzero/millzero/store/miniotest"
)

// The scale-out roles end to end on a real S3 (MinIO on loopback): one
// trainer that plays no games and two `selfplay --follow` workers, three
// generations of three-test. A worker is killed (SIGKILL) while it plays
// and uploads, and the trainer in the middle of a generation; both are
// started again. Then nothing may be lost or counted twice, and every
// object of the run must be readable.
func TestScaleOut_MinIO_TrainerAndFollowWorkersSurviveKills(t *testing.T) {
	if testing.Short() {
		t.Skip("three generations on MinIO with child processes")
	}
	srv := miniotest.Start(t)
	srv.CreateBucket(t, "runs")
	url := srv.URL("runs", "three")
	gens := 3
	train := []string{"train", "--config", "three-test", "--run", url, "--generations", fmt.Sprint(gens),
		"--local-selfplay=false", "--cache", filepath.Join(t.TempDir(), "trainer")}
	worker := func(name string) []string {
		return []string{"selfplay", "--run", url, "--follow", "--workers", "1", "--cache", filepath.Join(t.TempDir(), name)}
	}
	stopAll := func(cmds ...*exec.Cmd) {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}

	var tout, aout, bout syncbuf.Buffer
	trainer := child(t, &tout, train...)
	waitFor(t, &tout, "run "+url) // the lease is taken and run.yaml is in the store
	a := child(t, &aout, worker("a")...)
	b := child(t, &bout, worker("b")...)
	defer func() { stopAll(a, b) }()

	// Worker a dies after its first round, while it plays (and, when the
	// round ends, uploads) its second.
	waitFor(t, &aout, "selfplay into generation")
	time.Sleep(time.Duration(200+rand.IntN(800)) * time.Millisecond)
	a.Process.Signal(syscall.SIGKILL)
	a.Wait()
	aout.Reset()
	a = child(t, &aout, worker("a")...)

	// The trainer dies in the middle of generation 1.
	waitFor(t, &tout, "generation 1")
	time.Sleep(time.Duration(rand.IntN(1500)) * time.Millisecond)
	trainer.Process.Signal(syscall.SIGKILL)
	trainer.Wait()
	tout.Reset()
	trainer = child(t, &tout, train...)
	done := make(chan error, 1)
	go func() { done <- trainer.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(tout.String(), "reached the budget of 3 generations") {
			t.Fatalf("the resumed trainer: %v\n%s", err, tout.String())
		}
	case <-time.After(10 * time.Minute):
		stopAll(trainer)
		t.Fatalf("the resumed trainer did not finish in 10 minutes:\n%s", tout.String())
	}
	t.Logf("the resumed trainer:\n%s", tout.String())
	// The workers stop cleanly on SIGTERM.
	for _, w := range []*exec.Cmd{a, b} {
		w.Process.Signal(syscall.SIGTERM)
		if err := w.Wait(); err != nil {
			t.Errorf("a worker stopped with %v", err)
		}
	}
	a, b = exec.Command("true"), exec.Command("true") // nothing left to stop
	a.Start()
	b.Start()
	checkStoreRun(t, url, gens)
	// An arena beside the run adds its records to the store.
	code, out, errOut := runCmd("arena", "random", "alphabeta:1", "--variant", "three", "--games", "2", "--run", url,
		"--cache", filepath.Join(t.TempDir(), "arena"), "--all")
	if code != 0 || !strings.Contains(out, "rating all") {
		t.Fatalf("arena --run URL: exit %d %s\n%s", code, errOut, out)
	}
	checkStoreRun(t, url, gens)
	// The commands that read a model take the URL too.
	onnxPath := filepath.Join(t.TempDir(), "three.onnx")
	for _, args := range [][]string{{"export", "--run", url, "--out", onnxPath}, {"oracle", "--run", url}, {"status", "--run", url}} {
		if code, out, errOut := runCmd(args...); code != 0 {
			t.Errorf("%s --run URL: exit %d %s\n%s", args[0], code, errOut, out)
		}
	}
}

// checkStoreRun reads every object of the run at url back and checks that
// each generation has its games, checkpoint and metrics row once, every
// arena game is recorded once, and the lease was released.
func checkStoreRun(t *testing.T, url string, gens int) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg, _, err := runconfig.LoadConfig("three-test")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := engine.Load(cfg.Variant)
	if info, err := store.ReadLease(ctx, st); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lease was not released: %+v, %v", info, err)
	}
	dir := t.TempDir()
	objs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	games := map[string]int{}
	arenaGames := map[string]bool{}
	for _, o := range objs {
		local := filepath.Join(dir, filepath.FromSlash(o.Name))
		if err := st.Download(ctx, o.Name, local); err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		switch {
		case strings.HasPrefix(o.Name, store.LeasePrefix):
			// the lease's records: checked below
		case strings.HasPrefix(o.Name, "games/") && strings.HasSuffix(o.Name, dataset.ShardExt):
			n, err := selfplay.ShardGames(local)
			if err != nil {
				t.Errorf("%s: %v", o.Name, err)
			}
			if _, err := dataset.ReadShard(local); err != nil {
				t.Errorf("%s: %v", o.Name, err)
			}
			games[filepath.Base(filepath.Dir(local))] += n
		case strings.HasPrefix(o.Name, "models/gen-"):
			if _, err := model.LoadCheckpointFor(local, v); err != nil {
				t.Errorf("%s: %v", o.Name, err)
			}
		case strings.HasPrefix(o.Name, "arena/") && strings.HasSuffix(o.Name, arena.RecordExt):
			recs, err := arena.ReadRecords(local)
			if err != nil {
				t.Errorf("%s: %v", o.Name, err)
			}
			for _, r := range recs {
				k := fmt.Sprintf("%s/%d/%d", r.Match, r.Pair, r.Game)
				if arenaGames[k] {
					t.Errorf("arena game %s recorded twice", k)
				}
				arenaGames[k] = true
			}
		}
	}
	for g := 0; g < gens; g++ {
		if n := games[store.ModelName(g)]; n < cfg.Loop.Games {
			t.Errorf("generation %d: %d games in the store, want %d or more", g, n, cfg.Loop.Games)
		}
		if _, err := model.LoadCheckpointFor(filepath.Join(dir, "models", store.ModelName(g+1)+".safetensors"), v); err != nil {
			t.Errorf("checkpoint of generation %d: %v", g+1, err)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "metrics", "generations.csv"))
	if len(rows) != gens+1 {
		t.Fatalf("generations.csv has %d rows, want %d", len(rows)-1, gens)
	}
	seen := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(dir, "metrics", "losses.csv"))[1:] {
		key := r[0] + "/" + r[1] + "/" + r[2]
		if seen[key] {
			t.Errorf("loss row %s written twice", key)
		}
		seen[key] = true
	}
}
