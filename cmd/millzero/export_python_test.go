package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/builtin"
)

// needTool skips a test whose external tool is missing, unless
// MILLZERO_EXTERNAL_TESTS=1 (make test) says the tools must be there.
func needTool(t *testing.T, missing, install string) {
	t.Helper()
	if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
		t.Fatalf("%s; MILLZERO_EXTERNAL_TESTS=1 requires it (install: %s, or make setup)", missing, install)
	}
	t.Skipf("SKIP: %s; to run this test: %s (or make setup)", missing, install)
}

// readmePython is the README's Python snippet: the first python block of
// its section on exporting a model.
func readmePython(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Exporting a model\n")
	if !ok {
		t.Fatal("README.md has no section \"Exporting a model\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, code, ok := strings.Cut(section, "```python\n")
	if !ok {
		t.Fatal("README.md's section on exporting has no python block")
	}
	code, _, _ = strings.Cut(code, "```")
	return code
}

// pythonWith is a Python 3 that imports every module of imports: the one
// on PATH, else Debian's.
func pythonWith(imports string) (string, bool) {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import "+imports).Run() == nil {
			return path, true
		}
	}
	return "", false
}

// TestREADME_PythonSnippetRunsTheExportedModel runs the README's Python
// snippet on a file `millzero export` wrote from the built-in model, and
// checks what it prints against the Go forward pass of the same network.
// It runs under Python's onnxruntime where that is installed; elsewhere
// under a stand-in module (testdata/ortshim) that runs the same file in
// ONNX Runtime's web build under Node, which make setup installs.
func TestREADME_PythonSnippetRunsTheExportedModel(t *testing.T) {
	snippet := readmePython(t)
	dir := t.TempDir()
	env := os.Environ()
	py, real := pythonWith("numpy, onnxruntime")
	if real {
		t.Logf("Python's onnxruntime: %s", py)
	} else {
		var ok bool
		if py, ok = pythonWith("numpy, onnx"); !ok {
			needTool(t, "no python3 imports numpy and onnx (nor onnxruntime)", "apt-get install -y python3-onnx")
		}
		if _, err := exec.LookPath("node"); err != nil {
			needTool(t, "node is not on PATH", "apt-get install -y nodejs")
		}
		ort, err := filepath.Abs("../../model/onnx/testdata/ort")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(ort, "node_modules", "onnxruntime-web", "package.json")); err != nil {
			needTool(t, "onnxruntime-web is not installed in model/onnx/testdata/ort", "npm ci --prefix model/onnx/testdata/ort --no-audit --no-fund")
		}
		shim, err := filepath.Abs("testdata/ortshim")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("no Python onnxruntime: %s with onnxruntime-web under Node (testdata/ortshim)", py)
		env = append(env, "PYTHONPATH="+shim, "MILLZERO_ORT_RUN="+filepath.Join(ort, "run.mjs"))
	}

	ck, err := builtin.Nine()
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd("export", "--model", "../../model/builtin/nine.safetensors", "--out", filepath.Join(dir, "nine.onnx")); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	if ck.Net.Arch.Canonical {
		t.Fatal("the built-in network expects canonical turns of the board: this test encodes positions as they are")
	}
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	// Positions of a game's opening, each with its features and legal actions.
	var feats [][]float32
	var legal [][]int
	var flat []float32
	p := v.Start()
	buf := make([]engine.Action, 0, engine.MaxActions)
	for _, move := range []string{"", "d6", "f4", "d2", "b4"} {
		if move != "" {
			a, err := v.ParseAction(&p, move)
			if err != nil {
				t.Fatal(err)
			}
			p = v.Apply(&p, a)
		}
		x := make([]float32, model.FeatureSize(v, ck.Net.Arch.Encoder))
		model.Encode(v, ck.Net.Arch.Encoder, &p, 0, x)
		feats, flat = append(feats, x), append(flat, x...)
		var ids []int
		for _, a := range v.Legal(&p, buf) {
			ids = append(ids, v.ActionIndex(a))
		}
		legal = append(legal, ids)
	}
	js, err := json.Marshal(map[string]any{"features": feats, "legal": legal})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "positions.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snippet.py"), []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "snippet.py")
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python snippet.py: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if want := fmt.Sprintf("nine %d features, %d actions", ck.Net.Arch.Inputs, ck.Net.Arch.Actions); len(lines) == 0 || lines[0] != want {
		t.Fatalf("the snippet's first line: %q, want %q\n%s", lines[0], want, out)
	}
	if len(lines) != 1+len(feats) {
		t.Fatalf("the snippet printed %d lines, want %d:\n%s", len(lines), 1+len(feats), out)
	}

	n := len(feats)
	policy := make([]float32, n*ck.Net.Arch.Actions)
	outcome := make([]float32, n*ck.Net.Arch.Outcomes)
	if err := model.NewForward(ck.Net, n).Run(flat, n, policy, outcome); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^position (\d+): action (\d+) prior ([0-9.]+), win ([0-9.]+) loss ([0-9.]+) draw ([0-9.]+)$`)
	for row := range n {
		m := line.FindStringSubmatch(lines[1+row])
		if m == nil || m[1] != strconv.Itoa(row) {
			t.Errorf("line %q: want position %d: action A prior P, win W loss L draw D", lines[1+row], row)
			continue
		}
		logits := policy[row*ck.Net.Arch.Actions:]
		prior, best := softmaxAt(logits, legal[row])
		z := outcome[row*ck.Net.Arch.Outcomes : (row+1)*ck.Net.Arch.Outcomes]
		wdl, _ := softmaxAt(z, []int{0, 1, 2})
		// A graph network answers the board's symmetric points alike, so
		// several actions can share the largest prior up to rounding: the
		// snippet's pick is right when its prior is the largest, to the
		// precision the two runtimes agree on.
		action, _ := strconv.Atoi(m[2]) // the pattern admits digits only
		pick := slices.Index(legal[row], action)
		if pick < 0 || math.Abs(prior[pick]-prior[best]) > 6e-4 {
			t.Errorf("position %d: the snippet's action %s, Go's %d (prior %.4f)", row, m[2], legal[row][best], prior[best])
			continue
		}
		for i, want := range []float64{prior[pick], wdl[0], wdl[1], wdl[2]} {
			got, _ := strconv.ParseFloat(m[3+i], 64)
			if math.Abs(got-want) > 6e-4 {
				t.Errorf("position %d: the snippet printed %s, Go computes %.4f (%s)", row, m[3+i], want, lines[1+row])
			}
		}
	}
	t.Logf("the README's snippet:\n%s", out)
}

// softmaxAt is the softmax of logits over the indices idx, and the
// position in idx of the largest.
func softmaxAt(logits []float32, idx []int) ([]float64, int) {
	hi, best := math.Inf(-1), 0
	for i, k := range idx {
		if float64(logits[k]) > hi {
			hi, best = float64(logits[k]), i
		}
	}
	p := make([]float64, len(idx))
	sum := 0.0
	for i, k := range idx {
		p[i] = math.Exp(float64(logits[k]) - hi)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p, best
}
