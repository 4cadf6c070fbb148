package dataset

import (
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// A shard with random bytes overwritten is skipped with a warning (or, if
// the change touches nothing read, read): the reader never panics, hangs or
// fails.
func TestWindow_CorruptedBytesNeverStopTheReader(t *testing.T) {
	src := writeShard(t, t.TempDir(), playGames(t, "nine", 6, 12, 0, 80))
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	games := t.TempDir()
	dir := generationDir(games, 0)
	os.MkdirAll(dir, 0o755)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	skipped := 0
	const trials = 300
	for trial := 0; trial < trials; trial++ {
		bad := append([]byte(nil), data...)
		for k := 0; k < 1+rng.IntN(8); k++ {
			bad[rng.IntN(len(bad))] = byte(rng.Uint32())
		}
		path := filepath.Join(dir, "corrupt.parquet")
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := OpenWindow(games, WindowOptions{Logger: quiet, Shuffle: 8, Augment: true})
		if err != nil {
			t.Fatal(err)
		}
		var s Sample
		for {
			if err := w.Next(&s); err != nil {
				if err != io.EOF {
					t.Fatalf("trial %d: %v", trial, err)
				}
				break
			}
		}
		if len(w.bad) > 0 {
			skipped++
		}
		w.Close()
	}
	// Page checksums (CRC32, written and checked by parquet-go) and
	// Validate catch nearly every change; the few that get through touch
	// bytes no row depends on, such as footer statistics.
	if skipped < trials*9/10 {
		t.Errorf("only %d of %d corrupted copies were skipped", skipped, trials)
	}
	t.Logf("%d of %d corrupted copies skipped", skipped, trials)
}
