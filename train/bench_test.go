package train

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// BenchmarkTrainStep is one optimizer step (forward, backward, Adam) for
// nine men's morris: the run config's network (configs/runs/nine.yaml,
// 128x2) and the default one (model.DefaultConfig, 256x3), at batch 256
// and 1024, with the trainer's default threads (one graph per core: run
// with -cpu 1,2 for one and two cores). Compare samples/s with
// scripts/pytorch/bench_train.py, the same network and loss in PyTorch
// (scripts/pytorch/compare.sh runs both). B/op and allocs/op are a step's
// after the first, which makes the buffers: 0 (runtime's channel waiters
// after a collection aside, a few bytes a step in all).
func BenchmarkTrainStep(b *testing.B) {
	for _, net := range benchNets {
		for _, batch := range []int{256, 1024} {
			b.Run(fmt.Sprintf("net=%dx%d/batch=%d", net.Width, net.Blocks, batch), func(b *testing.B) {
				benchStep(b, net, batch, 0, 0)
			})
		}
	}
}

// BenchmarkTrainStepSplitGEMM is BenchmarkTrainStep on one graph, whatever
// the cores: only the matrix products are split over them (the other way
// of using two cores, slower than a graph per core).
func BenchmarkTrainStepSplitGEMM(b *testing.B) {
	for _, net := range benchNets {
		b.Run(fmt.Sprintf("net=%dx%d/batch=256", net.Width, net.Blocks), func(b *testing.B) {
			benchStep(b, net, 256, 1, 0)
		})
	}
}

// BenchmarkTrainStepWeightEMA is BenchmarkTrainStep of the run config's
// network at batch 256 without and with the weights' moving average
// (train.weight_ema, on in the default run): its cost is one more pass
// over the weights a step.
func BenchmarkTrainStepWeightEMA(b *testing.B) {
	for _, ema := range []float64{0, 0.999} {
		b.Run(fmt.Sprintf("weight_ema=%g", ema), func(b *testing.B) {
			benchStep(b, model.Config{Width: 128, Blocks: 2}, 256, 0, ema)
		})
	}
}

// BenchmarkTrainStepGraphNetwork is BenchmarkTrainStep of the run
// config's MLP (128x2, feature set 3) and of graph networks of 32 and 64
// channels a point and two blocks on the same features
// (model.KindGraph), at batch 256 and 1024.
func BenchmarkTrainStepGraphNetwork(b *testing.B) {
	for _, net := range []model.Config{{Width: 128, Blocks: 2, Features: 3}, {Kind: model.KindGraph, Width: 32, Blocks: 2, Features: 3}, {Kind: model.KindGraph, Width: 64, Blocks: 2, Features: 3}} {
		for _, batch := range []int{256, 1024} {
			b.Run(fmt.Sprintf("net=%s/batch=%d", model.NewArch(mustVariant(b, "nine"), net), batch), func(b *testing.B) {
				benchStep(b, net, batch, 0, 0)
			})
		}
	}
}

// BenchmarkTrainStepAuxHeads is BenchmarkTrainStep of the default graph
// network (32x2, feature set 3) at batch 256 and 1024 with the auxiliary
// heads (model.Aux) off, each alone and all three, at the weights
// configs/experiments/aux.yaml trains them with.
func BenchmarkTrainStepAuxHeads(b *testing.B) {
	v := mustVariant(b, "nine")
	net := model.Config{Kind: model.KindGraph, Width: 32, Blocks: 2, Features: 3}
	for _, h := range []model.Aux{0, model.AuxOwnership, model.AuxScore, model.AuxReply, model.AuxOwnership | model.AuxScore | model.AuxReply} {
		for _, batch := range []int{256, 1024} {
			b.Run(fmt.Sprintf("heads=%v/batch=%d", h, batch), func(b *testing.B) {
				c := plainConfig()
				c.BatchSize = batch
				if h&model.AuxOwnership != 0 {
					c.OwnershipWeight = 1.5
				}
				if h&model.AuxScore != 0 {
					c.ScoreWeight = 0.5
				}
				if h&model.AuxReply != 0 {
					c.ReplyWeight = 0.15
				}
				tr := newTrainer(b, v, newAuxNet(b, v, net, h, 1), c)
				benchSteps(b, tr, randomSamples(b, v, c.BatchSize, 1))
			})
		}
	}
}

// benchNets are the networks of the benchmarks: the run config's and the
// default.
var benchNets = []model.Config{{Width: 128, Blocks: 2}, {Width: 256, Blocks: 3}}

func benchStep(b *testing.B, nc model.Config, batchSize, threads int, ema float64) {
	v := mustVariant(b, "nine")
	c := plainConfig()
	c.BatchSize = batchSize
	c.Threads = threads
	c.WeightEMA = ema
	tr := newTrainer(b, v, newNet(b, v, nc, 1), c)
	benchSteps(b, tr, randomSamples(b, v, c.BatchSize, 1))
}

// benchSteps times b.N steps of tr on batch, after a first one that
// allocates the buffers, and reports their speed and roofline
// (reportRoofline). B/op and allocs/op are the steps' after the first.
func benchSteps(b *testing.B, tr *Trainer, batch []dataset.Sample) {
	if _, err := tr.Step(batch); err != nil { // the first step allocates the graphs' buffers
		b.Fatal(err)
	}
	b.ReportAllocs()
	// b.N rather than b.Loop: with b.Loop the first -cpu value's figure
	// is measured in the probing run, at the GOMAXPROCS left from before,
	// and the trainer takes its workers from GOMAXPROCS.
	cpu0, haveCPU := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportRoofline(b, tr.net.Arch, b.N*len(batch), cpu0, haveCPU)
}

