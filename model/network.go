// Package model is the network that guides the search: the feature
// encoder, a residual MLP with a policy and an outcome head, an
// allocation-free forward pass on our own kernels for self-play and play,
// and checkpoints in the safetensors format. It does not link Gorgonia:
// the training graph, which Gorgonia builds and differentiates, is
// package train's.
package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
)

// Arch is the shape of a network: everything that decides the sizes of its
// tensors.
type Arch struct {
	// Encoder is the feature encoder (EncoderBoard, EncoderMill,
	// EncoderTactics): how a position becomes the Inputs. Checkpoints
	// record it apart from the architecture, as encoder_version.
	Encoder int `json:"-"`
	// Canonical: the network sees every position in its canonical
	// orientation (Config.Orientation); checkpoints record it apart, as
	// orientation.
	Canonical bool `json:"-"`
	// Symmetric: the weights are tied so that the network is the same
	// function of every turn of a board (Tying, Config.Symmetric);
	// checkpoints record it apart, as symmetry.
	Symmetric bool `json:"-"`
	// Kind is the network's structure: KindMLP (dense layers over the
	// whole feature vector) or KindGraph (channels at every point, mixed
	// along the board's lines and neighbours: graph.go).
	Kind     string `json:"kind,omitempty"`
	Inputs   int    `json:"inputs"`   // features per position (FeatureSize)
	Width    int    `json:"width"`    // units of every hidden layer (a graph network's: channels a point)
	Blocks   int    `json:"blocks"`   // residual blocks of two layers each
	Actions  int    `json:"actions"`  // policy logits: the variant's action space
	Outcomes int    `json:"outcomes"` // outcome logits: players + 1 (a draw)
	// Points and Planes are a graph network's board points and feature
	// planes (features at every point: FeaturePlanes); 0 for an MLP.
	Points int `json:"points,omitempty"`
	Planes int `json:"planes,omitempty"`
	// Topology is a graph network's board (its neighbours and lines,
	// and a seat's pieces), from the variant: NewArch sets it, and a
	// checkpoint's loader from the variant the checkpoint carries.
	Topology Topology `json:"-"`
	// Heads is a graph network's auxiliary heads (heads.go), which
	// training fits and play does not read; none by default.
	Aux Aux `json:"heads,omitempty"`
}

// NewArch is the architecture of a network for variant v with trunk c.
func NewArch(v *engine.Variant, c Config) Arch {
	a := Arch{Encoder: c.Encoder(), Canonical: c.Orientation == OrientCanonical, Symmetric: c.Symmetric, Inputs: FeatureSize(v, c.Encoder()),
		Width: c.Width, Blocks: c.Blocks, Actions: v.NumActions(), Outcomes: v.Players + 1}
	if c.Kind == KindGraph {
		a.Kind, a.Points, a.Planes = KindGraph, v.Board.Points, len(FeaturePlanes(v, c.Encoder()))
		a.Topology = TopologyOf(v)
	}
	return a
}

// Validate reports what is wrong with the architecture.
func (a Arch) Validate() error {
	if err := (Config{Width: a.Width, Blocks: a.Blocks, Kind: a.Kind}).Validate(); err != nil {
		return err
	}
	if err := a.validateHeads(); err != nil {
		return err
	}
	if a.Kind == KindGraph {
		if err := a.validateGraph(); err != nil {
			return err
		}
	}
	switch {
	case a.Inputs < 1:
		return fmt.Errorf("architecture: inputs %d: want 1 or more", a.Inputs)
	case a.Actions < 1:
		return fmt.Errorf("architecture: actions %d: want 1 or more", a.Actions)
	case a.Outcomes < 3 || a.Outcomes > engine.MaxSeats+1:
		return fmt.Errorf("architecture: outcomes %d: want 3..%d", a.Outcomes, engine.MaxSeats+1)
	}
	return nil
}

