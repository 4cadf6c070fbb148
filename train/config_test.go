package train

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestConfigReadsFromYAMLOverTheDefaults(t *testing.T) {
	c := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader([]byte("batch_size: 128\noptimizer: sgd\nlr: 0.02\nschedule: step\ndecay_steps: 1000\nweight_decay: 0.0005\n")))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.BatchSize, want.Optimizer, want.LR, want.Schedule, want.DecaySteps, want.WeightDecay = 128, "sgd", 0.02, "step", 1000, 0.0005
	if c != want {
		t.Errorf("decoded %+v, want %+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}
