package onnx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/millzero/millzero/model"
)

// ortDir holds the pinned ONNX Runtime (onnxruntime-web, wasm backend, run
// under Node); scripts/setup.d/20-onnxruntime.sh installs it.
const ortDir = "testdata/ort"

// needExternal skips a test whose tool is missing, unless
// MILLZERO_EXTERNAL_TESTS=1 (make test) says the tools must be there.
func needExternal(t *testing.T, missing, install string) {
	t.Helper()
	if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
		t.Fatalf("%s; MILLZERO_EXTERNAL_TESTS=1 requires it (install: %s, or make setup)", missing, install)
	}
	t.Skipf("SKIP: %s; to run this test: %s (or make setup)", missing, install)
}

// ortTensor is a tensor as run.mjs reads and prints it.
type ortTensor struct {
	Dims []int     `json:"dims"`
	Data []float32 `json:"data"`
}

func TestONNXRuntime_ComputesTheGoForwardPass(t *testing.T) {
	const install = "npm ci --prefix model/onnx/testdata/ort --no-audit --no-fund"
	node, err := exec.LookPath("node")
	if err != nil {
		needExternal(t, "node is not on PATH", install)
	}
	if _, err := os.Stat(filepath.Join(ortDir, "node_modules", "onnxruntime-web", "package.json")); err != nil {
		needExternal(t, "onnxruntime-web is not installed in model/onnx/"+ortDir, install)
	}
	dir := t.TempDir()
	type netCase struct {
		name, variant string
		trunk         model.Config
	}
	cases := []netCase{{"nine-default-size", "nine", model.DefaultConfig()}, {"nine-graph-32x2", "nine", graph32x2}}
	for _, name := range testVariants {
		cases = append(cases, netCase{name, name, smallNet}, netCase{name + "-graph", name, smallGraph})
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := c.name
			v, n := randomNetOf(t, c.variant, c.trunk, uint64(100+i))
			file := filepath.Join(dir, name+".onnx")
			if err := WriteFile(file, v, n, Info{Generation: i}); err != nil {
				t.Fatal(err)
			}
			const batch = 7
			x := positionFeatures(t, v, n.Arch.Encoder, batch, uint64(100+i))
			in, err := json.Marshal(map[string]ortTensor{InputFeatures: {Dims: []int{batch, n.Arch.Inputs}, Data: x}})
			if err != nil {
				t.Fatal(err)
			}
			inputs := filepath.Join(dir, name+".json")
			if err := os.WriteFile(inputs, in, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(node, "run.mjs", file, inputs)
			cmd.Dir = ortDir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node run.mjs: %v\n%s", err, stderr.String())
			}
			var got struct {
				InputNames  []string             `json:"inputNames"`
				OutputNames []string             `json:"outputNames"`
				Outputs     map[string]ortTensor `json:"outputs"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("run.mjs printed %q: %v", out, err)
			}
			if fmt.Sprint(got.InputNames) != "[features]" || fmt.Sprint(got.OutputNames) != "[policy_logits outcome_logits]" {
				t.Errorf("runtime sees inputs %v, outputs %v", got.InputNames, got.OutputNames)
			}
			policy, outcome := goForward(t, n, x, batch)
			for _, w := range []struct {
				name string
				want []float32
				cols int
			}{{OutputPolicy, policy, n.Arch.Actions}, {OutputOutcome, outcome, n.Arch.Outcomes}} {
				g := got.Outputs[w.name]
				if fmt.Sprint(g.Dims) != fmt.Sprint([]int{batch, w.cols}) || len(g.Data) != len(w.want) {
					t.Errorf("%s: dims %v with %d values, want [%d %d]", w.name, g.Dims, len(g.Data), batch, w.cols)
					continue
				}
				if d := maxAbsDiff(g.Data, w.want); d > 1e-4 {
					t.Errorf("%s: ONNX Runtime differs from the Go forward pass by up to %g, want 1e-4 at most", w.name, d)
				} else {
					t.Logf("%s: max difference %.2g", w.name, d)
				}
			}
		})
	}
}
