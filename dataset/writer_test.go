package dataset

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
)

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestShardWriter_NothingVisibleUntilCloseThenOneCompleteShard(t *testing.T) {
	dir := generationDir(t.TempDir(), 3)
	w, err := NewShardWriter(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(playGames(t, "nine", 2, 3, 3, 50)...); err != nil {
		t.Fatal(err)
	}
	if names := files(t, dir); len(names) != 0 {
		t.Fatalf("before Close the directory holds %v, want nothing", names)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	names := files(t, dir)
	if len(names) != 1 || !strings.HasSuffix(names[0], ShardExt) || filepath.Join(dir, names[0]) != w.Path() {
		t.Fatalf("after Close the directory holds %v, want just %s", names, filepath.Base(w.Path()))
	}
	if err := w.Write(playGames(t, "nine", 1, 3, 3, 5)...); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
}

func TestShardWriter_NoSamplesOrAbortWritesNothing(t *testing.T) {
	dir := t.TempDir()
	empty, err := NewShardWriter(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.Close(); err != nil {
		t.Fatal(err)
	}
	aborted, err := NewShardWriter(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := aborted.Write(playGames(t, "three", 1, 4, 0, 20)...); err != nil {
		t.Fatal(err)
	}
	aborted.Abort()
	if names := files(t, dir); len(names) != 0 {
		t.Fatalf("directory holds %v, want nothing", names)
	}
}

func TestShardWriter_NamesAreUniqueAndSortByTime(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	prev := ""
	for i := 0; i < 200; i++ {
		w, err := NewShardWriter(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(w.Path())
		if seen[name] {
			t.Fatalf("name %s given twice", name)
		}
		seen[name] = true
		// Names begin with 20 digits of Unix nanoseconds.
		if name[:20] < prev {
			t.Fatalf("name %s sorts before the earlier %s", name, prev)
		}
		prev = name[:20]
	}
}

func TestShardWriter_ReservedMetadataKeyIsRefused(t *testing.T) {
	if _, err := NewShardWriter(t.TempDir(), map[string]string{FormatKey: "2"}); err == nil {
		t.Fatal("NewShardWriter accepted a millzero.* metadata key")
	}
}

func TestShardWriter_InvalidSampleIsRefusedAndNothingOfTheCallKept(t *testing.T) {
	good := playGames(t, "nine", 1, 5, 0, 30)
	cases := map[string]func(s *Sample){
		"unknown variant":         func(s *Sample) { s.Variant = "chess" },
		"empty game id":           func(s *Sample) { s.GameID = "" },
		"side beyond the players": func(s *Sample) { s.Position.Side = 2 },
		"piece off the board":     func(s *Sample) { s.Position.Pieces[0] |= 1 << 30 },
		"two seats on one point":  func(s *Sample) { s.Position.Pieces[0], s.Position.Pieces[1] = 1, 1 },
		"pieces of a third seat":  func(s *Sample) { s.Position.Pieces[2] = 1 << 5 },
		"action outside space":    func(s *Sample) { s.Policy = []PolicyEntry{{Action: 9999, Prob: 1}} },
		"probability NaN":         func(s *Sample) { s.Policy = []PolicyEntry{{Action: 0, Prob: float32(math.NaN())}} },
		"outcome beyond a draw":   func(s *Sample) { s.Outcome = 3 },
		"rotation on square":      func(s *Sample) { s.Position.LastRotation = 1 },
		"root value infinite":     func(s *Sample) { s.RootValue = float32(math.Inf(1)) },
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			w, err := NewShardWriter(t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			bad := append([]Sample(nil), good...)
			bad[len(bad)-1].Policy = append([]PolicyEntry(nil), bad[len(bad)-1].Policy...)
			spoil(&bad[len(bad)-1])
			if err := w.Write(bad...); err == nil {
				t.Fatal("Write accepted the sample")
			}
			if w.Len() != 0 {
				t.Fatalf("after a refused Write the shard holds %d samples", w.Len())
			}
		})
	}
	v, _ := engine.Load("nine")
	for i := range good {
		if err := Validate(v, &good[i]); err != nil {
			t.Fatalf("played sample %d invalid: %v", i, err)
		}
	}
}

func TestRemoveStaleTemp_DeletesOldAndDeadWritersTemporaryFilesOnly(t *testing.T) {
	games := t.TempDir()
	dir := generationDir(games, 2)
	shard := writeShard(t, dir, playGames(t, "three", 1, 6, 2, 10))
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mine := atomicfile.TempName(filepath.Join(dir, "3-host-1-cc"+ShardExt))
	deadOne := strings.Replace(mine, fmt.Sprintf("~%d~", os.Getpid()), fmt.Sprintf("~%d~", dead.Process.Pid), 1)
	old := filepath.Join(dir, "1-host-1-aa"+ShardExt+TempExt)
	fresh := filepath.Join(dir, "2-host-1-bb"+ShardExt+TempExt)
	for _, p := range []string{old, fresh, mine, deadOne} {
		if err := os.WriteFile(p, []byte("PAR1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	n, err := RemoveStaleTemp(games, time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("RemoveStaleTemp = %d, %v; want 2 removed", n, err)
	}
	for p, want := range map[string]bool{old: false, deadOne: false, fresh: true, mine: true, shard: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
