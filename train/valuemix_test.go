package train

import (
	"math"
	"strings"
	"testing"

	"github.com/millzero/millzero/model"
)

// TestValueMix_TheOutcomeTargetMixesResultAndRootValue: with value_mix λ
// the outcome loss is the cross-entropy against (1-λ)·result + λ·the root
// value's least decisive distribution, computed here from the network's
// own forward pass; a root value outside 0..1 is refused by name, and so
// is a mix for more than two players.
func TestValueMix_TheOutcomeTargetMixesResultAndRootValue(t *testing.T) {
	v := mustVariant(t, "nine")
	net := newNet(t, v, model.Config{Width: 16, Blocks: 1}, 1)
	c := plainConfig()
	c.BatchSize, c.ValueMix, c.Threads = 8, 0.4, 1
	batch := randomSamples(t, v, c.BatchSize, 2)
	for i := range batch {
		batch[i].RootValue = float32(i) / float32(len(batch)-1) // 0 .. 1, both halves and the ends
	}
	tr := newTrainer(t, v, net.Clone(), c)
	got, err := tr.Loss(batch)
	if err != nil {
		t.Fatal(err)
	}
	a := net.Arch
	f := model.NewForward(net, len(batch))
	x := make([]float32, len(batch)*a.Inputs)
	for i := range batch {
		model.Encode(v, a.Encoder, &batch[i].Position, batch[i].Repetitions, x[i*a.Inputs:(i+1)*a.Inputs])
	}
	pl, ol := make([]float32, len(batch)*a.Actions), make([]float32, len(batch)*a.Outcomes)
	if err := f.Run(x, len(batch), pl, ol); err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for i, s := range batch {
		q := float64(s.RootValue)
		target := []float64{math.Max(0, 2*q-1), math.Max(0, 1-2*q), 1 - math.Abs(2*q-1)} // mover wins, other wins, draw
		for k := range target {
			target[k] *= c.ValueMix
		}
		target[model.RelativeOutcome(s.Outcome, int(s.Position.Side), v.Players)] += 1 - c.ValueMix
		row := ol[i*a.Outcomes : (i+1)*a.Outcomes]
		lse := 0.0
		for _, o := range row {
			lse += math.Exp(float64(o))
		}
		for k, p := range target {
			want -= p * (float64(row[k]) - math.Log(lse))
		}
	}
	want /= float64(len(batch))
	if math.Abs(got.Outcome-want) > 1e-5*math.Max(1, want) {
		t.Errorf("outcome loss %v with value_mix %v, want %v", got.Outcome, c.ValueMix, want)
	}
	c.ValueMix = 0
	plain, err := newTrainer(t, v, net.Clone(), c).Loss(batch)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(plain.Outcome-got.Outcome) < 1e-4 {
		t.Errorf("outcome loss %v with value_mix 0, the same as with 0.4: the mix changed nothing", plain.Outcome)
	}

	batch[3].RootValue = 1.5
	if _, err := tr.Loss(batch); err == nil || !strings.Contains(err.Error(), "root value 1.5") {
		t.Errorf("a root value of 1.5: %v, want an error naming it", err)
	}
	c.ValueMix = 0.4
	v3 := mustVariant(t, "moulin-rouge-3")
	if _, err := New(v3, newNet(t, v3, model.Config{Width: 16, Blocks: 1}, 1), c); err == nil || !strings.Contains(err.Error(), "value_mix") {
		t.Errorf("value_mix with three players: %v, want an error naming value_mix", err)
	}
	c.ValueMix = 1.2
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "value_mix") {
		t.Errorf("value_mix 1.2: %v, want an error naming it", err)
	}
}
