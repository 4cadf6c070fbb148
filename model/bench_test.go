package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// BenchmarkForward is the forward pass of the default network for nine men's
// morris at the batch sizes of BenchBatches.
func BenchmarkForward(b *testing.B) {
	v := mustVariant(b, "nine")
	a := NewArch(v, Config{Width: 256, Blocks: 3})
	n, err := New(v.Name, a, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range BenchBatches() {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			f := NewForward(n, batch)
			x := make([]float32, batch*a.Inputs)
			for i := range x {
				x[i] = float32(i % 2)
			}
			pol := make([]float32, batch*a.Actions)
			oc := make([]float32, batch*a.Outcomes)
			b.ReportAllocs()
			for b.Loop() {
				f.Run(x, batch, pol, oc)
			}
			pos := float64(b.N*batch) / b.Elapsed().Seconds()
			b.ReportMetric(pos, "positions/s")
			b.ReportMetric(pos*2*float64(a.MACs())/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkTrunk is Forward.Trunk, the search's forward pass, on batches
// of 128 positions of nine men's morris with the tactics' features (3):
// the run config's MLP (128x2) against graph networks of 24 and 32
// channels a point and two blocks. ns/position is the figure to compare.
func BenchmarkTrunk(b *testing.B) {
	v := mustVariant(b, "nine")
	const batch = 128
	for _, c := range []Config{
		{Width: 128, Blocks: 2, Features: EncoderTactics},
		{Width: 24, Blocks: 2, Features: EncoderTactics, Kind: KindGraph},
		{Width: 32, Blocks: 2, Features: EncoderTactics, Kind: KindGraph},
	} {
		a := NewArch(v, c)
		kind := KindMLP
		if c.Kind != "" {
			kind = c.Kind
		}
		b.Run(fmt.Sprintf("net=%s-%dx%d", kind, c.Width, c.Blocks), func(b *testing.B) {
			n, err := New(v.Name, a, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			f := NewForward(n, batch)
			x := make([]float32, batch*a.Inputs)
			for i, p := range playedPositions(v, batch, 1) {
				Encode(v, a.Encoder, &p, 0, x[i*a.Inputs:(i+1)*a.Inputs])
			}
			oc := make([]float32, batch*a.Outcomes)
			b.ReportAllocs()
			for b.Loop() {
				if err := f.Trunk(x, batch, oc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/position")
		})
	}
}

// BenchmarkEvaluate is the whole evaluator (features, forward, softmaxes)
// at batch 64 on nine men's morris: the default network (256x3) and the run
// config's (128x2), each with the board's features, the mills' and the
// tactics' (model.features 1, 2 and 3), whose cost is the encoding's and
// the wider first layer's.
func BenchmarkEvaluate(b *testing.B) {
	v := mustVariant(b, "nine")
	batch := positionsBatch(b, v, 64, 1)
	for _, c := range []Config{{Width: 256, Blocks: 3}, {Width: 128, Blocks: 2}} {
		for _, enc := range []int{EncoderBoard, EncoderMill, EncoderTactics} {
			c.Features = enc
			b.Run(fmt.Sprintf("net=%dx%d/features=%d", c.Width, c.Blocks, enc), func(b *testing.B) {
				n, _ := New(v.Name, NewArch(v, c), rand.New(rand.NewPCG(1, 2)))
				e, err := NewEvaluator(v, n, 64, true, 1)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := e.Evaluate(batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "positions/s")
			})
		}
	}
}

func TestBenchReportsEveryBatch(t *testing.T) {
	v := mustVariant(t, "three")
	a, rs, err := Bench(v, Config{Width: 16, Blocks: 1}, []int{1, 5}, time.Millisecond)
	if err != nil || len(rs) != 2 || rs[1].Batch != 5 || !(rs[0].PositionsSec > 0) || !(rs[1].GFLOPS > 0) {
		t.Fatalf("Bench: %v %+v", err, rs)
	}
	var sb strings.Builder
	WriteBench(&sb, "three", a, rs)
	if !strings.Contains(sb.String(), a.String()) || strings.Count(sb.String(), "\n") != 5 {
		t.Errorf("table:\n%s", sb.String())
	}
	if _, _, err := Bench(v, Config{Width: 16, Blocks: 1}, []int{0}, time.Millisecond); err == nil {
		t.Error("batch 0: no error")
	}
}

// BenchmarkEvaluateAuxHeads is BenchmarkEvaluate of the default graph
// network (32x2, the tactics features) without auxiliary heads and with
// all three: self-play's evaluator reads none of them, so the two are
// the same work.
func BenchmarkEvaluateAuxHeads(b *testing.B) {
	v := mustVariant(b, "nine")
	batch := positionsBatch(b, v, 64, 1)
	for _, h := range []Aux{0, AuxOwnership | AuxScore | AuxReply} {
		b.Run(fmt.Sprintf("heads=%v", h), func(b *testing.B) {
			a := NewArch(v, DefaultConfig())
			a.Aux = h
			n, err := New(v.Name, a, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			e, err := NewEvaluator(v, n, 64, true, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Evaluate(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "positions/s")
		})
	}
}
