package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/millzero/millzero/internal/atomicfile"
)

func TestStoreList_WritersRenamingMeanwhile_NeverFailsNorListsTemp(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gen := filepath.Join(dir, "games", "gen-000003")
	if err := os.MkdirAll(gen, 0o777); err != nil {
		t.Fatal(err)
	}
	// Writers as self-play workers write shards: NAME.parquet.tmp, renamed
	// to NAME.parquet; and hidden temporary files that are removed.
	const perWriter = 300
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				final := filepath.Join(gen, fmt.Sprintf("w%d-%05d.parquet", w, i))
				if err := os.WriteFile(final+atomicfile.TempSuffix, []byte("x"), 0o666); err != nil {
					t.Error(err)
					return
				}
				if err := os.Rename(final+atomicfile.TempSuffix, final); err != nil {
					t.Error(err)
					return
				}
				hidden := filepath.Join(gen, fmt.Sprintf(".w%d.%d%s", w, i, atomicfile.TempSuffix))
				os.WriteFile(hidden, nil, 0o666)
				os.Remove(hidden)
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	prev, lists := 0, 0
	for finished := false; !finished; lists++ {
		select {
		case <-done:
			finished = true // one more listing, of every shard
		default:
		}
		objs, err := s.List(context.Background(), "games/")
		if err != nil {
			t.Fatalf("List while writers rename: %v", err)
		}
		for _, o := range objs {
			if atomicfile.IsTemp(o.Name) || !strings.HasPrefix(o.Name, "games/gen-000003/w") {
				t.Fatalf("List returned %s", o.Name)
			}
		}
		if len(objs) < prev {
			t.Fatalf("List lost shards: %d after %d", len(objs), prev)
		}
		prev = len(objs)
	}
	if prev != 3*perWriter {
		t.Fatalf("the last listing has %d shards; want %d", prev, 3*perWriter)
	}
	t.Logf("%d listings while the writers renamed", lists)
}

func TestStoreList_PrefixSelectsNamesAtAnyDepth(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, n := range []string{"models/gen-000001.safetensors", "models/best", "games/gen-000001/a.parquet", "games/gen-000010/b.parquet", "run.yaml"} {
		if err := s.Put(ctx, n, strings.NewReader(n)); err != nil {
			t.Fatal(err)
		}
	}
	for prefix, want := range map[string]string{
		"models/gen-":      "models/gen-000001.safetensors",
		"games/gen-000001": "games/gen-000001/a.parquet",
		"games/":           "games/gen-000001/a.parquet games/gen-000010/b.parquet",
		"run":              "run.yaml",
		"nothing/":         "",
	} {
		objs, err := s.List(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range objs {
			got = append(got, o.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("List(%q) = %v; want %s", prefix, got, want)
		}
	}
}

func TestIsTemp_OneRuleForEveryWriter(t *testing.T) {
	for name, want := range map[string]bool{
		"games/gen-000001/1-host-2-ab.parquet.tmp": true,  // a shard being written
		"models/.gen-000001.safetensors.x1.tmp":    true,  // atomicfile.CreateTemp
		"arena/rec.parquet.tmp":                    true,  // an arena record being written
		"games/gen-000001/1-host-2-ab.parquet":     false, // complete
		"tmp/run.yaml":                             false,
	} {
		if got := atomicfile.IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v; want %v", name, got, want)
		}
	}
}
