package dataset

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writerDirEnv makes the test binary a shard writer that never stops (see
// TestHelperProcess_WriteShardsForever).
const writerDirEnv = "MILLZERO_DATASET_WRITER_DIR"

// TestHelperProcess_WriteShardsForever is not a test: run with writerDirEnv
// set, it writes shards into that directory until killed.
func TestHelperProcess_WriteShardsForever(t *testing.T) {
	dir := os.Getenv(writerDirEnv)
	if dir == "" {
		t.Skip("a helper process for TestShardWriter_KilledWritersLeaveOnlyCompleteShards")
	}
	samples := playGames(t, "nine", 12, uint64(os.Getpid()), 1, 150)
	for {
		writeShard(t, dir, samples)
	}
}

func TestShardWriter_KilledWritersLeaveOnlyCompleteShards(t *testing.T) {
	games := t.TempDir()
	dir := generationDir(games, 1)
	var procs []*exec.Cmd
	for i := 0; i < 2; i++ { // two processes writing into one generation at once
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess_WriteShardsForever$")
		cmd.Env = append(os.Environ(), writerDirEnv+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	// Kill them once each has completed a few shards (a loaded machine may
	// start one process well after the other).
	perWriter := func() map[string]int {
		n := map[string]int{}
		shards, _ := filepath.Glob(filepath.Join(dir, "*"+ShardExt))
		for _, path := range shards {
			parts := strings.Split(filepath.Base(path), "-")
			n[parts[len(parts)-2]]++ // the pid
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := perWriter()
		done := len(n) == 2
		for _, k := range n {
			done = done && k >= 3
		}
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, cmd := range procs {
		cmd.Process.Kill()
		cmd.Wait()
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "*"+ShardExt))
	if len(shards) < 6 {
		t.Fatalf("the writers completed %d shards in 30 s", len(shards))
	}
	hosts := map[string]bool{}
	var rows int
	for _, path := range shards {
		got, err := ReadShard(path)
		if err != nil {
			t.Fatalf("a killed writer left a bad shard: %v", err)
		}
		rows += len(got)
		parts := strings.Split(filepath.Base(path), "-")
		hosts[parts[len(parts)-2]] = true // the pid
	}
	if len(hosts) != 2 {
		t.Errorf("shards from %d processes, want 2", len(hosts))
	}
	logger, logs := captureLog()
	w := open(t, games, WindowOptions{Logger: logger})
	if n := len(readAll(t, w)); n != rows {
		t.Errorf("the window read %d samples of %d", n, rows)
	}
	if logs.Len() != 0 {
		t.Errorf("the window warned:\n%s", logs)
	}
}
