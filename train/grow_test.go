package train

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/millzero/millzero/model"
)

// A checkpoint grown to a wider, deeper trunk restores into a trainer of
// the grown network, which starts from the same losses (the same function)
// and trains the added units on from there: an MLP's and a graph
// network's.
func TestGrowCheckpoint_TrainingGoesOnFromTheSameFunction(t *testing.T) {
	v := mustVariant(t, "nine")
	kinds := []struct {
		name        string
		small, big  model.Config
		input       string // the input weight, whose added columns the test reads
		policyIndex func(model.Arch) int
	}{
		{"mlp", model.Config{Width: 16, Blocks: 1}, model.Config{Width: 24, Blocks: 2}, "input.weight",
			func(a model.Arch) int { return 4*a.Blocks + 2 }},
		{"graph", graphConfig(16, 1, 0), graphConfig(24, 2, 0), "input.point.weight",
			func(a model.Arch) int { p, _, _ := a.GraphHeads(); return p }},
	}
	for _, kind := range kinds {
		for _, opt := range []string{"adam", "sgd"} {
			t.Run(kind.name+"/"+opt, func(t *testing.T) {
				c := plainConfig()
				c.BatchSize = 16
				c.Optimizer = opt
				c.WeightEMA = 0.9
				samples := randomSamples(t, v, 6*c.BatchSize, 2)
				small := newTrainer(t, v, newNet(t, v, kind.small, 3), c)
				for k := 0; k < 3; k++ {
					if _, err := small.Step(samples[k*16 : k*16+16]); err != nil {
						t.Fatal(err)
					}
				}
				path := filepath.Join(t.TempDir(), "ck.safetensors")
				if err := small.Checkpoint(4).Save(path); err != nil {
					t.Fatal(err)
				}
				ck, err := model.LoadCheckpointFor(path, v)
				if err != nil {
					t.Fatal(err)
				}
				to := kind.big
				g, err := GrowCheckpoint(ck, to, 7)
				if err != nil {
					t.Fatal(err)
				}
				if g.Net.Arch != model.NewArch(v, to) || g.Steps != 3 || g.Generation != 4 {
					t.Fatalf("grown: %v, %d steps, generation %d", g.Net.Arch, g.Steps, g.Generation)
				}
				// Through a file again, as the loop does.
				if err := g.Save(path); err != nil {
					t.Fatal(err)
				}
				if g, err = model.LoadCheckpointFor(path, v); err != nil {
					t.Fatal(err)
				}
				big := newTrainer(t, v, g.Net.Clone(), c)
				if err := big.Restore(g); err != nil {
					t.Fatal(err)
				}
				probe := samples[48:64]
				want, _ := small.Loss(probe)
				got, _ := big.Loss(probe)
				if math.Abs(got.Policy-want.Policy) > 1e-5 || math.Abs(got.Outcome-want.Outcome) > 1e-5 {
					t.Fatalf("grown loss %v, before growing %v", got, want)
				}
				// The average grew with the same added weights as the trained
				// ones: the input layer's added unit 20 reads alike in both.
				var trained []float32
				for _, e := range g.Extra {
					if e.Name == trainedPrefix+kind.input {
						trained = e.Data
					}
				}
				in := g.Net.Params[0].Data
				if len(trained) != len(in) {
					t.Fatalf("trained %s: %d values, want %d", kind.input, len(trained), len(in))
				}
				for r := 0; r < len(in)/24; r++ {
					if in[r*24+20] != trained[r*24+20] || in[r*24+20] == 0 {
						t.Fatalf("added weight [%d,20]: average %v, trained %v", r, in[r*24+20], trained[r*24+20])
					}
				}
				for k := 3; k < 6; k++ {
					if _, err := big.Step(samples[k*16 : k*16+16]); err != nil {
						t.Fatal(err)
					}
				}
				// The added units now send something: the policy head's rows
				// from units 16..23 moved from zero.
				p := big.Network().Params[kind.policyIndex(big.Network().Arch)]
				moved := 0
				for r := 16; r < 24; r++ {
					for _, x := range p.Data[r*p.Shape[1] : (r+1)*p.Shape[1]] {
						if x != 0 {
							moved++
						}
					}
				}
				if moved == 0 {
					t.Error("the added units' outgoing weights are still zero after three steps")
				}
				after, _ := big.Loss(probe)
				if math.IsNaN(after.Total) || math.IsInf(after.Total, 0) {
					t.Errorf("loss after growing and training: %v", after)
				}
			})
		}
	}
}

func TestGrowCheckpoint_RefusesStateItCannotGrow(t *testing.T) {
	v := mustVariant(t, "three")
	tr := newTrainer(t, v, newNet(t, v, model.Config{Width: 8, Blocks: 1}, 1), plainConfig())
	ck := tr.Checkpoint(1)
	ck.Extra = append(ck.Extra, model.Param{Name: "mystery", Shape: []int{1}, Data: []float32{1}})
	if _, err := GrowCheckpoint(ck, model.Config{Width: 16, Blocks: 1}, 1); err == nil {
		t.Error("an extra tensor it does not know: no error")
	}
	if _, err := GrowCheckpoint(tr.Checkpoint(1), model.Config{Width: 4, Blocks: 1}, 1); err == nil {
		t.Error("shrinking: no error")
	}
}