// String is the architecture in one line, e.g. "mlp 97-256x3-624/3" (and
// " canonical" for a network of canonical orientation, " symmetric" for one
// whose weights are tied over the board's symmetries, " +ownership+reply"
// for a graph network's auxiliary heads).
func (a Arch) String() string {
	kind := "mlp"
	if a.Kind == KindGraph {
		kind = KindGraph
	}
	s := fmt.Sprintf("%s %d-%dx%d-%d/%d", kind, a.Inputs, a.Width, a.Blocks, a.Actions, a.Outcomes)
	if a.Canonical {
		s += " canonical"
	}
	if a.Symmetric {
		s += " symmetric"
	}
	if a.Aux != 0 {
		s += " +" + a.Aux.String()
	}
	return s
}

// Layer is one affine map of the network: Params[W] is In×Out row-major,
// Params[W+1] its bias.
type Layer struct {
	W        int // index of the weight in Network.Params; the bias follows
	In, Out  int
	ReLU     bool // a ReLU follows (after the skip connection, if any)
	Residual bool // the input of the layer's block is added before the ReLU
}

// layers lists the affine maps in evaluation order: the input layer, two per
// block, the policy head, the outcome head. They are an MLP's: a graph
// network's tensors are graphParams', and every caller asks the kind first
// (or refuses a graph network: GrowsTo, NewTying).
func (a Arch) layers() []Layer {
	ls := []Layer{{W: 0, In: a.Inputs, Out: a.Width, ReLU: true}}
	for b := 0; b < a.Blocks; b++ {
		ls = append(ls,
			Layer{W: len(ls) * 2, In: a.Width, Out: a.Width, ReLU: true},
			Layer{W: len(ls)*2 + 2, In: a.Width, Out: a.Width, ReLU: true, Residual: true})
	}
	ls = append(ls, Layer{W: len(ls) * 2, In: a.Width, Out: a.Actions},
		Layer{W: len(ls)*2 + 2, In: a.Width, Out: a.Outcomes})
	return ls
}

// Trunk is the layers the heads read from, in evaluation order: the input
// layer, then the two of each residual block (the second Residual). Each is
// followed by a ReLU; the last one's output is the heads' input. It is an
// MLP's: a graph network's trunk is GraphInputPoint to GraphHeads (graph.go).
func (a Arch) Trunk() []Layer {
	ls := a.layers()
	return ls[:len(ls)-2]
}

// Heads is the policy head (Width to Actions logits) and the outcome head
// (Width to Outcomes logits), the last two layers: an MLP's, as Trunk.
func (a Arch) Heads() (policy, outcome Layer) {
	ls := a.layers()
	return ls[len(ls)-2], ls[len(ls)-1]
}

// MACs is the number of multiply-adds of the forward pass for one position.
func (a Arch) MACs() int {
	if a.Kind == KindGraph {
		return a.graphMACs()
	}
	n := 0
	for _, l := range a.layers() {
		n += l.In * l.Out
	}
	return n
}

// ParamCount is the number of weights and biases.
func (a Arch) ParamCount() int {
	n := 0
	for _, p := range a.zeroParams() {
		n += len(p.Data)
	}
	return n
}

// Param is one named tensor of the network, row-major.
type Param struct {
	Name  string
	Shape []int
	Data  []float32
}

// IsWeight reports whether p is a weight matrix (L2-regularised) rather
// than a bias.
func (p *Param) IsWeight() bool { return len(p.Shape) == 2 }

// Network is the weights of a network and what they are for. Its methods do
// not modify it, so it may be read by many goroutines while nothing writes
// it.
type Network struct {
	Variant string // the variant's name
	// Spec is the variant's resolved spec (engine.Spec.Canonical), which
	// a checkpoint carries so that the variant is rebuilt from it rather
	// than looked up by name; "" for networks of older checkpoints.
	Spec   string
	Arch   Arch    // Arch.Encoder is the feature encoder the weights were trained with
	Params []Param // in the order of the layers (Arch.Trunk, then Arch.Heads): weight, bias, weight, ...
}

// paramNames names the tensors of each layer, as in the checkpoints.
func (a Arch) paramNames() []string {
	names := []string{"input.weight", "input.bias"}
	for b := 0; b < a.Blocks; b++ {
		for f := 1; f <= 2; f++ {
			names = append(names, fmt.Sprintf("block%d.fc%d.weight", b, f), fmt.Sprintf("block%d.fc%d.bias", b, f))
		}
	}
	return append(names, "policy.weight", "policy.bias", "value.weight", "value.bias")
}

