package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A run sent to the background goes on in a session of its own, every
// thread at nice 19 and its session's autogroup too, its progress appended
// to the log; a command that cannot start says why, not just that it ended.
func TestTrain_BackgroundIsASessionOfItsOwnAtTheLowestPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Setenv("MILLZERO_TEST_MAIN", "1") // the background process is this test binary as millzero
	dir := t.TempDir()
	log := filepath.Join(dir, "train.log")
	code, out, errOut := runCmd("train", "--config", "three-test", "--run", filepath.Join(dir, "run"), "--generations", "1000", "--background", log)
	m := regexp.MustCompile(`in the background as process (\d+)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	pid, _ := strconv.Atoi(m[1])
	defer syscall.Kill(pid, syscall.SIGKILL)
	stat, err := os.ReadFile("/proc/" + m[1] + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// After the command's name in parentheses: state, ppid, pgrp, session, ...,
	// nice is the 19th field of the line.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if f[3] != m[1] || f[16] != "19" {
		t.Errorf("process %s: session %s, nice %s; want a session of its own at nice 19", m[1], f[3], f[16])
	}
	threads, _ := filepath.Glob("/proc/" + m[1] + "/task/*/stat")
	for _, th := range threads {
		b, err := os.ReadFile(th)
		if err != nil {
			continue // the thread ended
		}
		if tf := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:])); tf[16] != "19" {
			t.Errorf("thread %s at nice %s, want 19", th, tf[16])
		}
	}
	if ag, err := os.ReadFile("/proc/" + m[1] + "/autogroup"); err == nil && !strings.Contains(string(ag), "nice 19") {
		t.Errorf("its autogroup: %s, want nice 19", ag)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(waitForLimit); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(log); strings.Contains(string(b), "stopped: interrupted") {
			break
		}
		if time.Now().After(end) {
			b, _ := os.ReadFile(log)
			t.Fatalf("no stop in the log after SIGTERM:\n%s", b)
		}
	}

	code, _, errOut = runCmd("train", "--config", filepath.Join(dir, "missing.yaml"), "--run", filepath.Join(dir, "run2"), "--background", log)
	if code == 0 || !strings.Contains(errOut, "--background") || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("a missing config in the background: exit %d, %q; want its error, naming the file", code, errOut)
	}
}
