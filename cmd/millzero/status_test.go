package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/millzero/millzero/run"
)

func TestStatus_TableAndJSONSayWhereTheRunStands(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := runCmd("train", "--config", "three-test", "--run", dir, "--generations", "1"); code != 0 {
		t.Fatalf("train: %d %s %s", code, out, errOut)
	}
	code, out, errOut := runCmd("status", "--run", dir)
	if code != 0 || !strings.Contains(out, "1 generations finished in 0.") || !strings.Contains(out, "trainer: none") {
		t.Fatalf("status: exit %d %s\n%s", code, errOut, out)
	}
	code, out, errOut = runCmd("status", "--run", dir, "--json")
	var st run.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("status --json: exit %d %s\n%s", code, errOut, out)
	}
	if st.Generations != 1 || len(st.PerGen) != 1 || st.PerGen[0].Games < 256 || len(st.Workers) != 1 || st.Lease != nil {
		t.Errorf("status %+v", st)
	}
	if code, _, errOut := runCmd("status", "--run", t.TempDir()); code == 0 || !strings.Contains(errOut, "millzero train first") {
		t.Errorf("status of no run: exit %d, %q", code, errOut)
	}
}
