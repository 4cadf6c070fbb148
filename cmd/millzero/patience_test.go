package main

import (
	"strings"
	"testing"
	"time"
)

func TestStorePatienceFlag_TakesADurationOrForever(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "10m": 10 * time.Minute, "forever": -1, "FOREVER": -1} {
		var p patienceFlag
		if err := p.Set(in); err != nil || p.d != want || !p.set {
			t.Errorf("Set(%q) = %v, %v; want %v", in, p.d, err, want)
		}
	}
	for _, bad := range []string{"", "0s", "-5m", "soon"} {
		var p patienceFlag
		if err := p.Set(bad); err == nil {
			t.Errorf("Set(%q) was accepted", bad)
		}
	}
	for _, cmd := range []string{"train", "status", "selfplay"} {
		code, _, errOut := runCmd(cmd, "--run", t.TempDir(), "--store-patience", "soon")
		if code == 0 || !strings.Contains(errOut, "store-patience") || !strings.Contains(errOut, "soon") {
			t.Errorf("%s --store-patience soon: exit %d, %q", cmd, code, errOut)
		}
	}
}
