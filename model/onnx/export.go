// Package onnx writes a millzero network, a residual MLP or a graph
// network, as a standard ONNX model of opset 13, so that any ONNX runtime
// can evaluate it: one input, "features", and two outputs,
// "policy_logits" and "outcome_logits". The file's metadata records the
// variant, the feature-encoder version and the meaning of every input
// and output index.
package onnx

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/model"
)

// The names of the graph's input and outputs.
const (
	InputFeatures = "features"       // [batch, F] float32: model.Encode of each position
	OutputPolicy  = "policy_logits"  // [batch, A] float32: raw, unmasked policy logits
	OutputOutcome = "outcome_logits" // [batch, players+1] float32: outcome logits relative to the seat to move
)

// The versions the file declares: opset 13 of the default domain, and IR
// version 7, the one that opset came with (ONNX 1.8).
const (
	Opset     = 13
	IRVersion = 7
)

// BatchDim is the name of the graph's symbolic batch dimension.
const BatchDim = "batch"

// Info is what the exported file records about the weights besides the
// network itself.
type Info struct {
	Generation int    // self-play generation of the weights
	Steps      int64  // optimizer steps the weights were trained for
	Producer   string // the millzero build that exported the file (producer_version), e.g. "dev"
}

// Metadata is the file's metadata_props for network n of variant v: keys
// variant, variant_spec (the variant's resolved spec,
// engine.Spec.Canonical, from which engine.ParseVariant rebuilds it),
// variant_hash (engine.Spec.Hash), encoder_version, orientation (random,
// or canonical: the network expects each position in its canonical turn of
// the board, engine.Variant.CanonicalSymmetry, and answers in it), architecture
// (model.Arch as JSON, as in the checkpoints), generation, steps, players,
// features, actions, outcomes, feature_layout, policy_layout,
// outcome_layout.
func Metadata(v *engine.Variant, n *model.Network, info Info) [][2]string {
	a := n.Arch
	arch, _ := json.Marshal(a) // a struct of ints: Marshal cannot fail
	return [][2]string{
		{"variant", n.Variant},
		{"variant_spec", v.Spec.Canonical()},
		{"variant_hash", v.Spec.Hash()},
		{"encoder_version", strconv.Itoa(a.Encoder)},
		{"orientation", orientation(a)},
		{"architecture", string(arch)},
		{"generation", strconv.Itoa(info.Generation)},
		{"steps", strconv.FormatInt(info.Steps, 10)},
		{"players", strconv.Itoa(v.Players)},
		{"features", strconv.Itoa(a.Inputs)},
		{"actions", strconv.Itoa(a.Actions)},
		{"outcomes", strconv.Itoa(a.Outcomes)},
		{"feature_layout", FeatureLayout(v, a.Encoder)},
		{"policy_layout", PolicyLayout(v)},
		{"outcome_layout", OutcomeLayout(v)},
	}
}

// orientation is the network's model.Config.Orientation.
func orientation(a model.Arch) string {
	if a.Canonical {
		return model.OrientCanonical
	}
	return model.OrientRandom
}

// check reports whether n is a network for v that this package can write:
// the variant's sizes, the current feature encoder, and every tensor of
// its architecture in the order, name and shape model.Network documents
// (the writers read the tensors by position).
func check(v *engine.Variant, n *model.Network) error {
	if err := (&model.Checkpoint{Net: n}).CheckVariant(v); err != nil {
		return err
	}
	if err := model.CheckEncoder(n.Arch.Encoder); err != nil {
		return fmt.Errorf("network of %w", err)
	}
	return n.Validate()
}

