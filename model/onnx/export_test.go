package onnx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// decoded is an exported model read back: enough of it to run the graph.
type decoded struct {
	ir, opset int64
	doc       string // the graph's doc_string
	meta      map[string]string
	nodes     []parsed
	init      map[string]decodedTensor
	inputs    [][]byte // ValueInfoProtos
	outputs   [][]byte
}

// decodedTensor is a tensor of the graph: float32 data, or int64 ints
// (not nil) for an INT64 initializer.
type decodedTensor struct {
	dims []int
	data []float32
	ints []int64
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
	d.doc = g.str(graphDocString)
	for _, n := range g[graphNode] {
		d.nodes = append(d.nodes, parse(t, n.b))
	}
	for _, f := range g[graphInitializer] {
		p := parse(t, f.b)
		var tt decodedTensor
		for _, dim := range p[tensorDims] {
			tt.dims = append(tt.dims, int(dim.v))
		}
		raw := p[tensorRawData][0].b
		switch p.int(tensorDataType) {
		case dataTypeFloat:
			for i := 0; i+4 <= len(raw); i += 4 {
				tt.data = append(tt.data, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
			}
		case dataTypeInt64:
			tt.ints = []int64{}
			for i := 0; i+8 <= len(raw); i += 8 {
				tt.ints = append(tt.ints, int64(binary.LittleEndian.Uint64(raw[i:])))
			}
		default:
			t.Fatalf("initializer %s: data type %d", p.str(tensorName), p.int(tensorDataType))
		}
		if n := max(len(tt.data), len(tt.ints)); n != size(tt.dims) {
			t.Fatalf("initializer %s: %d values for dims %v", p.str(tensorName), n, tt.dims)
		}
		if _, dup := d.init[p.str(tensorName)]; dup {
			t.Fatalf("initializer %s twice", p.str(tensorName))
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
// [batch, F], with the operators of interpret_test.go; any attribute an
// operator is not written with is an error.
func (d decoded) run(x []float32, batch, features int) (map[string]decodedTensor, error) {
	vals := map[string]decodedTensor{InputFeatures: {dims: []int{batch, features}, data: x}}
	for name, tt := range d.init {
		vals[name] = tt
	}
	for _, n := range d.nodes {
		ins, outs := n.strs(nodeInput), n.strs(nodeOutput)
		name, op := n.str(nodeName), n.str(nodeOpType)
		args := make([]decodedTensor, len(ins))
		for i, in := range ins {
			v, ok := vals[in]
			if !ok {
				return nil, fmt.Errorf("node %s reads %q before anything writes it", name, in)
			}
			args[i] = v
		}
		if len(outs) != 1 || len(n[nodeName]) == 0 {
			return nil, fmt.Errorf("node %s: %d outputs", name, len(outs))
		}
		attrs := map[string]parsed{}
		for _, f := range n[nodeAttr] {
			a, err := parseErr(f.b)
			if err != nil {
				return nil, fmt.Errorf("node %s: attribute: %w", name, err)
			}
			attrs[a.str(attrName)] = a
		}
		// attr is attribute key's value, of type typ: i for INT, ints
		// for INTS; ok false when the node lacks it.
		attr := func(key string, typ int64) (i int64, ints []int64, ok bool) {
			a, ok := attrs[key]
			if !ok || a.int(attrType) != typ {
				return 0, nil, false
			}
			for _, f := range a[attrInts] {
				ints = append(ints, int64(f.v))
			}
			return a.int(attrInt), ints, true
		}
		allowed := map[string][]string{"Gather": {"axis"}, "Concat": {"axis"}, "Transpose": {"perm"}, "ReduceMean": {"axes", "keepdims"}}[op]
		for key := range attrs {
			if !slices.Contains(allowed, key) {
				return nil, fmt.Errorf("node %s: %s with attribute %q, which the interpreter does not know", name, op, key)
			}
		}
		var out decodedTensor
		var err error
		switch {
		case op == "Gemm" && len(args) == 3:
			out, err = opGemm(args[0], args[1], args[2])
		case op == "MatMul" && len(args) == 2:
			out, err = opMatMul(args[0], args[1])
		case op == "Add" && len(args) == 2:
			out, err = opAdd(args[0], args[1])
		case op == "Relu" && len(args) == 1:
			out = decodedTensor{dims: args[0].dims, data: make([]float32, len(args[0].data))}
			for i, v := range args[0].data {
				out.data[i] = max(v, 0)
			}
		case op == "Gather" && len(args) == 2:
			axis, _, _ := attr("axis", attrTypeInt) // 0 by default
			out, err = opGather(args[0], args[1], int(axis))
		case op == "Concat" && len(args) >= 1:
			axis, _, ok := attr("axis", attrTypeInt)
			if !ok {
				return nil, fmt.Errorf("node %s: Concat without an axis", name)
			}
			out, err = opConcat(args, int(axis))
		case op == "Transpose" && len(args) == 1:
			_, perm, ok := attr("perm", attrTypeInts)
			if !ok {
				return nil, fmt.Errorf("node %s: Transpose without a perm", name)
			}
			out, err = opTranspose(args[0], perm)
		case op == "Pad" && len(args) == 2 && args[1].ints != nil:
			out, err = opPad(args[0], args[1].ints)
		case op == "Reshape" && len(args) == 2 && args[1].ints != nil:
			out, err = opReshape(args[0], args[1].ints)
		case op == "Unsqueeze" && len(args) == 2 && args[1].ints != nil:
			out, err = opUnsqueeze(args[0], args[1].ints)
		case op == "ReduceMean" && len(args) == 1:
			_, axes, ok := attr("axes", attrTypeInts)
			keep, _, set := attr("keepdims", attrTypeInt)
			if !ok {
				return nil, fmt.Errorf("node %s: ReduceMean without axes (all of them is not what the export means)", name)
			}
			out, err = opReduceMean(args[0], axes, !set || keep != 0)
		default:
			return nil, fmt.Errorf("node %s: operator %s with %d inputs", name, op, len(args))
		}
		if err != nil {
			return nil, fmt.Errorf("node %s (%s): %w", name, op, err)
		}
		if _, dup := vals[outs[0]]; dup {
			return nil, fmt.Errorf("node %s writes %q a second time", name, outs[0])
		}
		vals[outs[0]] = out
	}
	return vals, nil
}

func TestEncode_GraphComputesTheForwardPass(t *testing.T) {
	for i, name := range testVariants {
		for _, tr := range testTrunks {
			t.Run(name+"/"+tr.kind, func(t *testing.T) {
				v, n := randomNetOf(t, name, tr.trunk, uint64(i))
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
}

func TestEncode_DeclaresOpset13AndIRVersion7(t *testing.T) {
	for _, tr := range testTrunks {
		v, n := randomNetOf(t, "nine", tr.trunk, 1)
		b, err := Encode(v, n, Info{})
		if err != nil {
			t.Fatal(err)
		}
		if d := decode(t, b); d.opset != 13 || d.ir != 7 {
			t.Errorf("%s: opset %d, IR version %d: want 13 and 7", tr.kind, d.opset, d.ir)
		}
	}
}

func TestEncode_InputsAndOutputsAreNamedShapedAndDocumented(t *testing.T) {
	for _, tr := range testTrunks {
		t.Run(tr.kind, func(t *testing.T) { testInputsAndOutputs(t, tr.trunk) })
	}
}

// testInputsAndOutputs is TestEncode_InputsAndOutputsAreNamedShapedAndDocumented
// for a network of trunk c.
func testInputsAndOutputs(t *testing.T, c model.Config) {
	v, n := randomNetOf(t, "moulin-rouge-3", c, 2)
	b, err := Encode(v, n, Info{})
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, b)
	kind := "residual MLP"
	if n.Arch.Kind == model.KindGraph {
		kind = "graph network"
	}
	if !strings.HasPrefix(d.doc, "millzero "+kind+" for moulin-rouge-3") {
		t.Errorf("the graph's doc string %q does not name the network's kind (%s) and variant", d.doc, kind)
	}
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
	for _, tr := range testTrunks {
		t.Run(tr.kind, func(t *testing.T) { testMetadata(t, tr.trunk) })
	}
}

// testMetadata is TestEncode_MetadataNamesVariantEncoderAndLayouts for a
// network of trunk c.
func testMetadata(t *testing.T, c model.Config) {
	v, n := randomNetOf(t, "three", c, 3)
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
	_, g := randomNetOf(t, "nine", smallGraph, 4)
	gShort := g.Clone()
	gShort.Params = gShort.Params[:len(gShort.Params)-1]
	gReshaped := g.Clone()
	gReshaped.Params[model.GraphBlock(1)].Shape = []int{g.Arch.Width, 4 * g.Arch.Width}
	gWrongData := g.Clone()
	pol, _, _ := g.Arch.GraphHeads()
	gWrongData.Params[pol+1].Data = gWrongData.Params[pol+1].Data[1:]
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
		{"graph network of another variant", three, g, `variant "nine", not "three"`},
		{"graph network missing a tensor", v, gShort, ": 16 tensors, architecture"},
		{"graph network of a wrong shape", v, gReshaped, "block1.fc1.weight [20 80] with 1600 values"},
		{"graph network short of values", v, gWrongData, "policy.point.bias [20] with 19 values"},
	}
	for _, c := range cases {
		if _, err := Encode(c.v, c.n, Info{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
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

// A graph network's auxiliary heads are not exported: the model of a
// network with heads is the model of the same network without them, byte
// for byte.
func TestEncode_LeavesOutTheAuxiliaryHeads(t *testing.T) {
	for _, name := range []string{"nine", "moulin-rouge-3"} {
		v, n := randomNetOf(t, name, smallGraph, 5)
		with, err := n.WithAux(model.AuxOwnership|model.AuxScore|model.AuxReply, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		a, err := Encode(v, n, Info{Generation: 3})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Encode(v, with, Info{Generation: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the model of a network with heads differs from the one without", name)
		}
	}
}
