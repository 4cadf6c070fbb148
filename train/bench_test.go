package train

import (
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"github.com/millzero/millzero/model"
)

// BenchmarkTrainStep is one optimizer step (forward, backward, Adam) of the
// default network for nine men's morris at the default batch size, with
// Gorgonia multiplying on the vek-backed BLAS. Compare samples/s with
// scripts/pytorch/bench_train.py, the same network and loss in PyTorch.
func BenchmarkTrainStep(b *testing.B) {
	v := mustVariant(b, "nine")
	c := DefaultConfig()
	net := newNet(b, v, model.DefaultConfig(), 1)
	tr := newTrainer(b, v, net, c)
	batch := randomSamples(b, v, c.BatchSize, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	sps := float64(b.N*c.BatchSize) / b.Elapsed().Seconds()
	b.ReportMetric(sps, "samples/s")
	// forward 1×, backward 2× the forward's multiply-adds
	b.ReportMetric(sps*3*2*float64(net.Arch.MACs())/1e9, "GFLOP/s")
}

// BenchmarkTrainStepGonumBLAS is BenchmarkTrainStep with gonum's pure-Go
// Sgemm, the baseline the vek-backed BLAS is measured against.
func BenchmarkTrainStepGonumBLAS(b *testing.B) {
	v := mustVariant(b, "nine")
	c := DefaultConfig()
	net := newNet(b, v, model.DefaultConfig(), 1)
	tr := newTrainer(b, v, net, c)
	G.Use(gonum.Implementation{})
	defer model.UseFastBLAS()
	batch := randomSamples(b, v, c.BatchSize, 1)
	for b.Loop() {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*c.BatchSize)/b.Elapsed().Seconds(), "samples/s")
}
