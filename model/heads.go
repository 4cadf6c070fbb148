package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Aux is a set of a graph network's auxiliary heads: outputs that
// training fits to what the recorded game did after a position (its end
// and the next action), which give the trunk more to learn from a game
// than its result, at no search cost. Play and self-play do not read them:
// the forward pass (Forward) computes none, and a checkpoint has the
// tensors of the heads it was trained with only.
type Aux uint8

// The auxiliary heads. Each reads the trunk as the policy and outcome heads
// do (graph.go):
//
//	ownership: O = H·Wo + bo                (P × 3)  each point at the game's end: the side to move's piece, another seat's, empty
//	score:     S = relu(mean(H)·Wv1 + bv1)·Ws + bs  (2·Pieces+1)  the material difference at the end, -Pieces..Pieces
//	reply:     the policy head's function of its own weights (and rotations)  (Actions)  the action played next
//
// The score head reads the outcome head's hidden layer: the material a
// game ends with and its result are much the same question.
const (
	AuxOwnership Aux = 1 << iota
	AuxScore
	AuxReply

	allAux = AuxOwnership | AuxScore | AuxReply
)

// OwnershipClasses is the ownership head's classes a point: the side to
// move's piece, another seat's piece, empty.
const OwnershipClasses = 3

// The ownership classes.
const (
	OwnedBySide  = 0
	OwnedByOther = 1
	OwnedByNone  = 2
)

var headNames = []struct {
	h    Aux
	name string
}{{AuxOwnership, "ownership"}, {AuxScore, "score"}, {AuxReply, "reply"}}

// String is the heads' names joined by "+" ("ownership+score"), or "none".
func (h Aux) String() string {
	if h == 0 {
		return "none"
	}
	var names []string
	for _, n := range headNames {
		if h&n.h != 0 {
			names = append(names, n.name)
		}
	}
	if rest := h &^ allAux; rest != 0 {
		names = append(names, fmt.Sprintf("unknown(%#x)", uint8(rest)))
	}
	return strings.Join(names, "+")
}

// MarshalText writes the heads as String does; a checkpoint's architecture
// records them so.
func (h Aux) MarshalText() ([]byte, error) {
	if h&^allAux != 0 {
		return nil, fmt.Errorf("heads %#x: unknown heads", uint8(h))
	}
	return []byte(h.String()), nil
}

// UnmarshalText reads what MarshalText writes.
func (h *Aux) UnmarshalText(b []byte) error {
	*h = 0
	s := string(b)
	if s == "" || s == "none" {
		return nil
	}
	for _, name := range strings.Split(s, "+") {
		found := false
		for _, n := range headNames {
			if n.name == name {
				*h |= n.h
				found = true
			}
		}
		if !found {
			return fmt.Errorf("heads %q: unknown head %q (this build knows ownership, score and reply)", s, name)
		}
	}
	return nil
}

// maxScorePieces bounds the pieces a seat has in a network with a score
// head, so that a pass keeps the head's logits in a fixed array.
const maxScorePieces = 32

// ScoreClasses is the score head's logits: the material differences
// -Pieces..Pieces.
func (a Arch) ScoreClasses() int { return 2*a.Topology.Pieces + 1 }

// AuxHeads is the index of each auxiliary head's weight, its bias next;
// -1 for a head a lacks. The reply head's point weight (Width ×
// 4+2·GraphRank) and bias are followed, on a rotating board, by its
// rotation weight and bias (replyRotation).
func (a Arch) AuxHeads() (ownership, score, reply, replyRotation int) {
	ownership, score, reply, replyRotation = -1, -1, -1, -1
	_, _, val := a.GraphHeads()
	i := val + 4
	if a.Aux&AuxOwnership != 0 {
		ownership, i = i, i+2
	}
	if a.Aux&AuxScore != 0 {
		score, i = i, i+2
	}
	if a.Aux&AuxReply != 0 {
		reply, i = i, i+2
		if a.Rotations() > 0 {
			replyRotation = i
		}
	}
	return ownership, score, reply, replyRotation
}

