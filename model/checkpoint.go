package model

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
)

// CheckpointFormat is the value of the "format" metadata key of every
// checkpoint this package writes.
const CheckpointFormat = "millzero/mlp"

// maxHeader bounds the JSON header of a checkpoint, so that a corrupt
// length cannot make Load allocate without limit.
const maxHeader = 16 << 20

// reservedMeta reports whether key is a metadata key the package writes
// and checks; Checkpoint.Meta may hold others.
func reservedMeta(key string) bool {
	switch key {
	case "format", "variant", "variant_spec", "architecture", "encoder_version", "orientation", "symmetry", "generation", "steps":
		return true
	}
	return false
}

// Checkpoint is what one checkpoint file holds: a network, its training
// progress, and extra tensors (the optimizer's state) and metadata.
type Checkpoint struct {
	Net        *Network
	Generation int               // self-play generation of the weights
	Steps      int64             // optimizer steps taken in training
	Extra      []Param           // other tensors, e.g. the optimizer's moments; names must not clash with the network's
	Meta       map[string]string // other metadata, e.g. the optimizer's name and step count
}

// tensorInfo is a tensor's entry in a safetensors header.
type tensorInfo struct {
	Dtype   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// Save writes c to path in the safetensors format: an 8-byte little-endian
// header length, a JSON header naming every tensor's dtype, shape and byte
// range (metadata in its "__metadata__" string map), then the raw
// little-endian float32 data. The metadata names the variant and, when the
// network has it (Network.Spec), carries its resolved spec as
// variant_spec, from which Checkpoint.Variant rebuilds the variant. It
// writes a temporary file in the same directory and renames it when
// complete (atomicfile.Write), so path is never half written.
func (c *Checkpoint) Save(path string) error {
	n := c.Net
	if n == nil {
		return fmt.Errorf("save checkpoint %s: no network", path)
	}
	header := map[string]any{}
	meta := map[string]string{}
	for k, v := range c.Meta {
		if reservedMeta(k) {
			return fmt.Errorf("save checkpoint %s: metadata key %q is reserved", path, k)
		}
		meta[k] = v
	}
	arch, err := json.Marshal(n.Arch)
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", path, err)
	}
	meta["format"] = CheckpointFormat
	meta["variant"] = n.Variant
	if n.Spec != "" {
		meta["variant_spec"] = n.Spec
	}
	meta["architecture"] = string(arch)
	meta["encoder_version"] = strconv.Itoa(n.Arch.Encoder)
	if n.Arch.Canonical {
		meta["orientation"] = OrientCanonical
	}
	if n.Arch.Symmetric {
		meta["symmetry"] = SymmetryTied
	}
	meta["generation"] = strconv.Itoa(c.Generation)
	meta["steps"] = strconv.FormatInt(c.Steps, 10)
	header["__metadata__"] = meta
	tensors := append(append([]Param(nil), n.Params...), c.Extra...)
	var off int64
	for _, p := range tensors {
		if _, dup := header[p.Name]; dup {
			return fmt.Errorf("save checkpoint %s: two tensors named %q", path, p.Name)
		}
		if len(p.Data) != shapeSize(p.Shape) {
			return fmt.Errorf("save checkpoint %s: tensor %s has %d values for shape %v", path, p.Name, len(p.Data), p.Shape)
		}
		size := int64(4 * len(p.Data))
		header[p.Name] = tensorInfo{Dtype: "F32", Shape: p.Shape, Offsets: [2]int64{off, off + size}}
		off += size
	}
	js, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", path, err)
	}
	for len(js)%8 != 0 { // keep the data 8-byte aligned, as the format recommends
		js = append(js, ' ')
	}
	err = atomicfile.Write(path, func(w io.Writer) error {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(len(js)))
		w.Write(b[:])
		w.Write(js)
		for _, p := range tensors {
			for _, x := range p.Data {
				binary.LittleEndian.PutUint32(b[:4], math.Float32bits(x))
				if _, err := w.Write(b[:4]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", path, err)
	}
	return nil
}

func shapeSize(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		n *= d
	}
	return n
}

// ErrCheckpoint is wrapped by every error about the content of a
// checkpoint file (as opposed to failing to read it).
var ErrCheckpoint = errors.New("bad checkpoint")

// ErrNotSafetensors is wrapped, with ErrCheckpoint, by the error of a file
// that is not in the safetensors format at all: another format's model
// (ONNX, which millzero export writes for other runtimes) or no model.
var ErrNotSafetensors = errors.New("not a safetensors checkpoint")

// LoadCheckpoint reads a checkpoint written by Save, checking that the file
// is complete, that its metadata is ours and of the current feature
// encoder, that every tensor of the network is there with the shape its
// architecture implies, and that every value is finite (no NaN or
// infinity). A graph network's board (Arch.Topology, which the JSON of
// the architecture leaves out) is the variant's that the checkpoint
// carries (Checkpoint.Variant). Errors name the file and what is wrong;
// another format's model, ONNX above all, is named as such
// (ErrNotSafetensors).
func LoadCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	c, err := parseCheckpoint(data)
	if errors.Is(err, ErrNotSafetensors) && (looksONNX(data) || strings.EqualFold(filepath.Ext(path), ".onnx")) {
		return nil, fmt.Errorf("load checkpoint %s: %w: %w: an ONNX model; millzero plays and trains from the .safetensors checkpoint (ONNX is for other runtimes: millzero export writes it from one)",
			path, ErrCheckpoint, ErrNotSafetensors)
	}
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	// Older checkpoints may hold subnormal weights, slow to compute with.
	c.Net.FlushTiny()
	return c, nil
}

