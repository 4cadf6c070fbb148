package model

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/millzero/millzero/engine"
)

// PeakGFLOPSPerCore is the fp32 peak of one core of the reference machine
// with the kernel the products run on: two 8-wide AVX2 FMA units at about
// 3.7 GHz (2·2·8·3.7 ≈ 118), twice that where the 16-wide AVX-512 kernel
// runs (two 512-bit FMA pipes assumed, as on the machines measured).
func PeakGFLOPSPerCore() (gflops float64, kernel string) {
	switch {
	case haveKernels512():
		return 236, "AVX-512 FMA"
	case haveKernels():
		return 118, "AVX2 FMA"
	}
	return 118, "plain Go; the AVX2 FMA figure"
}

// BenchBatches is the batch sizes Bench measures by default.
func BenchBatches() []int { return []int{1, 16, 64, 256} }

// BenchResult is the forward pass's speed at one batch size.
type BenchResult struct {
	Batch        int
	Calls        int
	Elapsed      time.Duration
	PositionsSec float64 // positions per second
	GFLOPS       float64 // 2 × multiply-adds per position × positions per second
}

// Bench measures the forward pass (Forward.Run, one goroutine) of a
// randomly initialised network of architecture NewArch(v, c) at each batch
// size, running each for at least minTime.
func Bench(v *engine.Variant, c Config, batches []int, minTime time.Duration) (Arch, []BenchResult, error) {
	a := NewArch(v, c)
	n, err := New(v.Name, a, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return a, nil, fmt.Errorf("bench model: %w", err)
	}
	var out []BenchResult
	for _, batch := range batches {
		if batch < 1 {
			return a, nil, fmt.Errorf("bench model: batch %d: want 1 or more", batch)
		}
		f := NewForward(n, batch)
		rng := rand.New(rand.NewPCG(3, 4))
		x := make([]float32, batch*a.Inputs)
		for i := range x {
			x[i] = float32(rng.IntN(2)) // features are mostly 0/1
		}
		pol := make([]float32, batch*a.Actions)
		oc := make([]float32, batch*a.Outcomes)
		if err := f.Run(x, batch, pol, oc); err != nil { // warm up
			return a, nil, fmt.Errorf("bench model: %w", err)
		}
		calls := 0
		start := time.Now()
		var el time.Duration
		for el < minTime {
			for i := 0; i < 8; i++ {
				f.Run(x, batch, pol, oc)
			}
			calls += 8
			el = time.Since(start)
		}
		pos := float64(calls*batch) / el.Seconds()
		out = append(out, BenchResult{Batch: batch, Calls: calls, Elapsed: el, PositionsSec: pos,
			GFLOPS: pos * 2 * float64(a.MACs()) / 1e9})
	}
	return a, out, nil
}

// WriteBench prints Bench's results as a table.
func WriteBench(w io.Writer, variant string, a Arch, rs []BenchResult) {
	fmt.Fprintf(w, "model: forward pass of %v (%s), %d multiply-adds per position, one goroutine\n", a, variant, a.MACs())
	fmt.Fprintf(w, "%6s %14s %12s %9s %8s\n", "batch", "positions/s", "µs/call", "GFLOP/s", "of peak")
	peak, kernel := PeakGFLOPSPerCore()
	for _, r := range rs {
		fmt.Fprintf(w, "%6d %14.0f %12.1f %9.1f %7.0f%%\n", r.Batch, r.PositionsSec,
			r.Elapsed.Seconds()*1e6/float64(r.Calls), r.GFLOPS, 100*r.GFLOPS/peak)
	}
	fmt.Fprintf(w, "peak: %.0f GFLOP/s per core (fp32, %s)\n", peak, kernel)
}
