package model

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The auxiliary heads' tensors come after the policy and outcome heads',
// in AuxHeads' order and of the shapes heads.go gives; a rotating board's
// reply head has rotation logits too.
func TestAux_TensorsFollowTheHeads(t *testing.T) {
	for _, name := range []string{"nine", "moulin-rouge"} {
		v := mustVariant(t, name)
		a := NewArch(v, Config{Width: 8, Blocks: 1, Features: EncoderTactics, Kind: KindGraph})
		plain := len(a.zeroParams())
		a.Aux = AuxOwnership | AuxScore | AuxReply
		ps := a.zeroParams()
		own, score, reply, rot := a.AuxHeads()
		if own != plain || score != own+2 || reply != score+2 {
			t.Fatalf("%s: heads at %d, %d, %d after %d tensors", name, own, score, reply, plain)
		}
		if got := ps[score].Shape; !slices.Equal(got, []int{GraphValueHidden, 2*v.Pieces + 1}) {
			t.Errorf("%s: score weight %v", name, got)
		}
		if got := ps[own].Shape; !slices.Equal(got, []int{8, OwnershipClasses}) {
			t.Errorf("%s: ownership weight %v", name, got)
		}
		if (rot >= 0) != (a.Rotations() > 0) || (rot >= 0 && ps[rot].Name != "reply.rotation.weight") {
			t.Errorf("%s: reply rotation at %d with %d rotations", name, rot, a.Rotations())
		}
		want := plain + 6
		if rot >= 0 {
			want += 2
		}
		if len(ps) != want {
			t.Errorf("%s: %d tensors, want %d", name, len(ps), want)
		}
		if a.HeadParam(plain-1) || !a.HeadParam(plain) {
			t.Errorf("%s: HeadParam wrong at the heads' first tensor", name)
		}
	}
}

// A network with heads draws the other weights as one without them does
// (the heads are drawn last), and answers alike: the forward pass reads no
// head.
func TestAux_HeadsChangeNeitherTheOtherWeightsNorThePlay(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 16, Blocks: 2, Features: EncoderTactics, Kind: KindGraph})
	plain, err := New(v.Name, a, rand.New(rand.NewPCG(3, 1)))
	if err != nil {
		t.Fatal(err)
	}
	a.Aux = AuxOwnership | AuxScore | AuxReply
	with, err := New(v.Name, a, rand.New(rand.NewPCG(3, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range plain.Params {
		if !slices.Equal(p.Data, with.Params[i].Data) {
			t.Fatalf("%s differs with the heads", p.Name)
		}
	}
	own, _, _, _ := a.AuxHeads()
	if slices.Max(with.Params[own].Data) == 0 {
		t.Error("the ownership head was not drawn")
	}
	assertSameAnswers(t, plain, with, v.Name)
}

func assertSameAnswers(t *testing.T, a, b *Network, variant string) {
	t.Helper()
	v := mustVariant(t, variant)
	const batch = 5
	x := make([]float32, batch*a.Arch.Inputs)
	for i, p := range playedPositions(v, batch, 7) {
		Encode(v, a.Arch.Encoder, &p, 0, x[i*a.Arch.Inputs:(i+1)*a.Arch.Inputs])
	}
	p1, o1 := make([]float32, batch*a.Arch.Actions), make([]float32, batch*a.Arch.Outcomes)
	p2, o2 := make([]float32, batch*a.Arch.Actions), make([]float32, batch*a.Arch.Outcomes)
	if err := NewForward(a, batch).Run(x, batch, p1, o1); err != nil {
		t.Fatal(err)
	}
	if err := NewForward(b, batch).Run(x, batch, p2, o2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1, p2) || !slices.Equal(o1, o2) {
		t.Error("the networks answer differently")
	}
}

// A checkpoint records the heads in its architecture and their tensors
// beside the others, and loads as it was saved; without heads its
// architecture's JSON has no heads key, as before there were heads.
func TestAux_CheckpointRoundTrip(t *testing.T) {
	v := mustVariant(t, "moulin-rouge")
	a := NewArch(v, Config{Width: 12, Blocks: 1, Features: EncoderTactics, Kind: KindGraph})
	a.Aux = AuxScore | AuxReply
	n := randomNetwork(t, a, 4)
	n.Variant, n.Spec = v.Name, v.Spec.Canonical()
	path := filepath.Join(t.TempDir(), "aux.safetensors")
	if err := (&Checkpoint{Net: n, Generation: 2}).Save(path); err != nil {
		t.Fatal(err)
	}
	ck, err := LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Net.Arch != a || len(ck.Extra) != 0 {
		t.Fatalf("loaded %v with %d extra tensors, want %v", ck.Net.Arch, len(ck.Extra), a)
	}
	for i, p := range n.Params {
		if !slices.Equal(p.Data, ck.Net.Params[i].Data) {
			t.Fatalf("%s changed in the round trip", p.Name)
		}
	}
	if s := ck.Net.Arch.String(); !strings.HasSuffix(s, " +score+reply") {
		t.Errorf("architecture %q does not name its heads", s)
	}
	plain, err := ck.Net.WithAux(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	js := archJSON(t, plain.Arch)
	if strings.Contains(js, "heads") {
		t.Errorf("a network without heads records %s", js)
	}
	if !strings.Contains(archJSON(t, a), `"heads":"score+reply"`) {
		t.Errorf("the heads are not in %s", archJSON(t, a))
	}
}

// archJSON is the architecture a checkpoint of a records, as its header
// spells it (the JSON inside the metadata's string, quotes escaped).
func archJSON(t *testing.T, a Arch) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.safetensors")
	n := randomNetwork(t, a, 1)
	n.Variant = "moulin-rouge"
	if err := (&Checkpoint{Net: n}).Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, `"architecture":"`)
	j := strings.Index(s[i:], `}"`)
	if i < 0 || j < 0 {
		t.Fatalf("no architecture in the header")
	}
	return strings.ReplaceAll(s[i+len(`"architecture":"`):i+j+1], `\"`, `"`)
}

// WithAux keeps every tensor it shares with the network, draws the heads
// it adds and leaves out the heads it drops; the answers stay the same.
func TestAux_WithAuxAddsAndDropsHeads(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 8, Blocks: 1, Features: EncoderTactics, Kind: KindGraph})
	a.Aux = AuxOwnership
	n := randomNetwork(t, a, 2)
	n.Variant = v.Name
	m, err := n.WithAux(AuxScore|AuxReply, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Arch.Aux != AuxScore|AuxReply || m.Validate() != nil {
		t.Fatalf("%v: %v", m.Arch, m.Validate())
	}
	for i, p := range m.Params {
		if m.Arch.HeadParam(i) {
			if p.IsWeight() && slices.Max(p.Data) == 0 {
				t.Errorf("%s added but not drawn", p.Name)
			}
			continue
		}
		if !slices.Equal(p.Data, n.Params[i].Data) {
			t.Errorf("%s changed", p.Name)
		}
	}
	assertSameAnswers(t, n, m, v.Name)
	if _, err := n.WithAux(AuxReply, nil); err == nil {
		t.Error("a head added without a random source")
	}
	if _, err := n.WithAux(0, nil); err != nil {
		t.Errorf("dropping heads needs no random source: %v", err)
	}
}