// ParseCheckpoint is LoadCheckpoint of a checkpoint's bytes, held in
// memory (an embedded model); name says where they come from in errors.
func ParseCheckpoint(name string, data []byte) (*Checkpoint, error) {
	c, err := parseCheckpoint(data)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", name, err)
	}
	c.Net.FlushTiny()
	return c, nil
}

// PlayOnly is c with only what play needs: the network, its generation
// and steps; no optimizer state and no other metadata.
func (c *Checkpoint) PlayOnly() *Checkpoint {
	return &Checkpoint{Net: c.Net, Generation: c.Generation, Steps: c.Steps}
}

// LoadCheckpointFor is LoadCheckpoint followed by CheckVariant.
func LoadCheckpointFor(path string, v *engine.Variant) (*Checkpoint, error) {
	c, err := LoadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := c.CheckVariant(v); err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return c, nil
}

// Variant is the variant the checkpoint's network is for, rebuilt from
// the spec it carries; a checkpoint written before specs travelled has
// only the variant's name, and gets the named variant.
func (c *Checkpoint) Variant() (*engine.Variant, error) {
	v, err := engine.Rebuild(c.Net.Spec, c.Net.Variant, "checkpoint")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	return v, nil
}

// CheckVariant reports whether the checkpoint's network is for variant v:
// the same spec (name, board and rules; the same name for a checkpoint
// without a spec) and the sizes v implies for the input and the heads. A
// spec that differs is an error naming every difference.
func (c *Checkpoint) CheckVariant(v *engine.Variant) error {
	n := c.Net
	if n.Spec != "" {
		own, err := c.Variant()
		if err != nil {
			return err
		}
		if err := engine.CheckSame(own, "the model", v, "variant "+v.Name); err != nil {
			return fmt.Errorf("%w: %w", ErrCheckpoint, err)
		}
	} else if n.Variant != v.Name {
		return fmt.Errorf("%w: a network for variant %q, not %q", ErrCheckpoint, n.Variant, v.Name)
	}
	if err := CheckEncoder(n.Arch.Encoder); err != nil {
		return fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	want := NewArch(v, Config{Width: n.Arch.Width, Blocks: n.Arch.Blocks, Features: n.Arch.Encoder, Kind: n.Arch.Kind})
	want.Canonical, want.Symmetric = n.Arch.Canonical, n.Arch.Symmetric // either fits any variant
	want.Aux = n.Arch.Aux                                               // and the auxiliary heads, sized by the variant
	if n.Arch != want {
		return fmt.Errorf("%w: architecture %v does not fit variant %s (want %v)", ErrCheckpoint, n.Arch, v.Name, want)
	}
	return nil
}

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCheckpoint}, args...)...)
}

