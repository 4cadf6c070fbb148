package onnx

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

func TestFeatureSpans_TileTheInput(t *testing.T) {
	for _, name := range engine.Names() {
		v, err := engine.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for enc := model.EncoderBoard; enc <= model.EncoderVersion; enc++ {
			at := 0
			for _, sp := range featureSpans(v, enc) {
				if sp.Lo != at || sp.Hi <= sp.Lo {
					t.Fatalf("%s encoder %d: span [%d:%d] %q after index %d", name, enc, sp.Lo, sp.Hi, sp.What, at)
				}
				at = sp.Hi
			}
			if at != model.FeatureSize(v, enc) {
				t.Errorf("%s encoder %d: spans end at %d, model.FeatureSize is %d", name, enc, at, model.FeatureSize(v, enc))
			}
		}
	}
}

// spanOf is the span of encoder enc whose description starts with prefix.
func spanOf(t *testing.T, v *engine.Variant, enc int, prefix string) span {
	t.Helper()
	for _, sp := range featureSpans(v, enc) {
		if strings.HasPrefix(sp.What, prefix) {
			return sp
		}
	}
	t.Fatalf("%s: no span %q", v.Name, prefix)
	return span{}
}

func TestFeatureSpans_SayWhatEncodeWrites(t *testing.T) {
	for _, name := range testVariants {
		v, err := engine.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		// A position a few actions in, so that the seat to move is not 0
		// and the board has pieces.
		p := v.Start()
		buf := make([]engine.Action, 0, engine.MaxActions)
		for i := 0; i < 4 || p.Side == 0; i++ {
			p = v.Apply(&p, v.Legal(&p, buf)[0])
		}
		enc := model.EncoderMill // the board's features, then the mills'
		x := make([]float32, model.FeatureSize(v, enc))
		model.Encode(v, enc, &p, 0, x)
		side := int(p.Side)
		seat := spanOf(t, v, enc, "the absolute seat to move")
		for i := seat.Lo; i < seat.Hi; i++ {
			if want := float32(b2i(i-seat.Lo == side)); x[i] != want {
				t.Errorf("%s: seat-to-move feature %d = %v, want %v (side %d)", name, i, x[i], want, side)
			}
		}
		own := featureSpans(v, enc)[0]
		for i := own.Lo; i < own.Hi; i++ {
			if want := float32(p.Pieces[side] >> (i - own.Lo) & 1); x[i] != want {
				t.Errorf("%s: relative seat 0 plane, point %d = %v, want %v", name, i-own.Lo, x[i], want)
			}
		}
		empty := spanOf(t, v, enc, "1 where point i is empty")
		n := 0
		for i := empty.Lo; i < empty.Hi; i++ {
			n += int(x[i])
		}
		if want := v.Board.Points - bits.OnesCount32(p.Occupied()); n != want {
			t.Errorf("%s: %d empty-point features set, want %d", name, n, want)
		}
		phase := spanOf(t, v, enc, "phase of the seat to move")
		if x[phase.Lo] != float32(b2i(p.Hand[side] > 0 && !p.Removing())) {
			t.Errorf("%s: placing phase feature %v with %d in hand", name, x[phase.Lo], p.Hand[side])
		}
		// The mill features of relative seat 1, from their definitions.
		other := p.Pieces[(side+1)%v.Players]
		free := v.Board.All &^ p.Occupied()
		closing := spanOf(t, v, enc, "relative seat 1: 1 where point i is empty and completes a line")
		mobile := spanOf(t, v, enc, "relative seat 1: 1 where point i holds one of its pieces with an empty neighbour")
		moves := spanOf(t, v, enc, "relative seat 1: its moves along the lines")
		count := 0
		for i := 0; i < v.Board.Points; i++ {
			completes := false
			for _, l := range v.Board.Lines {
				completes = completes || (l>>i&1 != 0 && free>>i&1 != 0 && bits.OnesCount32(l&other) == 2)
			}
			if x[closing.Lo+i] != float32(b2i(completes)) {
				t.Errorf("%s: completes-a-line feature of point %d = %v, want %v", name, i, x[closing.Lo+i], completes)
			}
			k := 0
			if other>>i&1 != 0 {
				k = bits.OnesCount32(v.Board.Adjacent[i] & free)
			}
			count += k
			if x[mobile.Lo+i] != float32(b2i(k > 0)) {
				t.Errorf("%s: can-move feature of point %d = %v, want %v", name, i, x[mobile.Lo+i], k > 0)
			}
		}
		if want := min(float32(count)/float32(2*v.Pieces), 1); x[moves.Lo] != want {
			t.Errorf("%s: moves feature %v, want %v (%d moves)", name, x[moves.Lo], want, count)
		}
	}
}