// zeroParams allocates the tensors of a, all zero.
func (a Arch) zeroParams() []Param {
	if a.Kind == KindGraph {
		return a.graphParams()
	}
	names := a.paramNames()
	var ps []Param
	for i, l := range a.layers() {
		ps = append(ps,
			Param{Name: names[2*i], Shape: []int{l.In, l.Out}, Data: make([]float32, l.In*l.Out)},
			Param{Name: names[2*i+1], Shape: []int{l.Out}, Data: make([]float32, l.Out)})
	}
	return ps
}

// New is a network of architecture a for the named variant with random
// weights: He-normal for layers followed by a ReLU, the second layer of each
// block scaled down so that blocks start close to the identity, small
// heads, zero biases.
func New(variant string, a Arch, rng *rand.Rand) (*Network, error) {
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("new network for %s: %w", variant, err)
	}
	a.Encoder = Config{Features: a.Encoder}.Encoder() // an unset encoder reads as the config's does
	n := &Network{Variant: variant, Arch: a, Params: a.zeroParams()}
	if a.Kind == KindGraph {
		n.initGraph(rng)
		return n, nil
	}
	for _, l := range a.layers() {
		std := l.initStd()
		w := n.Params[l.W].Data
		for i := range w {
			w[i] = float32(rng.NormFloat64() * std)
		}
	}
	return n, nil
}

// initStd is the deviation of the random initial weights of l (New, Grow).
func (l Layer) initStd() float64 {
	switch {
	case l.Residual:
		return 0.25 * math.Sqrt(2/float64(l.In))
	case !l.ReLU:
		return math.Sqrt(1 / float64(l.In))
	}
	return math.Sqrt(2 / float64(l.In))
}

// Tiny is the magnitude below which weights are set to zero: far above
// float32's subnormal range (below 1.2e-38), whose arithmetic is many times
// slower on x86, and far below any weight that matters.
const Tiny = 1e-30

// FlushTiny sets every parameter smaller in magnitude than Tiny to zero
// and returns how many it changed.
func (n *Network) FlushTiny() int {
	changed := 0
	for _, p := range n.Params {
		for i, x := range p.Data {
			if x != 0 && x > -Tiny && x < Tiny {
				p.Data[i] = 0
				changed++
			}
		}
	}
	return changed
}

// Clone is a deep copy of n.
func (n *Network) Clone() *Network {
	c := *n
	c.Params = make([]Param, len(n.Params))
	for i, p := range n.Params {
		c.Params[i] = Param{Name: p.Name, Shape: append([]int(nil), p.Shape...), Data: append([]float32(nil), p.Data...)}
	}
	return &c
}

// Reoriented is a copy of n, weights and all, that sees every position in
// its canonical turn of the board (canonical) or in any turn (Arch.Canonical):
// the same function on the boards it is given. n is not changed.
func (n *Network) Reoriented(canonical bool) *Network {
	c := n.Clone()
	c.Arch.Canonical = canonical
	return c
}

// CopyFrom copies the weights of src, which must have n's architecture.
func (n *Network) CopyFrom(src *Network) error {
	if src.Arch != n.Arch {
		return fmt.Errorf("copy weights: architecture %v, want %v", src.Arch, n.Arch)
	}
	for i := range n.Params {
		copy(n.Params[i].Data, src.Params[i].Data)
	}
	return nil
}

// Validate reports whether n's tensors are those its architecture implies:
// the names, shapes and lengths of New's.
func (n *Network) Validate() error {
	if err := n.Arch.Validate(); err != nil {
		return fmt.Errorf("network for %s: %w", n.Variant, err)
	}
	want := n.Arch.zeroParams()
	if len(n.Params) != len(want) {
		return fmt.Errorf("network for %s: %d tensors, architecture %v has %d", n.Variant, len(n.Params), n.Arch, len(want))
	}
	for i, p := range n.Params {
		w := want[i]
		if p.Name != w.Name || !equalShape(p.Shape, w.Shape) || len(p.Data) != len(w.Data) {
			return fmt.Errorf("network for %s: tensor %d is %s %v with %d values, want %s %v", n.Variant, i, p.Name, p.Shape, len(p.Data), w.Name, w.Shape)
		}
	}
	return nil
}
