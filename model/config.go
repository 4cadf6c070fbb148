package model

import "fmt"

// Config sizes the network's trunk. The input and the heads are sized by the
// variant (see NewArch).
type Config struct {
	// Width is the number of units of every hidden layer of the trunk.
	Width int `yaml:"width"`
	// Blocks is the number of residual blocks after the input layer; each
	// block is two Width×Width layers and a skip connection.
	Blocks int `yaml:"blocks"`
	// Features is the feature encoder of a new network (EncoderBoard,
	// EncoderMill, EncoderTactics); 0 is EncoderBoard, the only one before
	// there were more.
	Features int `yaml:"features"`
	// Orientation is how the network sees a position: OrientRandom (any
	// turn of the board; self-play and training turn it at random) or
	// OrientCanonical (always its canonical image,
	// engine.Variant.CanonicalSymmetry, in self-play, training and play
	// alike, so the network answers every turn of a board the same). ""
	// is random.
	Orientation string `yaml:"orientation"`
	// Symmetric ties the weights over the board's symmetries (Tying): the
	// network answers every turn of a board alike by its structure, each
	// hidden layer Width/P channels of each of the P points and the rest
	// invariant units. Width must be at least the board's points.
	Symmetric bool `yaml:"symmetric"`
	// Kind is the network's structure: "" or KindMLP, dense layers over the
	// whole feature vector; KindGraph, Width channels at every point of the
	// board, each layer mixing a point's channels with its neighbours',
	// its lines' and the whole board's (graph.go).
	Kind string `yaml:"kind"`
}

// The structures of a network (Config.Kind).
const (
	KindMLP   = "mlp"
	KindGraph = "graph"
)

// The orientations of a network (Config.Orientation).
const (
	OrientRandom    = "random"
	OrientCanonical = "canonical"
)

// Encoder is the feature encoder the configuration names.
func (c Config) Encoder() int {
	if c.Features == 0 {
		return EncoderBoard
	}
	return c.Features
}

// DefaultConfig is the network of configs/runs/nine.yaml (a test keeps the
// two equal): 128 wide, two residual blocks, feature set 3, a random
// orientation of the board for each position.
func DefaultConfig() Config {
	return Config{Width: 32, Blocks: 2, Features: 3, Orientation: "random", Kind: KindGraph}
}

// Validate reports what is wrong with the configuration.
func (c Config) Validate() error {
	switch {
	case c.Width < 1 || c.Width > 8192:
		return fmt.Errorf("model config: width %d: want 1..8192", c.Width)
	case c.Blocks < 0 || c.Blocks > 64:
		return fmt.Errorf("model config: blocks %d: want 0..64", c.Blocks)
	case c.Orientation != "" && c.Orientation != OrientRandom && c.Orientation != OrientCanonical:
		return fmt.Errorf("model config: orientation %q: want %s or %s", c.Orientation, OrientRandom, OrientCanonical)
	case c.Kind != "" && c.Kind != KindMLP && c.Kind != KindGraph:
		return fmt.Errorf("model config: kind %q: want %s or %s", c.Kind, KindMLP, KindGraph)
	case c.Kind == KindGraph && c.Symmetric:
		return fmt.Errorf("model config: kind %s with symmetric: a graph network answers every turn of a board alike by its structure; leave out symmetric (or tie an MLP: kind %s)", KindGraph, KindMLP)
	case c.Features != 0 && CheckEncoder(c.Features) != nil:
		return fmt.Errorf("model config: features %d: want %d (the board), %d (the board and the mills) or %d (and the tactics a move ahead)", c.Features, EncoderBoard, EncoderMill, EncoderTactics)
	}
	return nil
}