// TestFeatureSpans_AreWhatAGraphNetworkGathers: the exported graph
// network reads as a point's planes (features.point_index, [P, planes])
// exactly the spans feature_layout describes point by point ("point i"),
// in their order, and as the whole position's inputs
// (features.global_index) every other index.
func TestFeatureSpans_AreWhatAGraphNetworkGathers(t *testing.T) {
	for i, name := range testVariants {
		v, n := randomNetOf(t, name, smallGraph, uint64(300+i))
		b, err := Encode(v, n, Info{})
		if err != nil {
			t.Fatal(err)
		}
		d := decode(t, b)
		P := v.Board.Points
		var planes []span
		var globals []int64
		for _, sp := range featureSpans(v, n.Arch.Encoder) {
			if strings.Contains(sp.What, "point i ") {
				if sp.Hi-sp.Lo != P {
					t.Fatalf("%s: span [%d:%d] %q of a point is not %d long", name, sp.Lo, sp.Hi, sp.What, P)
				}
				planes = append(planes, sp)
				continue
			}
			for f := sp.Lo; f < sp.Hi; f++ {
				globals = append(globals, int64(f))
			}
		}
		point, global := d.init["features.point_index"], d.init["features.global_index"]
		if fmt.Sprint(point.dims) != fmt.Sprint([]int{P, len(planes)}) || len(point.ints) != P*len(planes) {
			t.Fatalf("%s: point index of dims %v (%d values), want [%d %d]", name, point.dims, len(point.ints), P, len(planes))
		}
		for p := range P {
			for k, sp := range planes {
				if got := point.ints[p*len(planes)+k]; got != int64(sp.Lo+p) {
					t.Errorf("%s: point %d, plane %d reads feature %d, the layout's %q is at %d", name, p, k, got, sp.What, sp.Lo+p)
				}
			}
		}
		if fmt.Sprint(global.ints) != fmt.Sprint(globals) || fmt.Sprint(global.dims) != fmt.Sprint([]int{len(globals)}) {
			t.Errorf("%s: the position's inputs are %v (dims %v), the layout's other spans %v", name, global.ints, global.dims, globals)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestPolicyLayout_RangesEndAtTheActionSpace(t *testing.T) {
	for _, name := range []string{"nine", "moulin-rouge"} {
		v, err := engine.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		n := v.Board.Points
		s := PolicyLayout(v)
		last := n + n*n
		if v.Board.Rotating {
			last = 2*n + n*n
		}
		for _, want := range []string{"[0:" + itoa(n) + "] place", ":" + itoa(v.NumActions()) + "]", itoa(last) + ":"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: policy layout lacks %q:\n%s", name, want, s)
			}
		}
		// The layout's formulas agree with the engine's numbering.
		if got := v.ActionIndex(engine.MoveFromTo(3, 5)); got != n+3*n+5 {
			t.Errorf("%s: move 3-5 is index %d, the layout says %d", name, got, n+3*n+5)
		}
		if got := v.ActionIndex(engine.RemoveAt(4)); got != n+n*n+4 {
			t.Errorf("%s: remove 4 is index %d, the layout says %d", name, got, n+n*n+4)
		}
		if v.Board.Rotating {
			if got := v.ActionIndex(engine.RotateRing(1, false)); got != 2*n+n*n+2+1 {
				t.Errorf("%s: ring 2 counter-clockwise is index %d, the layout says %d", name, got, 2*n+n*n+3)
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestOutcomeLayout_ClassesMatchAbsoluteOutcome(t *testing.T) {
	v, err := engine.Load("moulin-rouge-3")
	if err != nil {
		t.Fatal(err)
	}
	s := OutcomeLayout(v)
	for _, want := range []string{"class 0: the seat to move wins", "class 1: absolute seat (side to move + 1) mod 3 wins", "class 3: a draw"} {
		if !strings.Contains(s, want) {
			t.Errorf("outcome layout lacks %q:\n%s", want, s)
		}
	}
	// What the layout says, per model.AbsoluteOutcome: side 2, class 1 is seat 0.
	if got := model.AbsoluteOutcome(1, 2, 3); got != 0 {
		t.Errorf("AbsoluteOutcome(1, side 2, 3 players) = %d, the layout says 0", got)
	}
}
