package tablebase

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiles_BuildWritesWhatOpenReads builds nine's 3 v 3 into a directory,
// reads it back, and checks that a second build reuses the file.
func TestFiles_BuildWritesWhatOpenReads(t *testing.T) {
	v := load(t, "nine")
	dir := t.TempDir()
	var built []string
	s, err := Build(v, BuildOptions{Pieces: 6, Dir: dir, Done: func(m Material, path string, reused bool) {
		if reused {
			t.Errorf("%s: reused in an empty directory", m)
		}
		built = append(built, filepath.Base(path))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 1 || built[0] != "nine-3v3.mtb" {
		t.Fatalf("built %v, want [nine-3v3.mtb]", built)
	}
	o, err := Open(v, dir, 6)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Table(Material{3, 3}), o.Table(Material{3, 3})
	if a.width != b.width || string(a.data) != string(b.data) {
		t.Fatal("the table read back differs from the one built")
	}
	reused := false
	if _, err := Build(v, BuildOptions{Pieces: 6, Dir: dir, Done: func(_ Material, _ string, r bool) { reused = r }}); err != nil || !reused {
		t.Fatalf("second build: err %v, reused %v; want the file reused", err, reused)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestFiles_BadFilesAreErrorsNamingTheFile corrupts, truncates and
// mislabels a table file, and removes one.
func TestFiles_BadFilesAreErrorsNamingTheFile(t *testing.T) {
	v := load(t, "nine")
	dir := t.TempDir()
	if _, err := Build(v, BuildOptions{Pieces: 6, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "nine-3v3.mtb")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	diag := t.TempDir()
	if _, err := Build(load(t, "nine-diagonal"), BuildOptions{Pieces: 6, Dir: diag}); err != nil {
		t.Fatal(err)
	}
	foreign, err := os.ReadFile(filepath.Join(diag, "nine-diagonal-3v3.mtb"))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 0x40
		return b
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"corrupted entry", flip(len(good) - 100), "checksum mismatch"},
		{"corrupted header", flip(20), "header checksum"},
		{"truncated", good[:len(good)-1], "truncated"},
		{"truncated header", good[:50], "truncated"},
		{"trailing data", append(append([]byte(nil), good...), 0), "trailing"},
		{"not a table", []byte("hello, this is not a table file at all, but it is long enough to have a header of 128 bytes............................"), "not a tablebase file"},
		{"other rules", foreign, "other rules"},
		{"empty", nil, "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(v, dir, 6)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("open: %v; want an error naming %s and saying %q", err, path, c.want)
			}
			if c.name != "empty" && !errors.Is(err, ErrBadFile) {
				t.Errorf("open: %v; want ErrBadFile", err)
			}
			if _, err := Build(v, BuildOptions{Pieces: 6, Dir: dir}); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("build over a bad file: %v; want an error naming it", err)
			}
		})
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(v, dir, 6); err == nil || !strings.Contains(err.Error(), "nine-3v3.mtb") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("open with the file missing: %v; want an error naming it", err)
	}
	if _, err := Open(v, dir, 0); err == nil {
		t.Error("open of an empty directory: no error")
	}
}
