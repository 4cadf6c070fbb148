package onnx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/millzero/millzero/model"
)

// pythonWithONNX is a Python 3 that imports the onnx package: the one on
// PATH, else Debian's (python3-onnx installs into /usr/bin/python3).
func pythonWithONNX() (string, bool) {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import onnx").Run() == nil {
			return path, true
		}
	}
	return "", false
}

func TestONNXChecker_AcceptsTheExportedFile(t *testing.T) {
	py, ok := pythonWithONNX()
	if !ok {
		needExternal(t, "no python3 imports the onnx package", "apt-get install -y python3-onnx")
	}
	dir := t.TempDir()
	// The operators each kind of network is written with.
	ops := map[string]string{
		model.KindMLP:   "[Add Gemm Relu]",
		model.KindGraph: "[Add Concat Gather Gemm MatMul Pad ReduceMean Relu Reshape Transpose Unsqueeze]",
	}
	for i, name := range testVariants {
		for _, tr := range testTrunks {
			t.Run(name+"/"+tr.kind, func(t *testing.T) {
				checkFile(t, py, filepath.Join(dir, name+"-"+tr.kind+".onnx"), name, tr.trunk, ops[tr.kind], uint64(200+i))
			})
		}
	}
}

// checkFile writes a random network of trunk c for variant name to path
// and checks it with onnx.checker (check.py): its versions, metadata,
// shapes as shape inference sees them, and its operators, ops.
func checkFile(t *testing.T, py, path, name string, c model.Config, ops string, seed uint64) {
	t.Helper()
	v, n := randomNetOf(t, name, c, seed)
	if err := WriteFile(path, v, n, Info{Generation: 5}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "testdata/check.py", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("onnx.checker rejects the file: %v\n%s", err, stderr.String())
	}
	var got struct {
		IRVersion int               `json:"ir_version"`
		Opsets    map[string]int    `json:"opsets"`
		Metadata  map[string]string `json:"metadata"`
		Inputs    map[string][]any  `json:"inputs"`
		Outputs   map[string][]any  `json:"outputs"`
		Ops       []string          `json:"ops"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("check.py printed %q: %v", out, err)
	}
	if got.IRVersion != IRVersion || got.Opsets[""] != Opset || len(got.Opsets) != 1 {
		t.Errorf("IR version %d, opsets %v: want %d and {\"\": %d}", got.IRVersion, got.Opsets, IRVersion, Opset)
	}
	if got.Metadata["variant"] != name || got.Metadata["encoder_version"] != fmt.Sprint(n.Arch.Encoder) || got.Metadata["generation"] != "5" {
		t.Errorf("metadata variant %q encoder %q generation %q", got.Metadata["variant"], got.Metadata["encoder_version"], got.Metadata["generation"])
	}
	want := map[string]string{
		InputFeatures: fmt.Sprint([]any{"batch", n.Arch.Inputs}),
		OutputPolicy:  fmt.Sprint([]any{"batch", n.Arch.Actions}),
		OutputOutcome: fmt.Sprint([]any{"batch", n.Arch.Outcomes}),
	}
	shapes := map[string][]any{}
	for k, s := range got.Inputs {
		shapes[k] = s
	}
	for k, s := range got.Outputs {
		shapes[k] = s
	}
	if len(shapes) != 3 {
		t.Errorf("inputs %v, outputs %v: want features in, policy_logits and outcome_logits out", got.Inputs, got.Outputs)
	}
	for k, w := range want {
		if fmt.Sprint(shapes[k]) != w {
			t.Errorf("%s: shape %v, want %s", k, shapes[k], w)
		}
	}
	if fmt.Sprint(got.Ops) != ops {
		t.Errorf("operators %v, want %s", got.Ops, ops)
	}
}
