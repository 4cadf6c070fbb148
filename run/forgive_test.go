package run

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/millzero/millzero/model"
)

// A run's files get the mode the user's umask gives a new file, so a
// second user or a container with another uid can read and add to it:
// metrics and run.yaml (saveFile), checkpoints (model.WriteFileAtomic) and
// every object of a local store; directories likewise.
func TestRunFiles_FollowTheUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o002} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		st, err := OpenStore(context.Background(), filepath.Join(dir, "run"))
		if err != nil {
			syscall.Umask(old)
			t.Fatal(err)
		}
		err = saveFile(filepath.Join(dir, "metrics", "generations.csv"), []byte("generation\n"))
		if err == nil {
			err = model.WriteFileAtomic(filepath.Join(dir, "gen-000001.safetensors"), func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
		}
		if err == nil {
			err = st.Put(context.Background(), "games/gen-000000/a.parquet", bytes.NewReader([]byte("x")))
		}
		syscall.Umask(old)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"metrics", "run/games/gen-000000"} {
			info, err := os.Stat(filepath.Join(dir, d))
			if err != nil {
				t.Fatal(err)
			}
			if want := os.FileMode(0o777 &^ mask); info.Mode().Perm() != want {
				t.Errorf("umask %03o: directory %s has mode %v, want %v", mask, d, info.Mode().Perm(), want)
			}
		}
		want := os.FileMode(0o666 &^ mask)
		for _, p := range []string{"metrics/generations.csv", "gen-000001.safetensors", "run/games/gen-000000/a.parquet"} {
			info, err := os.Stat(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != want {
				t.Errorf("umask %03o: %s has mode %v, want %v", mask, p, info.Mode().Perm(), want)
			}
		}
	}
}
