package model

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// graphCheckpoint saves a random graph network for v (with v's spec when
// withSpec, else its name alone) and returns the file and the network.
func graphCheckpoint(t *testing.T, v *engine.Variant, withSpec bool) (string, *Network) {
	t.Helper()
	n := randomNetwork(t, NewArch(v, Config{Width: 20, Blocks: 1, Features: EncoderTactics, Kind: KindGraph}), 9)
	n.Variant = v.Name
	if withSpec {
		n.Spec = v.Spec.Canonical()
	}
	path := filepath.Join(t.TempDir(), "graph.safetensors")
	if err := (&Checkpoint{Net: n, Generation: 4}).Save(path); err != nil {
		t.Fatal(err)
	}
	return path, n
}

// TestGraphCheckpoint_RoundTripRebuildsTheBoardFromTheVariant: the
// checkpoint's JSON carries kind, points and planes, and the loader takes
// the board's neighbours and lines from the variant the checkpoint
// carries, its spec above all (three-plain, a variant only a file knows,
// has three's name-sake board without the diagonals): the loaded
// architecture is NewArch's and the answers are the saved network's.
func TestGraphCheckpoint_RoundTripRebuildsTheBoardFromTheVariant(t *testing.T) {
	for _, c := range []struct {
		name     string
		v        *engine.Variant
		withSpec bool
	}{
		{"moulin-rouge with its spec", mustVariant(t, "moulin-rouge"), true},
		{"a variant only its spec knows", fileOnlyVariant(t), true},
		{"nine by name", mustVariant(t, "nine"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := c.v
			path, n := graphCheckpoint(t, v, c.withSpec)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := `\"kind\":\"graph\"`; !bytes.Contains(data, []byte(want)) || !bytes.Contains(data, []byte(`\"points\":`)) || !bytes.Contains(data, []byte(`\"planes\":`)) {
				t.Errorf("the header's architecture lacks kind, points or planes:\n%s", data[8:min(len(data), 600)])
			}
			ck, err := LoadCheckpointFor(path, v)
			if err != nil {
				t.Fatal(err)
			}
			want := NewArch(v, Config{Width: 20, Blocks: 1, Features: EncoderTactics, Kind: KindGraph})
			if ck.Net.Arch != want || ck.Net.Arch.Topology != TopologyOf(v) {
				t.Fatalf("loaded %v (topology %+v), want %v (topology %+v)", ck.Net.Arch, ck.Net.Arch.Topology, want, want.Topology)
			}
			const batch = 3
			a := n.Arch
			x := make([]float32, batch*a.Inputs)
			for i, p := range playedPositions(v, batch, 3) {
				Encode(v, a.Encoder, &p, 0, x[i*a.Inputs:(i+1)*a.Inputs])
			}
			p1, o1 := make([]float32, batch*a.Actions), make([]float32, batch*a.Outcomes)
			p2, o2 := make([]float32, batch*a.Actions), make([]float32, batch*a.Outcomes)
			if err := NewForward(n, batch).Run(x, batch, p1, o1); err != nil {
				t.Fatal(err)
			}
			if err := NewForward(ck.Net, batch).Run(x, batch, p2, o2); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p1, p2) || !slices.Equal(o1, o2) {
				t.Error("the loaded network answers otherwise than the saved one")
			}
			if _, err := NewEvaluator(v, ck.Net, 4, true, 1); err != nil {
				t.Errorf("an evaluator of the loaded network: %v", err)
			}
		})
	}
}

// TestGraphCheckpoint_RefusesWhatDoesNotFit: a graph network of another
// number of points than its variant's board, or marked tied (symmetric),
// is not loaded; nor is one for another variant.
func TestGraphCheckpoint_RefusesWhatDoesNotFit(t *testing.T) {
	v := mustVariant(t, "nine")
	path, n := graphCheckpoint(t, v, true)
	for _, c := range []struct {
		name string
		bend func(a *Arch)
		want string
	}{
		{"another board's points", func(a *Arch) { a.Points = 9 }, "graph network of 9 points for variant nine, whose board has 24"},
		{"tied", func(a *Arch) { a.Symmetric = true }, "not tied"},
	} {
		bent := n.Clone()
		c.bend(&bent.Arch)
		p := filepath.Join(t.TempDir(), "bent.safetensors")
		if err := (&Checkpoint{Net: bent}).Save(p); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadCheckpoint(p); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	if _, err := LoadCheckpointFor(path, mustVariant(t, "twelve")); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("a graph network of nine loaded for twelve: %v", err)
	}
}

// TestGraphNetwork_IsNotTiedAndGrowsWithinItsKind: tying is an MLP's (its
// units laid out by points), refused for a graph network by NewTying and
// Tie; a graph network grows only into a graph network of the same board
// and inputs.
func TestGraphNetwork_IsNotTiedAndGrowsWithinItsKind(t *testing.T) {
	v := mustVariant(t, "nine")
	c := Config{Width: 16, Blocks: 1, Kind: KindGraph}
	a := NewArch(v, c)
	n := randomNetwork(t, a, 1)
	wider := NewArch(v, Config{Width: 32, Blocks: 2, Kind: KindGraph})
	if err := a.GrowsTo(wider); err != nil {
		t.Errorf("16x1 to 32x2: %v", err)
	}
	mlp := NewArch(v, Config{Width: 32, Blocks: 2})
	otherBoard := NewArch(mustVariant(t, "nine-diagonal"), Config{Width: 32, Blocks: 2, Kind: KindGraph})
	otherFeatures := NewArch(v, Config{Width: 32, Blocks: 2, Kind: KindGraph, Features: EncoderTactics})
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"to an MLP", a.GrowsTo(mlp), "within its kind"},
		{"an MLP to a graph network", mlp.GrowsTo(NewArch(v, Config{Width: 64, Blocks: 2, Kind: KindGraph})), "within its kind"},
		{"to another board", a.GrowsTo(otherBoard), "only the trunk"},
		{"to other features", a.GrowsTo(otherFeatures), "only the trunk"},
		{"narrower", wider.GrowsTo(a), "only grows"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, c.err, c.want)
		}
	}
	if _, err := NewTying(v, a); err == nil || !strings.Contains(err.Error(), "graph network, which is not tied") {
		t.Errorf("NewTying: %v, want a refusal", err)
	}
	if err := Tie(v, n); err == nil || !strings.Contains(err.Error(), "graph network") {
		t.Errorf("Tie: %v, want a refusal", err)
	}
}