// notSafetensors is the error of a file whose start is no safetensors
// header, saying why.
func notSafetensors(format string, args ...any) error {
	return fmt.Errorf("%w: %w ("+format+")", append([]any{ErrCheckpoint, ErrNotSafetensors}, args...)...)
}

// looksONNX reports whether data starts as an ONNX model does: its
// ModelProto's ir_version (field 1, a small varint), then another field
// of ModelProto (producer name or version, domain, model version, doc
// string, graph, opset import, metadata).
func looksONNX(data []byte) bool {
	if len(data) < 3 || data[0] != 0x08 || data[1] == 0 || data[1] >= 0x80 {
		return false
	}
	switch data[2] {
	case 0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42, 0x72:
		return true
	}
	return false
}

// firstNonFinite is the index of the first NaN or infinite value of x, or
// -1 when every value is finite.
func firstNonFinite(x []float32) int {
	for i, f := range x {
		if f-f != 0 { // NaN - NaN and Inf - Inf are NaN
			return i
		}
	}
	return -1
}

func parseCheckpoint(data []byte) (*Checkpoint, error) {
	if len(data) < 8 {
		return nil, bad("truncated: %d bytes, not even the 8-byte header length", len(data))
	}
	hlen := binary.LittleEndian.Uint64(data[:8])
	if hlen > maxHeader {
		return nil, notSafetensors("its first 8 bytes give a header length of %d, over %d", hlen, maxHeader)
	}
	if uint64(len(data)-8) < hlen {
		return nil, bad("truncated: header of %d bytes, file has %d after the length", hlen, len(data)-8)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+hlen], &raw); err != nil {
		return nil, notSafetensors("header: %v", err)
	}
	body := data[8+hlen:]
	var meta map[string]string
	if m, ok := raw["__metadata__"]; !ok {
		return nil, bad("no __metadata__ in the header")
	} else if err := json.Unmarshal(m, &meta); err != nil {
		return nil, bad("__metadata__: %v", err)
	}
	delete(raw, "__metadata__")
	if meta["format"] != CheckpointFormat {
		return nil, bad("format %q, want %q", meta["format"], CheckpointFormat)
	}
	var arch Arch
	if err := json.Unmarshal([]byte(meta["architecture"]), &arch); err != nil {
		return nil, bad("architecture %q: %v", meta["architecture"], err)
	}
	enc, err := strconv.Atoi(meta["encoder_version"])
	if err != nil {
		return nil, bad("encoder_version %q: %v", meta["encoder_version"], err)
	}
	if CheckEncoder(enc) != nil {
		return nil, bad("trained on features of encoder version %d, this build encodes versions %d to %d", enc, EncoderBoard, EncoderVersion)
	}
	arch.Encoder = enc
	switch o := meta["orientation"]; o {
	case "", OrientRandom:
	case OrientCanonical:
		arch.Canonical = true
	default:
		return nil, bad("orientation %q: want %s or %s", o, OrientRandom, OrientCanonical)
	}
	switch s := meta["symmetry"]; s {
	case "":
	case SymmetryTied:
		arch.Symmetric = true
	default:
		return nil, bad("symmetry %q: want %s or none", s, SymmetryTied)
	}
	if arch.Kind == KindGraph {
		// A graph network's board (Arch.Topology) is not in the JSON: it
		// is the variant's, which the checkpoint names.
		v, err := engine.Rebuild(meta["variant_spec"], meta["variant"], "checkpoint")
		if err != nil {
			return nil, bad("graph network: %v", err)
		}
		if arch.Points != v.Board.Points {
			return nil, bad("graph network of %d points for variant %s, whose board has %d", arch.Points, v.Name, v.Board.Points)
		}
		arch.Topology = TopologyOf(v)
	}
	if err := arch.Validate(); err != nil {
		return nil, bad("%v", err)
	}
	c := &Checkpoint{Meta: map[string]string{}}
	if c.Generation, err = strconv.Atoi(meta["generation"]); err != nil {
		return nil, bad("generation %q: %v", meta["generation"], err)
	}
	if c.Steps, err = strconv.ParseInt(meta["steps"], 10, 64); err != nil {
		return nil, bad("steps %q: %v", meta["steps"], err)
	}
	for k, v := range meta {
		if !reservedMeta(k) {
			c.Meta[k] = v
		}
	}
	tensors := map[string]tensorInfo{}
	var end int64
	for name, js := range raw {
		var ti tensorInfo
		if err := json.Unmarshal(js, &ti); err != nil {
			return nil, bad("tensor %s: %v", name, err)
		}
		if ti.Dtype != "F32" {
			return nil, bad("tensor %s: dtype %s, want F32", name, ti.Dtype)
		}
		size := shapeSize(ti.Shape)
		if size < 0 || ti.Offsets[0] < 0 || ti.Offsets[1]-ti.Offsets[0] != 4*int64(size) {
			return nil, bad("tensor %s: byte range %v does not hold shape %v", name, ti.Offsets, ti.Shape)
		}
		if ti.Offsets[1] > int64(len(body)) {
			return nil, bad("truncated: tensor %s ends at byte %d of the data, which has %d", name, ti.Offsets[1], len(body))
		}
		end = max(end, ti.Offsets[1])
		tensors[name] = ti
	}
	if end != int64(len(body)) {
		return nil, bad("%d bytes of data after the last tensor", int64(len(body))-end)
	}
	ranges := make([][2]int64, 0, len(tensors))
	for _, ti := range tensors {
		ranges = append(ranges, ti.Offsets)
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] })
	var at int64
	for _, r := range ranges {
		if r[0] != at {
			return nil, bad("tensor data overlaps or leaves a hole at byte %d", at)
		}
		at = r[1]
	}
	read := func(name string, ti tensorInfo) (Param, error) {
		p := Param{Name: name, Shape: ti.Shape, Data: make([]float32, shapeSize(ti.Shape))}
		b := body[ti.Offsets[0]:ti.Offsets[1]]
		for i := range p.Data {
			p.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		if i := firstNonFinite(p.Data); i >= 0 {
			return p, bad("tensor %s: value %d of %d is %v: the weights must be finite (did the training diverge?)", name, i, len(p.Data), p.Data[i])
		}
		return p, nil
	}
	if spec := meta["variant_spec"]; spec != "" {
		v, err := engine.ParseSpec(spec, "variant_spec")
		if err != nil {
			return nil, bad("%v", err)
		}
		if v.Name != meta["variant"] {
			return nil, bad("variant %q, but its variant_spec is of %q", meta["variant"], v.Name)
		}
	}
	n := &Network{Variant: meta["variant"], Spec: meta["variant_spec"], Arch: arch, Params: arch.zeroParams()}
	for i, p := range n.Params {
		ti, ok := tensors[p.Name]
		if !ok {
			return nil, bad("no tensor %s, which architecture %v has", p.Name, arch)
		}
		if !equalShape(ti.Shape, p.Shape) {
			return nil, bad("tensor %s has shape %v, architecture %v wants %v", p.Name, ti.Shape, arch, p.Shape)
		}
		if n.Params[i], err = read(p.Name, ti); err != nil {
			return nil, err
		}
		delete(tensors, p.Name)
	}
	c.Net = n
	names := make([]string, 0, len(tensors))
	for name := range tensors {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, err := read(name, tensors[name])
		if err != nil {
			return nil, err
		}
		c.Extra = append(c.Extra, p)
	}
	return c, nil
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