// Heads are a graph network's: an MLP with them, or an unknown head, is
// refused by name.
func TestAux_Refused(t *testing.T) {
	v := mustVariant(t, "nine")
	a := NewArch(v, Config{Width: 8, Blocks: 1, Features: EncoderTactics})
	a.Aux = AuxOwnership
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "graph network") {
		t.Errorf("an MLP with an ownership head: %v", err)
	}
	var h Aux
	if err := h.UnmarshalText([]byte("ownership+territory")); err == nil || !strings.Contains(err.Error(), "territory") {
		t.Errorf("an unknown head: %v", err)
	}
	for _, want := range []Aux{0, AuxOwnership, AuxScore | AuxReply, AuxOwnership | AuxScore | AuxReply} {
		b, err := want.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got Aux
		if err := got.UnmarshalText(b); err != nil || got != want {
			t.Errorf("%v read back as %v (%v)", want, got, err)
		}
	}
}

// A graph network with heads grows as one without does, keeping them: the
// policy and outcome compute what they did, and each head's weight keeps
// its rows of the old channels, the added channels' rows zero (a head
// reads no added channel until training moves it).
func TestAux_GrowKeepsTheHeads(t *testing.T) {
	v := mustVariant(t, "moulin-rouge-3")
	a := NewArch(v, Config{Width: 6, Blocks: 1, Kind: KindGraph, Features: EncoderTactics})
	a.Aux = AuxOwnership | AuxScore | AuxReply
	n := randomNetwork(t, a, 4)
	n.Variant = v.Name
	checkGrowsAsTheSameFunction(t, n, 5, 1e-5, []Config{{Width: 11, Blocks: 2}})
	g, err := Grow(n, Config{Width: 11, Blocks: 2}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	own, score, reply, rot := g.Arch.AuxHeads()
	if g.Arch.Aux != a.Aux || rot < 0 {
		t.Fatalf("grown %v", g.Arch)
	}
	for _, i := range []int{own, reply, rot} {
		old, grown := n.Params[i-len(g.Params)+len(n.Params)], g.Params[i]
		cols := grown.Shape[1]
		for r := range grown.Shape[0] {
			row := grown.Data[r*cols : (r+1)*cols]
			if r < 6 && !slices.Equal(row, old.Data[r*cols:(r+1)*cols]) || r >= 6 && slices.Max(row) != 0 {
				t.Fatalf("%s: row %d is %v", grown.Name, r, row)
			}
		}
	}
	if !slices.Equal(g.Params[score].Data, n.Params[score-len(g.Params)+len(n.Params)].Data) {
		t.Error("the score weight, which reads the outcome head's hidden layer, changed")
	}
}
