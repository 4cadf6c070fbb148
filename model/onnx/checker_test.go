package onnx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
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
	for i, name := range testVariants {
		t.Run(name, func(t *testing.T) {
			v, n := randomNet(t, name, uint64(200+i))
			path := filepath.Join(dir, name+".onnx")
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
			if fmt.Sprint(got.Ops) != "[Add Gemm Relu]" {
				t.Errorf("operators %v, want Add Gemm Relu", got.Ops)
			}
		})
	}
}
