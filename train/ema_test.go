package train

import (
	"math"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/model"
)

// With weight_ema the checkpoint's network is the moving average of the
// weights after every step, with the decay growing to weight_ema; the
// trained weights travel beside it, and a trainer restored from it trains
// on from them, as one that never averaged.
func TestWeightEMA_TheCheckpointPlaysTheAverageAndTrainingGoesOnFromTheWeights(t *testing.T) {
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.BatchSize = 16
	plain := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 5), c)
	c.WeightEMA = 0.9
	avg := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 5), c)
	samples := randomSamples(t, v, 8*c.BatchSize, 6)
	batch := func(k int) []dataset.Sample { return samples[k*c.BatchSize : (k+1)*c.BatchSize] }

	// The average, computed here in float64 from the plain trainer's weights.
	want := make([][]float64, len(plain.net.Params))
	for i, p := range plain.net.Params {
		for _, x := range p.Data {
			want[i] = append(want[i], float64(x))
		}
	}
	for k := 0; k < 5; k++ {
		d := math.Min(0.9, float64(1+k)/float64(10+k))
		for _, tr := range []*Trainer{plain, avg} {
			if _, err := tr.Step(batch(k)); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range plain.net.Params {
			for j, x := range p.Data {
				want[i][j] = d*want[i][j] + (1-d)*float64(x)
			}
		}
	}
	ck := avg.Checkpoint(1)
	trained := map[string][]float32{}
	for _, e := range ck.Extra {
		trained[e.Name] = e.Data
	}
	for i, p := range ck.Net.Params {
		for j, x := range p.Data {
			if math.Abs(float64(x)-want[i][j]) > 1e-6*math.Max(1, math.Abs(want[i][j])) {
				t.Fatalf("checkpoint %s[%d] = %v, want the average %v", p.Name, j, x, want[i][j])
			}
		}
		got, w := trained[trainedPrefix+p.Name], plain.net.Params[i].Data
		if len(got) != len(w) {
			t.Fatalf("checkpoint's trained %s: %d values, want %d", p.Name, len(got), len(w))
		}
		for j := range w {
			if got[j] != w[j] {
				t.Fatalf("checkpoint's trained %s[%d] = %v, training without the average %v", p.Name, j, got[j], w[j])
			}
		}
	}
	// Through a file, into a new trainer: it goes on from the trained weights.
	path := t.TempDir() + "/ck.safetensors"
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := model.LoadCheckpointFor(path, v)
	if err != nil {
		t.Fatal(err)
	}
	resumed := newTrainer(t, v, loaded.Net.Clone(), c)
	if err := resumed.Restore(loaded); err != nil {
		t.Fatal(err)
	}
	for k := 5; k < 8; k++ {
		for _, tr := range []*Trainer{plain, resumed} {
			if _, err := tr.Step(batch(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, p := range resumed.net.Params {
		for j, x := range p.Data {
			if w := plain.net.Params[i].Data[j]; x != w {
				t.Fatalf("resumed %s[%d] = %v, training without the average %v", p.Name, j, x, w)
			}
		}
	}
	if err := (Config{BatchSize: 1, Optimizer: "adam", LR: 1, Schedule: "constant", Epsilon: 1, WeightEMA: 1}).Validate(); err == nil {
		t.Error("weight_ema 1: no error")
	}
}
