package onnx

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// decoded is an exported model read back: enough of it to run the graph.
type decoded struct {
	ir, opset int64
	meta      map[string]string
	nodes     []parsed
	init      map[string]decodedTensor
	inputs    [][]byte // ValueInfoProtos
	outputs   [][]byte
}

type decodedTensor struct {
	dims []int
	data []float32
}

func decode(t testing.TB, b []byte) decoded {
	t.Helper()
	m := parse(t, b)
	d := decoded{ir: m.int(modelIRVersion), meta: map[string]string{}, init: map[string]decodedTensor{}}
	if len(m[modelOpsetImport]) != 1 {
		t.Fatalf("%d opset imports, want 1", len(m[modelOpsetImport]))
	}
	op := parse(t, m[modelOpsetImport][0].b)
	if op.str(opsetDomain) != "" {
		t.Fatalf("opset domain %q, want the default", op.str(opsetDomain))
	}
	d.opset = op.int(opsetVersion)
	for _, e := range m[modelMetadataProps] {
		kv := parse(t, e.b)
		if _, dup := d.meta[kv.str(entryKey)]; dup {
			t.Fatalf("metadata key %q twice", kv.str(entryKey))
		}
		d.meta[kv.str(entryKey)] = kv.str(entryValue)
	}
	g := parse(t, m[modelGraph][0].b)
	for _, n := range g[graphNode] {
		d.nodes = append(d.nodes, parse(t, n.b))
	}
	for _, f := range g[graphInitializer] {
		p := parse(t, f.b)
		if p.int(tensorDataType) != dataTypeFloat {
			t.Fatalf("initializer %s: data type %d", p.str(tensorName), p.int(tensorDataType))
		}
		var tt decodedTensor
		for _, dim := range p[tensorDims] {
			tt.dims = append(tt.dims, int(dim.v))
		}
		raw := p[tensorRawData][0].b
		for i := 0; i+4 <= len(raw); i += 4 {
			tt.data = append(tt.data, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
		}
		d.init[p.str(tensorName)] = tt
	}
	for _, f := range g[graphInput] {
		d.inputs = append(d.inputs, f.b)
	}
	for _, f := range g[graphOutput] {
		d.outputs = append(d.outputs, f.b)
	}
	return d
}

// run interprets the graph's nodes in order on input x of shape
// [batch, F]: Gemm (no attributes: A·B + C), Relu and Add of equal shapes.
func (d decoded) run(x []float32, batch, features int) (map[string]decodedTensor, error) {
	vals := map[string]decodedTensor{InputFeatures: {dims: []int{batch, features}, data: x}}
	for name, tt := range d.init {
		vals[name] = tt
	}
	for _, n := range d.nodes {
		ins, outs := n.strs(nodeInput), n.strs(nodeOutput)
		args := make([]decodedTensor, len(ins))
		for i, in := range ins {
			v, ok := vals[in]
			if !ok {
				return nil, fmt.Errorf("node %s reads %q before anything writes it", n.str(nodeName), in)
			}
			args[i] = v
		}
		if len(outs) != 1 || len(n[nodeName]) == 0 {
			return nil, fmt.Errorf("node %s: %d outputs", n.str(nodeName), len(outs))
		}
		var out decodedTensor
		switch op := n.str(nodeOpType); {
		case op == "Gemm" && len(args) == 3:
			a, b, c := args[0], args[1], args[2]
			m, k, nn := a.dims[0], a.dims[1], b.dims[1]
			if b.dims[0] != k || len(c.dims) != 1 || c.dims[0] != nn {
				return nil, fmt.Errorf("Gemm %s: shapes %v %v %v", n.str(nodeName), a.dims, b.dims, c.dims)
			}
			out = decodedTensor{dims: []int{m, nn}, data: make([]float32, m*nn)}
			for r := 0; r < m; r++ {
				for j := 0; j < nn; j++ {
					s := float64(c.data[j])
					for i := 0; i < k; i++ {
						s += float64(a.data[r*k+i]) * float64(b.data[i*nn+j])
					}
					out.data[r*nn+j] = float32(s)
				}
			}
		case op == "Relu" && len(args) == 1:
			out = decodedTensor{dims: args[0].dims, data: make([]float32, len(args[0].data))}
			for i, v := range args[0].data {
				out.data[i] = max(v, 0)
			}
		case op == "Add" && len(args) == 2:
			if fmt.Sprint(args[0].dims) != fmt.Sprint(args[1].dims) {
				return nil, fmt.Errorf("Add %s: shapes %v %v", n.str(nodeName), args[0].dims, args[1].dims)
			}
			out = decodedTensor{dims: args[0].dims, data: make([]float32, len(args[0].data))}
			for i := range out.data {
				out.data[i] = args[0].data[i] + args[1].data[i]
			}
		default:
			return nil, fmt.Errorf("node %s: operator %s with %d inputs", n.str(nodeName), op, len(args))
		}
		if _, dup := vals[outs[0]]; dup {
			return nil, fmt.Errorf("node %s writes %q a second time", n.str(nodeName), outs[0])
		}
		vals[outs[0]] = out
	}
	return vals, nil
}

func TestEncode_GraphComputesTheForwardPass(t *testing.T) {
	for i, name := range testVariants {
		t.Run(name, func(t *testing.T) {
			v, n := randomNet(t, name, uint64(i))
			b, err := Encode(v, n, Info{Generation: 3})
			if err != nil {
				t.Fatal(err)
			}
			d := decode(t, b)
			const batch = 5
			x := positionFeatures(t, v, n.Arch.Encoder, batch, uint64(i))
			vals, err := d.run(x, batch, n.Arch.Inputs)
			if err != nil {
				t.Fatal(err)
			}
			policy, outcome := goForward(t, n, x, batch)
			if got := vals[OutputPolicy]; fmt.Sprint(got.dims) != fmt.Sprint([]int{batch, n.Arch.Actions}) || maxAbsDiff(got.data, policy) > 1e-4 {
				t.Errorf("policy: dims %v, max difference %g from the Go forward pass", got.dims, maxAbsDiff(got.data, policy))
			}
			if got := vals[OutputOutcome]; fmt.Sprint(got.dims) != fmt.Sprint([]int{batch, n.Arch.Outcomes}) || maxAbsDiff(got.data, outcome) > 1e-4 {
				t.Errorf("outcome: dims %v, max difference %g from the Go forward pass", got.dims, maxAbsDiff(got.data, outcome))
			}
		})
	}
}

func TestEncode_DeclaresOpset13AndIRVersion7(t *testing.T) {
	v, n := randomNet(t, "nine", 1)
	b, err := Encode(v, n, Info{})
	if err != nil {
		t.Fatal(err)
	}
	if d := decode(t, b); d.opset != 13 || d.ir != 7 {
		t.Errorf("opset %d, IR version %d: want 13 and 7", d.opset, d.ir)
	}
}

func TestEncode_InputsAndOutputsAreNamedShapedAndDocumented(t *testing.T) {
	v, n := randomNet(t, "moulin-rouge-3", 2)
	b, err := Encode(v, n, Info{})
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, b)
	if len(d.inputs) != 1 || len(d.outputs) != 2 {
		t.Fatalf("%d inputs, %d outputs: want 1 and 2 (initializers are not graph inputs)", len(d.inputs), len(d.outputs))
	}
	want := []struct {
		vi    []byte
		name  string
		shape string
	}{
		{d.inputs[0], InputFeatures, fmt.Sprintf("[batch %d]", n.Arch.Inputs)},
		{d.outputs[0], OutputPolicy, fmt.Sprintf("[batch %d]", v.NumActions())},
		{d.outputs[1], OutputOutcome, "[batch 4]"},
	}
	for _, w := range want {
		name, elem, shape := shapeOf(t, w.vi)
		if name != w.name || elem != dataTypeFloat || fmt.Sprint(shape) != w.shape {
			t.Errorf("got %s elem %d shape %v, want %s float %s", name, elem, shape, w.name, w.shape)
		}
		if doc := parse(t, w.vi).str(valueDocString); len(doc) < 40 {
			t.Errorf("%s: doc string %q is not a description", name, doc)
		}
	}
}