// reportRoofline reports the speed of training samples samples since the
// benchmark's timer and the process's CPU time cpu0 started: samples/s of
// the wall clock and samples/cpu-s of the CPU time on all threads (what
// the work costs, whatever else runs on the machine: on a busy machine
// the process gets less than GOMAXPROCS cores), and the roofline of a
// step: MAC/sample, its multiply-adds (the forward pass's, model.Arch.MACs,
// as bench model counts them, and twice those for the backward pass: the
// gradients by a product's two factors), GFLOP/s (two operations a
// multiply-add), and that as a share of the peak of the cores the
// benchmark runs on (model.PeakGFLOPSPerCore times GOMAXPROCS), %peak of
// the wall clock and %peak-cpu of the CPU time (of one core's peak per
// CPU-second).
func reportRoofline(b *testing.B, a model.Arch, samples int, cpu0 time.Duration, haveCPU bool) {
	sps := float64(samples) / b.Elapsed().Seconds()
	b.ReportMetric(sps, "samples/s")
	macs := 3 * float64(a.MACs())
	b.ReportMetric(macs, "MAC/sample")
	peak, _ := model.PeakGFLOPSPerCore()
	gflops := sps * 2 * macs / 1e9
	b.ReportMetric(gflops, "GFLOP/s")
	b.ReportMetric(100*gflops/(peak*float64(runtime.GOMAXPROCS(0))), "%peak")
	if cpu1, ok := cpuTime(); ok && haveCPU && cpu1 > cpu0 {
		cps := float64(samples) / (cpu1 - cpu0).Seconds()
		b.ReportMetric(cps, "samples/cpu-s")
		b.ReportMetric(100*cps*2*macs/1e9/peak, "%peak-cpu")
	}
}

// BenchmarkTrainStepGonumBLAS is BenchmarkTrainStep of the default
// network on one graph with gonum's pure-Go Sgemm for every product,
// Gorgonia's ops and the kernels alike: the baseline kernelBLAS is
// measured against.
func BenchmarkTrainStepGonumBLAS(b *testing.B) {
	v := mustVariant(b, "nine")
	c := plainConfig()
	net := newNet(b, v, model.Config{Width: 256, Blocks: 3}, 1)
	c.Threads = 1
	tr := newTrainerWith(b, v, net, c, backend{blas: gonum.Implementation{}, simd: haveAVX2()})
	batch := randomSamples(b, v, c.BatchSize, 1)
	for b.Loop() {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*c.BatchSize)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkFitFromWindow is the loop's training phase in small: Fit's
// steps of the run config's network (128x2, batch 256) and of the one
// nine-long grows into (256x3) on batches read from a shuffled, augmented
// window over four generations of Parquet shards, as the loop reads them:
// the step's cost with the reading's beside it (compare BenchmarkTrainStep).
func BenchmarkFitFromWindow(b *testing.B) {
	v := mustVariant(b, "nine")
	dir := b.TempDir()
	const perGen = 5000
	samples := randomSamples(b, v, 4*perGen, 5)
	for g := 0; g < 4; g++ {
		w, err := dataset.NewShardWriter(filepath.Join(dir, store.ModelName(g)), nil, v)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(samples[g*perGen : (g+1)*perGen]...); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	// The MLPs of the board encoder, the default's graph network and the night's.
	for _, net := range []model.Config{{Width: 128, Blocks: 2}, {Width: 256, Blocks: 3}, {Kind: model.KindGraph, Width: 32, Blocks: 2, Features: 3}, {Kind: model.KindGraph, Width: 64, Blocks: 2, Features: 3}} {
		name := fmt.Sprintf("%dx%d", net.Width, net.Blocks)
		if net.Kind == model.KindGraph {
			name = "graph-" + name
		}
		for _, keep := range []bool{false, true} {
			b.Run(fmt.Sprintf("net=%s/keep=%v", name, keep), func(b *testing.B) {
				fitFromWindow(b, v, dir, net, keep)
			})
		}
	}
}

// fitFromWindow is BenchmarkFitFromWindow of one network, the window's
// samples kept in memory after its first pass (as the loop's are) or read
// from Parquet every pass.
func fitFromWindow(b *testing.B, v *engine.Variant, dir string, net model.Config, keep bool) {
	c := plainConfig()
	tr := newTrainer(b, v, newNet(b, v, net, 1), c)
	src, err := dataset.OpenWindow(dir, dataset.WindowOptions{Shuffle: 4096, Augment: true, Repeat: true, Seed: 1, FullOnly: true, Variant: v, Keep: keep})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	if _, err := tr.Fit(b.Context(), src, 2, 0, nil); err != nil { // the first step makes the buffers
		b.Fatal(err)
	}
	cpu0, haveCPU := cpuTime()
	b.ResetTimer()
	if _, err := tr.Fit(b.Context(), src, b.N, 0, nil); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportRoofline(b, tr.net.Arch, b.N*c.BatchSize, cpu0, haveCPU)
}
