package run

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
	path := d.Path(store.GenerationsTable)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("run %s: no generation finished yet (%w)", d, err)
	}
	s, err := openSeries(path, genColumns...)
	if err != nil {
		return nil, err
	}
	t, err := s.load()
	if err != nil {
		return nil, err
	}
	gens, hours := t.column("generation"), t.column("hours")
	out := make(map[int]float64, len(gens))
	for i := range gens {
		if g := gens[i]; g == math.Trunc(g) && g >= 0 && !math.IsNaN(hours[i]) {
			out[int(g)+1] = hours[i]
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run %s: %s has no generations", d, path)
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
	s, err := openSeries(d.Path(store.GenerationsTable), genColumns...)
	if err != nil {
		return nil, err
	}
	t, err := s.load()
	if err != nil {
		return nil, err
	}
	positions := map[int]float64{} // generation -> moves its self-play played
	games, plies := t.column("games"), t.column("game_plies")
	for i, g := range t.column("generation") {
		if n := games[i] * plies[i]; n >= 0 {
			positions[int(g)] = n
		}
	}
	ls, err := openSeries(d.Path(store.LossesTable), lossColumns...)
	if err != nil {
		return nil, err
	}
	lt, err := ls.load()
	if err != nil {
		return nil, err
	}
	steps := map[int]float64{} // generation -> the trainer's step count at its end
	step := lt.column("step")
	for i, g := range lt.column("generation") {
		if step[i] >= 0 {
			steps[int(g)] = max(steps[int(g)], step[i])
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

// HoursLine is one named line of PlotHoursLines: y at each model's run
// hours, with its 95% interval from Low to High.
type HoursLine struct {
	Name                string
	Hours, Y, Low, High []float64
}

// PlotHoursLines draws lines over the run hours on a log scale, each in its
// colour with its intervals and named in the legend, the y axis labelled
// yLabel, and writes the figure as a PNG to path.
func PlotHoursLines(path, title, yLabel string, lines ...HoursLine) error {
	ls := make([]line, len(lines))
	for i, l := range lines {
		ls[i] = line{name: l.Name, x: l.Hours, y: l.Y, low: l.Low, high: l.High}
	}
	return plotLinesScaled(path, title, "run hours (log scale)", yLabel, true, ls...)
}

// PlotLines is PlotHoursLines over another x axis, named xLabel, each
// line's x in its Hours; on a log scale when logX.
func PlotLines(path, title, xLabel, yLabel string, logX bool, lines ...HoursLine) error {
	ls := make([]line, len(lines))
	for i, l := range lines {
		ls[i] = line{name: l.Name, x: l.Hours, y: l.Y, low: l.Low, high: l.High}
	}
	return plotLinesScaled(path, title, xLabel, yLabel, logX, ls...)
}
