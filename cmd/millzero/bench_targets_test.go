package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/selfplay"
)

func TestBenchTargets_MeasuresTheBestModelsTargetsAndRefusesBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errOut := runCmd("train", "--config", "three-test", "--run", dir, "--generations", "2"); code != 0 {
		t.Fatalf("train: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCmd("bench", "targets", "--run", dir, "--positions", "12", "--searches", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sp selfplay.Spread
	if err := json.Unmarshal([]byte(out), &sp); err != nil {
		t.Fatalf("output is not a JSON spread: %v\n%s", err, out)
	}
	if sp.Positions < 1 || sp.Positions > 12 || sp.Searches != 3 || sp.Agreement.Mean < 0 || sp.Agreement.Mean > 1 ||
		sp.MeanEntropy.Mean < sp.Entropy.Mean-1e-9 || !(sp.CrossEntropy.Mean > 0) {
		t.Fatalf("spread %+v: want up to 12 positions, 3 searches, agreement in 0..1, the mean target's entropy at least one's", sp)
	}
	code, out, errOut = runCmd("bench", "targets", "--run", dir, "--generation", "1", "--positions", "5", "--searches", "2", "--symmetry=false")
	if code != 0 || !strings.Contains(out, "generation 1, ") || !strings.Contains(out, "board turned: false") ||
		!strings.Contains(out, "KL(mean target || network)") {
		t.Errorf("generation 1 unturned: exit %d, %q, %q: want its table", code, out, errOut)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--searches", "1"}, "--searches 1"},
		{[]string{"--generation", "9"}, "--generation 9"},
		{[]string{"--search", "c_puct=0"}, "--search"},
		{[]string{"--orientations", "2", "--symmetry=false"}, "--orientations"},
		{[]string{"--run", "s3://bucket/run"}, "local directory"},
		{[]string{"--run", filepath.Join(t.TempDir(), "none")}, "run.yaml"},
	} {
		args := append([]string{"bench", "targets", "--run", dir}, c.args...)
		if code, _, errOut := runCmd(args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q: want an error with %q", c.args, code, errOut, c.want)
		}
	}
}