// auxParams appends the auxiliary heads' tensors, all zero, in AuxHeads'
// order.
func (a Arch) auxParams(add func(name string, shape ...int)) {
	w := a.Width
	if a.Aux&AuxOwnership != 0 {
		add("ownership.weight", w, OwnershipClasses)
		add("ownership.bias", OwnershipClasses)
	}
	if a.Aux&AuxScore != 0 {
		add("score.weight", GraphValueHidden, a.ScoreClasses())
		add("score.bias", a.ScoreClasses())
	}
	if a.Aux&AuxReply != 0 {
		add("reply.point.weight", w, graphPointHeads+2*GraphRank)
		add("reply.point.bias", graphPointHeads+2*GraphRank)
		if r := a.Rotations(); r > 0 {
			add("reply.rotation.weight", w, r)
			add("reply.rotation.bias", r)
		}
	}
}

// validateHeads reports what is wrong with a's auxiliary heads.
func (a Arch) validateHeads() error {
	switch {
	case a.Aux == 0:
		return nil
	case a.Aux&^allAux != 0:
		return fmt.Errorf("architecture: heads %v: unknown heads", a.Aux)
	case a.Kind != KindGraph:
		return fmt.Errorf("architecture: auxiliary heads (%v) are a graph network's; an MLP has none (model.kind %s)", a.Aux, KindGraph)
	case a.Aux&AuxScore != 0 && (a.Topology.Pieces < 1 || a.Topology.Pieces > maxScorePieces):
		return fmt.Errorf("architecture: a score head over %d pieces a seat: want the variant's (NewArch, or the checkpoint's variant, sets it)", a.Topology.Pieces)
	}
	return nil
}

// drawHeads draws the auxiliary heads' weights of n that are in add (the
// others are left as they are) as initGraph draws the policy and outcome
// heads': by their fan-in alone, biases zero.
func (n *Network) drawHeads(add Aux, rng *rand.Rand) {
	own, score, reply, replyRot := n.Arch.AuxHeads()
	fill := func(i int, std float64) {
		for j := range n.Params[i].Data {
			n.Params[i].Data[j] = float32(rng.NormFloat64() * std)
		}
	}
	w := float64(n.Arch.Width)
	if add&AuxOwnership != 0 {
		fill(own, math.Sqrt(1/w))
	}
	if add&AuxScore != 0 {
		fill(score, math.Sqrt(1/float64(GraphValueHidden)))
	}
	if add&AuxReply != 0 {
		fill(reply, math.Sqrt(1/w))
		if replyRot >= 0 {
			fill(replyRot, math.Sqrt(1/w))
		}
	}
}

// WithAux is a copy of n, a graph network, with the auxiliary heads h:
// every tensor of n that the copy has keeps its values, a head n lacks is
// drawn from rng (as New draws it), a head h lacks is left out. The
// policy and outcome are n's, whatever the heads. rng may be nil when h
// adds no head.
func (n *Network) WithAux(h Aux, rng *rand.Rand) (*Network, error) {
	a := n.Arch
	a.Aux = h
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("network for %s: %w", n.Variant, err)
	}
	add := h &^ n.Arch.Aux
	if add != 0 && rng == nil {
		return nil, fmt.Errorf("network for %s: heads %v to draw and no random source", n.Variant, add)
	}
	c := &Network{Variant: n.Variant, Spec: n.Spec, Arch: a, Params: a.zeroParams()}
	old := map[string]Param{}
	for _, p := range n.Params {
		old[p.Name] = p
	}
	for i, p := range c.Params {
		if q, ok := old[p.Name]; ok && len(q.Data) == len(p.Data) {
			copy(c.Params[i].Data, q.Data)
		}
	}
	c.drawHeads(add, rng)
	return c, nil
}

// HeadParam reports whether p, a tensor of a network of architecture a, is
// one of its auxiliary heads'.
func (a Arch) HeadParam(i int) bool {
	_, _, val := a.GraphHeads()
	return a.Kind == KindGraph && a.Aux != 0 && i >= val+4
}
