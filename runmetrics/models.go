package runmetrics

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"

	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/store"
)

// ModelHours is the run hours at which each of the run's models was made,
// from metrics/generations.csv: generation g's row makes the model of
// generation g+1. The hours count every invocation of the run.
func ModelHours(d store.Dir) (map[int]float64, error) {
	t := Generations(d)
	if _, err := os.Stat(t.Path()); err != nil {
		return nil, fmt.Errorf("run %s: no generation finished yet (%w)", d, err)
	}
	rows, err := t.Rows()
	if err != nil {
		return nil, err
	}
	out := make(map[int]float64, len(rows))
	for _, r := range rows {
		if r.Generation >= 0 && !math.IsNaN(r.Hours) {
			out[r.Generation+1] = r.Hours
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run %s: %s has no generations", d, t.Path())
	}
	return out, nil
}

// Compute is what a run had spent when it made a model: its run hours, the
// positions its self-play searched (moves played, full and fast searches
// alike) and the samples its trainer fitted (steps times batch size), over
// every generation before the model's.
type Compute struct {
	Hours     float64
	Positions int64
	Samples   int64
}

// ModelCompute is the Compute at which each of the run's models was made,
// from metrics/generations.csv (hours, games and their mean plies) and
// metrics/losses.csv (the steps), with the batch size of run.yaml.
func ModelCompute(d store.Dir) (map[int]Compute, error) {
	hours, err := ModelHours(d)
	if err != nil {
		return nil, err
	}
	cfg, _, err := runconfig.LoadRunConfig(d.Config())
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d, err)
	}
	gens, err := Generations(d).Rows()
	if err != nil {
		return nil, err
	}
	positions := map[int]float64{} // generation -> moves its self-play played
	for _, r := range gens {
		if n := float64(r.Games) * r.GamePlies; n >= 0 {
			positions[r.Generation] = n
		}
	}
	losses, err := Losses(d).Rows()
	if err != nil {
		return nil, err
	}
	steps := map[int]float64{} // generation -> the trainer's step count at its end
	for _, r := range losses {
		if r.Step >= 0 {
			steps[r.Generation] = max(steps[r.Generation], float64(r.Step))
		}
	}
	out := make(map[int]Compute, len(hours))
	var pos, trained float64
	for g := 1; g <= slices.Max(slices.Collect(maps.Keys(hours))); g++ {
		pos += positions[g-1]
		trained = max(trained, steps[g-1])
		if h, ok := hours[g]; ok {
			out[g] = Compute{Hours: h, Positions: int64(pos), Samples: int64(trained) * int64(cfg.Train.BatchSize)}
		}
	}
	return out, nil
}