func TestEncode_MetadataNamesVariantEncoderAndLayouts(t *testing.T) {
	v, n := randomNet(t, "three", 3)
	b, err := Encode(v, n, Info{Generation: 12, Steps: 3400})
	if err != nil {
		t.Fatal(err)
	}
	meta := decode(t, b).meta
	archJSON, err := json.Marshal(n.Arch)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"variant":         "three",
		"encoder_version": fmt.Sprint(n.Arch.Encoder),
		"architecture":    string(archJSON),
		"generation":      "12",
		"steps":           "3400",
		"players":         "2",
		"features":        fmt.Sprint(model.FeatureSize(v, n.Arch.Encoder)),
		"actions":         fmt.Sprint(v.NumActions()),
		"outcomes":        "3",
		"variant_spec":    v.Spec.Canonical(),
		"variant_hash":    v.Spec.Hash(),
	}
	for k, w := range want {
		if meta[k] != w {
			t.Errorf("metadata %s = %q, want %q", k, meta[k], w)
		}
	}
	for _, k := range []string{"feature_layout", "policy_layout", "outcome_layout"} {
		if !strings.Contains(meta[k], "\n") {
			t.Errorf("metadata %s = %q: want a description of every index", k, meta[k])
		}
	}
}

func TestEncode_RefusesANetworkThatDoesNotFitItsVariant(t *testing.T) {
	v, n := randomNet(t, "nine", 4)
	three, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	other := n.Clone()
	other.Arch.Encoder = model.EncoderVersion + 1
	short := n.Clone()
	short.Params = short.Params[:len(short.Params)-1]
	reshaped := n.Clone()
	reshaped.Params[2].Shape = []int{n.Arch.Width / 2, n.Arch.Width * 2}
	cases := []struct {
		name string
		v    *engine.Variant
		n    *model.Network
		want string
	}{
		{"other variant", three, n, `variant "nine", not "three"`},
		{"other encoder", v, other, "feature encoder"},
		{"missing tensor", v, short, "tensors"},
		{"wrong shape", v, reshaped, "block0.fc1.weight"},
	}
	for _, c := range cases {
		if _, err := Encode(c.v, c.n, Info{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestEncode_RefusesAGraphNetwork: the export writes MLPs; a graph
// network is refused with an error that says so, and no file is left.
func TestEncode_RefusesAGraphNetwork(t *testing.T) {
	v, n := randomNetOf(t, "nine", model.Config{Width: 16, Blocks: 1, Kind: model.KindGraph}, 2)
	if _, err := Encode(v, n, Info{}); err == nil || !strings.Contains(err.Error(), "graph network") || !strings.Contains(err.Error(), "MLPs only") {
		t.Errorf("Encode of a graph network: %v, want a refusal naming the graph network and what the export writes", err)
	}
	path := filepath.Join(t.TempDir(), "graph.onnx")
	if err := WriteFile(path, v, n, Info{}); err == nil {
		t.Error("WriteFile of a graph network: no error")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteFile of a graph network left %s (%v)", path, err)
	}
}

func TestWriteFile_LeavesOnlyTheCompleteFile(t *testing.T) {
	v, n := randomNet(t, "nine", 5)
	dir := t.TempDir()
	path := filepath.Join(dir, "net.onnx")
	if err := WriteFile(path, v, n, Info{}); err != nil {
		t.Fatal(err)
	}
	want, err := Encode(v, n, Info{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(want) {
		t.Fatalf("file holds %d bytes (err %v), want the %d of Encode", len(got), err, len(want))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only net.onnx", len(entries))
	}
	bad := n.Clone()
	bad.Arch.Encoder = model.EncoderVersion + 1
	if err := WriteFile(filepath.Join(dir, "bad.onnx"), v, bad, Info{}); err == nil {
		t.Error("wrote a network of another encoder")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.onnx"), v, n, Info{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "x.onnx") {
		t.Errorf("write into a missing directory: %v, want a not-exist error naming the file", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed writes left %d files", len(entries)-1)
	}
}

// BenchmarkEncode is the export of a default-size network for nine men's
// morris (model.DefaultConfig), the whole file in memory.
func BenchmarkEncode(b *testing.B) {
	v, n := randomNetOf(b, "nine", model.DefaultConfig(), 1)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		data, err := Encode(v, n, Info{})
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "bytes/file")
}
