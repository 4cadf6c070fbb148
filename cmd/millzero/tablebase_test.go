package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTablebase_BuildProbeStats(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCmd("tablebase", "build", "--variant", "nine", "--pieces", "6", "--out", dir)
	if code != 0 || !strings.Contains(out, "every material up to 6 pieces") {
		t.Fatalf("build: exit %d\n%s\n%s", code, out, errOut)
	}
	path := filepath.Join(dir, "nine-3v3.mtb")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd("tablebase", "build", "--variant", "nine", "--pieces", "6", "--out", dir)
	if after, err := os.Stat(path); code != 0 || err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("second build: exit %d (%s), want the file reused, not rewritten", code, errOut)
	}
	// White flies to g7 to close a7-d7-g7: a win in 1 (the capture leaves black 2 pieces).
	fen := "O*O*****/********/O@*@*@** w m s 3 0 3 0 0 0 0 0 0 0 0 0 30"
	code, out, errOut = runCmd("tablebase", "probe", "--variant", "nine", "--dir", dir, fen)
	if code != 0 || !strings.Contains(out, "white to move: win in 1\n") || !strings.Contains(out, "* ") {
		t.Errorf("probe: exit %d\n%s\n%s", code, out, errOut)
	}
	// Outside the tables: an error, exit 1, saying why and what they hold.
	for pos, why := range map[string]string{
		"********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1":  "still in hand",
		"O*O*****/***@***@/*@*O**@* w m s 3 0 4 0 0 0 0 0 0 0 0 0 30": "material is not built",
	} {
		code, out, errOut = runCmd("tablebase", "probe", "--dir", dir, pos)
		if code == 0 || out != "" || !strings.Contains(errOut, "not in the tables of "+dir) || !strings.Contains(errOut, why) ||
			!strings.Contains(errOut, "they hold 3v3") || !strings.Contains(errOut, pos) {
			t.Errorf("probe of %s: exit %d, out %q, error %q: want exit 1, nothing printed, and an error saying it is not in the tables (%s)", pos, code, out, errOut, why)
		}
	}
	code, out, errOut = runCmd("tablebase", "stats", "--variant", "nine", dir)
	if code != 0 || !strings.Contains(out, "3v3") || !strings.Contains(out, "20") {
		t.Errorf("stats: exit %d\n%s\n%s", code, out, errOut)
	}
	cases := [][]string{
		{"tablebase", "probe", "--variant", "nine-diagonal", "--dir", dir, fen},
		{"tablebase", "build", "--variant", "three", "--pieces", "6", "--out", dir},
		{"tablebase", "stats", "--variant", "nine", filepath.Join(dir, "nowhere")},
		{"tablebase", "frob"},
		{"tablebase", "build", "--pieces", "6"},
	}
	for _, args := range cases {
		if code, _, errOut := runCmd(args...); code == 0 || errOut == "" {
			t.Errorf("%v: exit %d, want an error", args, code)
		}
	}
}