// Encode is network n, a network for variant v, as a serialized ONNX
// ModelProto. The graph computes exactly model.Forward.Run: for a residual
// MLP an input layer Gemm+Relu, per residual block Gemm+Relu, Gemm, Add of
// the block's input, Relu, then the two heads' Gemms; for a graph network
// the points' layers, mixed along the board by MatMuls, and the move
// logits as products of origin and destination rows (graph.go). Weights
// are initializers named as in the checkpoints ("input.weight",
// "block0.fc1.bias", ...). A graph network's auxiliary heads
// (model.Aux), which play does not read, are left out.
func Encode(v *engine.Variant, n *model.Network, info Info) ([]byte, error) {
	if err := check(v, n); err != nil {
		return nil, fmt.Errorf("export onnx: %w", err)
	}
	if n.Arch.Aux != 0 {
		var err error
		if n, err = n.WithAux(0, nil); err != nil {
			return nil, fmt.Errorf("export onnx: %w", err)
		}
	}
	a := n.Arch
	var g message
	g = g.str(graphName, "millzero_"+n.Variant)
	kind := "residual MLP"
	if a.Kind == model.KindGraph {
		g, kind = graphNodes(g, v, n), "graph network"
	} else {
		g = mlpNodes(g, n)
	}
	g = g.str(graphDocString, fmt.Sprintf("millzero %s for %s: %v", kind, n.Variant, a))
	batch := dim{param: BatchDim}
	g = g.sub(graphInput, valueInfo(InputFeatures,
		fmt.Sprintf("One row of %d features per position: millzero model.Encode, encoder version %d, from the point of view of the seat to move. Layout in the metadata key feature_layout.", a.Inputs, a.Encoder),
		batch, dim{value: a.Inputs}))
	g = g.sub(graphOutput, valueInfo(OutputPolicy,
		fmt.Sprintf("%d raw policy logits per position, one per action of %s's action space, NOT masked: mask to the legal actions, then softmax. Index layout in the metadata key policy_layout.", a.Actions, n.Variant),
		batch, dim{value: a.Actions}))
	g = g.sub(graphOutput, valueInfo(OutputOutcome,
		fmt.Sprintf("%d raw outcome logits per position: class k < %d is a win of the seat k places after the seat to move (0: the seat to move), class %d a draw; softmax for probabilities. See the metadata key outcome_layout.", a.Outcomes, v.Players, v.Players),
		batch, dim{value: a.Outcomes}))

	var m message
	m = m.int(modelIRVersion, IRVersion)
	m = m.str(modelProducerName, "millzero")
	producer := info.Producer
	if producer == "" {
		producer = "dev"
	}
	m = m.str(modelProducerVer, producer)
	m = m.str(modelDocString, fmt.Sprintf("millzero network for the variant %s (%v), generation %d, feature encoder version %d.\n"+
		"Input %s [batch, %d]; outputs %s [batch, %d] and %s [batch, %d].\n\n%s\n\n%s\n\n%s",
		n.Variant, a, info.Generation, a.Encoder, InputFeatures, a.Inputs, OutputPolicy, a.Actions, OutputOutcome, a.Outcomes,
		FeatureLayout(v, a.Encoder), PolicyLayout(v), OutcomeLayout(v)))
	m = m.sub(modelGraph, g)
	m = m.sub(modelOpsetImport, message(nil).str(opsetDomain, "").int(opsetVersion, Opset))
	for _, kv := range Metadata(v, n, info) {
		m = m.sub(modelMetadataProps, entry(kv[0], kv[1]))
	}
	return m, nil
}

// mlpNodes appends to g the nodes of residual MLP n, from InputFeatures
// to OutputPolicy and OutputOutcome, and its weights as initializers.
func mlpNodes(g message, n *model.Network) message {
	a := n.Arch
	gemm := func(in string, layer int, out string) {
		w, b := n.Params[2*layer], n.Params[2*layer+1]
		g = g.sub(graphNode, node("Gemm", out, []string{in, w.Name, b.Name}, []string{out}))
	}
	gemm(InputFeatures, 0, "input.gemm")
	g = g.sub(graphNode, node("Relu", "input.relu", []string{"input.gemm"}, []string{"input.relu"}))
	h := "input.relu"
	for b := 0; b < a.Blocks; b++ {
		p := fmt.Sprintf("block%d.", b)
		gemm(h, 1+2*b, p+"fc1.gemm")
		g = g.sub(graphNode, node("Relu", p+"fc1.relu", []string{p + "fc1.gemm"}, []string{p + "fc1.relu"}))
		gemm(p+"fc1.relu", 2+2*b, p+"fc2.gemm")
		g = g.sub(graphNode, node("Add", p+"skip", []string{h, p + "fc2.gemm"}, []string{p + "skip"}))
		g = g.sub(graphNode, node("Relu", p+"relu", []string{p + "skip"}, []string{p + "relu"}))
		h = p + "relu"
	}
	gemm(h, 1+2*a.Blocks, OutputPolicy)
	gemm(h, 2+2*a.Blocks, OutputOutcome)
	for _, p := range n.Params {
		g = g.sub(graphInitializer, tensor(p.Name, p.Shape, p.Data))
	}
	return g
}

// WriteFile writes Encode's model to path through a temporary file in the
// same directory, synced and renamed, so path never holds half a model.
func WriteFile(path string, v *engine.Variant, n *model.Network, info Info) error {
	data, err := Encode(v, n, info)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
