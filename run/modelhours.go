package run

import (
	"fmt"
	"math"
	"os"

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

// SaveFile makes path's directory and writes data there atomically:
// readers see the old file or the new one.
func SaveFile(path string, data []byte) error { return saveFile(path, data) }
