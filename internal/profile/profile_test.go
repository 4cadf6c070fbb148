package profile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStartCPU_WritesTheProfileWhenStoppedAndNothingOnAnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	stop, err := StartCPU(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the profile is at %s before it stopped: %v", path, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("profile %s after stop: %v, %v; want a file", path, st, err)
	}
	if _, err := StartCPU(filepath.Join(dir, "no", "such", "dir", "p")); err == nil {
		t.Error("a profile in a missing directory: no error")
	}
	if stop, err := StartCPU(""); err != nil || stop() != nil {
		t.Errorf("no path: %v, want no profile and no error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in %s: %v, want the profile alone", dir, entries)
	}
}
