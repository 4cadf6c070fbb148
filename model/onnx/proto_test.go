package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded protobuf field: an integer or a length-delimited
// payload (a string, bytes or an embedded message).
type field struct {
	num protowire.Number
	v   uint64
	b   []byte
}

// parsed is a decoded message, its fields by number in wire order.
type parsed map[protowire.Number][]field

// parse decodes one message's fields, failing on anything malformed or of
// a wire type this package never writes.
func parse(t testing.TB, b []byte) parsed {
	t.Helper()
	p, err := parseErr(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func parseErr(b []byte) (parsed, error) {
	p := parsed{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			return nil, fmt.Errorf("field %d: wire type %d, which this package never writes", num, typ)
		}
		if n < 0 {
			return nil, fmt.Errorf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		p[num] = append(p[num], f)
	}
	return p, nil
}

// str is the last value of string field num ("" when absent).
func (p parsed) str(num protowire.Number) string {
	fs := p[num]
	if len(fs) == 0 {
		return ""
	}
	return string(fs[len(fs)-1].b)
}

// int is the last value of integer field num (-1 when absent).
func (p parsed) int(num protowire.Number) int64 {
	fs := p[num]
	if len(fs) == 0 {
		return -1
	}
	return int64(fs[len(fs)-1].v)
}

// strs is every value of repeated string field num.
func (p parsed) strs(num protowire.Number) []string {
	var s []string
	for _, f := range p[num] {
		s = append(s, string(f.b))
	}
	return s
}

// shapeOf decodes a ValueInfoProto's name, element type and shape, a
// symbolic dimension as its name.
func shapeOf(t testing.TB, vi []byte) (name string, elem int64, shape []string) {
	p := parse(t, vi)
	typ := parse(t, p[valueType][0].b)
	tt := parse(t, typ[typeTensor][0].b)
	for _, d := range parse(t, tt[tensorTypeShape][0].b)[shapeDim] {
		dp := parse(t, d.b)
		if s := dp.str(dimParam); s != "" {
			shape = append(shape, s)
		} else {
			shape = append(shape, fmt.Sprint(dp.int(dimValue)))
		}
	}
	return p.str(valueName), tt.int(tensorTypeElem), shape
}

func TestValueInfo_NamesAFloatTensorWithASymbolicBatch(t *testing.T) {
	vi := valueInfo("x", "the doc", dim{param: "batch"}, dim{value: 97})
	name, elem, shape := shapeOf(t, vi)
	if name != "x" || elem != dataTypeFloat || fmt.Sprint(shape) != "[batch 97]" {
		t.Errorf("got %q elem %d shape %v, want \"x\" elem 1 shape [batch 97]", name, elem, shape)
	}
	if doc := parse(t, vi).str(valueDocString); doc != "the doc" {
		t.Errorf("doc %q", doc)
	}
}

func TestTensor_RawDataIsLittleEndianFloat32(t *testing.T) {
	data := []float32{1, -2.5, float32(math.Pi), 0, 1e-30, -0}
	p := parse(t, tensor("w", []int{2, 3}, data))
	var dims []int64
	for _, f := range p[tensorDims] {
		dims = append(dims, int64(f.v))
	}
	if fmt.Sprint(dims) != "[2 3]" || p.int(tensorDataType) != dataTypeFloat || p.str(tensorName) != "w" {
		t.Fatalf("dims %v type %d name %q", dims, p.int(tensorDataType), p.str(tensorName))
	}
	raw := p[tensorRawData][0].b
	if len(raw) != 4*len(data) {
		t.Fatalf("%d raw bytes for %d floats", len(raw), len(data))
	}
	for i, x := range data {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); math.Float32bits(got) != math.Float32bits(x) {
			t.Errorf("value %d: %v, want %v", i, got, x)
		}
	}
}

func TestNode_ListsInputsOutputsAndOperator(t *testing.T) {
	p := parse(t, node("Gemm", "g", []string{"a", "b", "c"}, []string{"y"}))
	if fmt.Sprint(p.strs(nodeInput)) != "[a b c]" || fmt.Sprint(p.strs(nodeOutput)) != "[y]" ||
		p.str(nodeOpType) != "Gemm" || p.str(nodeName) != "g" {
		t.Errorf("node decodes as %v", p)
	}
}

func TestInt_NegativeValuesTakeTenBytes(t *testing.T) {
	m := message(nil).int(1, -1)
	if len(m) != 11 { // one tag byte, ten varint bytes
		t.Errorf("%d bytes, want 11", len(m))
	}
	if p := parse(t, m); p.int(1) != -1 {
		t.Errorf("decodes as %d", p.int(1))
	}
}

func TestInt64Tensor_RawDataIsLittleEndianInt64(t *testing.T) {
	data := []int64{0, 1, -1, 1 << 40, 31}
	p := parse(t, int64Tensor("idx", []int{5}, data))
	if p.int(tensorDataType) != dataTypeInt64 || p.str(tensorName) != "idx" || len(p[tensorDims]) != 1 || p[tensorDims][0].v != 5 {
		t.Fatalf("type %d name %q dims %v, want 7 (INT64) \"idx\" [5]", p.int(tensorDataType), p.str(tensorName), p[tensorDims])
	}
	raw := p[tensorRawData][0].b
	if len(raw) != 8*len(data) {
		t.Fatalf("%d raw bytes for %d int64s", len(raw), len(data))
	}
	for i, x := range data {
		if got := int64(binary.LittleEndian.Uint64(raw[8*i:])); got != x {
			t.Errorf("value %d: %d, want %d", i, got, x)
		}
	}
}

// attributes decodes a NodeProto's attributes by name.
func attributes(t testing.TB, n parsed) map[string]parsed {
	t.Helper()
	as := map[string]parsed{}
	for _, f := range n[nodeAttr] {
		a := parse(t, f.b)
		as[a.str(attrName)] = a
	}
	return as
}

// ints is every value of repeated integer field num.
func (p parsed) ints(num protowire.Number) []int64 {
	var s []int64
	for _, f := range p[num] {
		s = append(s, int64(f.v))
	}
	return s
}

func TestNode_CarriesIntAndIntsAttributes(t *testing.T) {
	n := parse(t, node("Transpose", "tr", []string{"x"}, []string{"y"}, intAttr("axis", -2), intsAttr("perm", 0, 2, 1)))
	if n.str(nodeOpType) != "Transpose" || fmt.Sprint(n.strs(nodeInput)) != "[x]" || fmt.Sprint(n.strs(nodeOutput)) != "[y]" {
		t.Fatalf("node decodes as %v", n)
	}
	as := attributes(t, n)
	if len(as) != 2 {
		t.Fatalf("%d attributes, want 2", len(as))
	}
	if a := as["axis"]; a.int(attrType) != attrTypeInt || a.int(attrInt) != -2 || len(a[attrInts]) != 0 {
		t.Errorf("axis: type %d i %d ints %v, want type 2 (INT), i -2, no ints", a.int(attrType), a.int(attrInt), a.ints(attrInts))
	}
	if a := as["perm"]; a.int(attrType) != attrTypeInts || fmt.Sprint(a.ints(attrInts)) != "[0 2 1]" || len(a[attrInt]) != 0 {
		t.Errorf("perm: type %d ints %v, want type 7 (INTS), [0 2 1]", a.int(attrType), a.ints(attrInts))
	}
}
