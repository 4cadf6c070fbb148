package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/internal/proc"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestTempName_IsHiddenUniqueAndNamesItsWriter(t *testing.T) {
	p := filepath.Join("runs", "r", "arena", "ladder-gen-000001-random.parquet")
	a, b := TempName(p), TempName(p)
	if a == b {
		t.Fatalf("two temporary names of one file are the same: %s", a)
	}
	if filepath.Dir(a) != filepath.Dir(p) || !strings.HasPrefix(filepath.Base(a), ".ladder-gen-000001-random.parquet~") || !IsTemp(a) {
		t.Errorf("TempName(%s) = %s; want a hidden name beside it ending in %s", p, a, TempSuffix)
	}
	w, ok := WriterOf(a)
	if !ok || w.PID != os.Getpid() || w.Host != sanitize(proc.Host()) || w.Space != proc.Space() {
		t.Errorf("WriterOf(%s) = %+v, %v; want this process", a, w, ok)
	}
	for _, name := range []string{"x.parquet.tmp", ".x~1~2.tmp", ".x~r~notapid~s~h.tmp", "x~r~1~s~h"} {
		if _, ok := WriterOf(name); ok {
			t.Errorf("WriterOf(%q) found a writer", name)
		}
	}
}

func TestAbandoned_ADeadWritersFileAtOnce_ALiveOrUnknownWritersOnlyWhenOld(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mine := TempName("x")
	deadOne := strings.Replace(mine, fmt.Sprintf("~%d~", os.Getpid()), fmt.Sprintf("~%d~", dead.Process.Pid), 1)
	otherHost := strings.TrimSuffix(deadOne, TempSuffix) + "-elsewhere" + TempSuffix
	now, old := time.Now(), time.Now().Add(-2*time.Hour)
	for _, tc := range []struct {
		name string
		mod  time.Time
		want bool
	}{
		{mine, now, false},
		{mine, old, true},
		{deadOne, now, proc.Space() != ""}, // a process id is looked up only where it means something
		{otherHost, now, false},
		{otherHost, old, true},
		{"x.parquet.tmp", now, false},
		{"x.parquet.tmp", old, true},
	} {
		if got := Abandoned(tc.name, tc.mod, time.Hour); got != tc.want {
			t.Errorf("Abandoned(%s, modified %v ago) = %v; want %v", tc.name, time.Since(tc.mod).Round(time.Minute), got, tc.want)
		}
	}
}

func TestWriteOnce_ASecondWriteFailsAndLeavesTheFirst(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteOnce(p, writeString("first")); err != nil {
		t.Fatal(err)
	}
	err := WriteOnce(p, writeString("second"))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteOnce = %v; want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "first" {
		t.Errorf("file holds %q; want the first write", data)
	}
	if err := Write(p, writeString("third")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "third" {
		t.Errorf("file holds %q after Write; want it replaced", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files; want the file alone (no temporary left)", len(entries))
	}
}

func TestWrite_AFailedWriteLeavesTheOldFileAndNoTemporary(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := Write(p, writeString("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("Write = %v; want the write function's error", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("file holds %q; want the old content", data)
	}
	if n, err := Sweep(filepath.Dir(p), 0); err != nil || n != 0 {
		t.Errorf("Sweep = %d, %v; want no temporary left", n, err)
	}
}

func TestSweep_RemovesAbandonedTemporariesOnly(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mine := TempName(filepath.Join(dir, "a"))
	deadOne := strings.Replace(mine, fmt.Sprintf("~%d~", os.Getpid()), fmt.Sprintf("~%d~", dead.Process.Pid), 1)
	done := filepath.Join(dir, "a")
	for _, p := range []string{mine, deadOne, done} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if proc.Space() == "" {
		t.Skip("no boot id or PID namespace here: a dead writer is only known by age")
	}
	n, err := Sweep(dir, time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want the dead writer's file removed", n, err)
	}
	for p, want := range map[string]bool{mine: true, deadOne: false, done: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists %v; want %v", filepath.Base(p), err == nil, want)
		}
	}
}
