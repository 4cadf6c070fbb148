package train

import (
	"context"
	"strings"
	"testing"

	"github.com/millzero/millzero/model"
)

// A symmetric network stays tied through training, on one worker and on
// several, with the moving average too, and learns.
func TestTrainer_KeepsASymmetricNetworkTied(t *testing.T) {
	v := mustVariant(t, "nine")
	samples := randomSamples(t, v, 256, 9)
	for _, threads := range []int{1, 3} {
		net := newNet(t, v, model.Config{Width: 53, Blocks: 1, Features: model.EncoderTactics, Symmetric: true}, 1)
		tie, err := model.NewTying(v, net.Arch)
		if err != nil {
			t.Fatal(err)
		}
		if err := tie.Init(net); err != nil {
			t.Fatal(err)
		}
		c := DefaultConfig()
		c.BatchSize, c.Threads, c.WeightEMA = 32, threads, 0.9
		tr := newTrainer(t, v, net, c)
		first, err := tr.Loss(samples[:32])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Fit(context.Background(), &sliceSource{s: samples}, 40, 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := tie.Check(tr.Network()); err != nil {
			t.Errorf("threads %d: after 40 steps: %v", threads, err)
		}
		if err := tie.Check(tr.Checkpoint(1).Net); err != nil {
			t.Errorf("threads %d: the moving average: %v", threads, err)
		}
		last, err := tr.Loss(samples[:32])
		if err != nil {
			t.Fatal(err)
		}
		if last.Total >= first.Total {
			t.Errorf("threads %d: loss %v after 40 steps, %v before: a tied network does not learn", threads, last.Total, first.Total)
		}
	}
}

func TestTrainer_RefusesAnUntiedSymmetricNetwork(t *testing.T) {
	v := mustVariant(t, "nine")
	net := newNet(t, v, model.Config{Width: 48, Blocks: 1, Symmetric: true}, 1)
	c := DefaultConfig()
	c.BatchSize, c.Threads = 8, 1
	if _, err := New(v, net, c); err == nil || !strings.Contains(err.Error(), "not tied") {
		t.Errorf("an untied symmetric network: %v", err)
	}
}
