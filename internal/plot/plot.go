// Package plot draws the line charts of a run's metrics and of the
// benchmarks: named lines, with error bars where they have intervals, as
// a PNG written whole (atomicfile).
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/millzero/millzero/internal/atomicfile"
)

// Line is one named line of a plot; with Low and High (the same length as
// Y), each point has an error bar from Low to High. Points where X or Y is
// NaN are left out.
type Line struct {
	Name      string
	X, Y      []float64
	Low, High []float64
}

// inMinutes turns an axis of hours under two hours into minutes, which
// read better than small fractions of an hour: the lines with their x in
// minutes and the label to give the axis.
func inMinutes(xLabel string, lines []Line) ([]Line, string) {
	if !strings.HasSuffix(xLabel, "hours") {
		return lines, xLabel
	}
	top := 0.0
	for _, l := range lines {
		for _, x := range l.X {
			if x == x {
				top = max(top, x)
			}
		}
	}
	if top >= 2 {
		return lines, xLabel
	}
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = l
		out[i].X = make([]float64, len(l.X))
		for k, x := range l.X {
			out[i].X[k] = 60 * x
		}
	}
	return out, strings.TrimSuffix(xLabel, "hours") + "minutes"
}

// Lines draws lines on one chart and writes it as a PNG to path: run
// hours under two as minutes, and room above the data for the legend, so
// that it covers no point.
func Lines(path, title, xLabel, yLabel string, lines ...Line) error {
	lines, xLabel = inMinutes(xLabel, lines)
	return Scaled(path, title, xLabel, yLabel, false, lines...)
}

// Scaled is Lines with the x axis on a log scale when logX
// (points at x <= 0 left out), its ticks at powers of ten and between.
func Scaled(path, title, xLabel, yLabel string, logX bool, lines ...Line) error {
	if logX {
		kept := make([]Line, len(lines))
		for i, l := range lines {
			kept[i] = Line{Name: l.Name}
			for k := range l.X {
				if l.X[k] > 0 {
					kept[i].X, kept[i].Y = append(kept[i].X, l.X[k]), append(kept[i].Y, l.Y[k])
					if l.Low != nil {
						kept[i].Low, kept[i].High = append(kept[i].Low, l.Low[k]), append(kept[i].High, l.High[k])
					}
				}
			}
		}
		lines = kept
		n := 0
		for _, l := range lines {
			n += len(l.X)
		}
		logX = n > 0 // a log scale needs a point above 0
	}
	p := plot.New()
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, doublingTicks{}
	}
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	palette := []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}}
	legends := 0
	for i, l := range lines {
		var xy plotter.XYs
		var bars plotter.YErrors
		for k := range l.X {
			if l.X[k] == l.X[k] && l.Y[k] == l.Y[k] { // skip NaN
				xy = append(xy, plotter.XY{X: l.X[k], Y: l.Y[k]})
				if l.Low != nil {
					bars = append(bars, struct{ Low, High float64 }{l.Y[k] - l.Low[k], l.High[k] - l.Y[k]})
				}
			}
		}
		if len(xy) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		c := palette[i%len(palette)]
		ln.Color, pts.Color = c, c
		pts.Radius = vg.Points(1.5)
		p.Add(ln, pts)
		if bars != nil {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xy, bars})
			if err != nil {
				return fmt.Errorf("plot %s: %w", path, err)
			}
			eb.Color = c
			p.Add(eb)
		}
		p.Legend.Add(l.Name, ln)
		legends++
	}
	p.Legend.Top = true
	if n := legends; n > 0 && p.Y.Max > p.Y.Min {
		// The legend's rows take about 5% of the height each: the
		// y range grows by that much above the highest point.
		p.Y.Max += (p.Y.Max - p.Y.Min) * (0.07*float64(n) + 0.04)
	}
	w, err := p.WriterTo(8*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// doublingTicks labels a log axis at every doubling (1/4, 1/2, 1, 2, 4 ...
// hours), which a range of a few hours needs: powers of ten label one
// tick or none.
type doublingTicks struct{}

// Ticks implements plot.Ticker.
func (doublingTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for v := math.Exp2(math.Floor(math.Log2(lo))); v <= hi*1.0001; v *= 2 {
		if v >= lo*0.9999 {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
		}
	}
	return ts
}
