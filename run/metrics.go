package run

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/gen"
	"github.com/millzero/millzero/store"
)

// series is one table of a run's metrics: a CSV file with a header row. It
// is rewritten whole on every change (through a temporary file and a
// rename, so a killed run never leaves a torn file) and read from the file
// when it is needed: a run lasts days, and its rows are not kept in
// memory.
type series struct {
	path   string
	header []string
}

// table is a series' rows, read from its file.
type table struct {
	header []string
	rows   [][]string
}

// openSeries opens the table at path, checking the rows it already has, or
// starts an empty one. An existing file written with fewer columns (an
// older version's) is migrated: its columns are mapped by name, the new
// ones left empty, and the file rewritten. A file with a column header does
// not know is an error naming it.
func openSeries(path string, header ...string) (*series, error) {
	s := &series{path: path, header: header}
	rows, migrated, err := s.read()
	if err != nil {
		return nil, err
	}
	if migrated {
		if err := s.write(rows); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// read parses the file (none: no rows), mapping an older header's columns
// by name (migrated).
func (s *series) read() (rows [][]string, migrated bool, err error) {
	data, err := os.ReadFile(s.path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("metrics %s: %w", s.path, err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, false, fmt.Errorf("metrics %s: %w", s.path, err)
	}
	if len(recs) == 0 {
		return nil, false, fmt.Errorf("metrics %s: no header, want %v", s.path, s.header)
	}
	if slices.Equal(recs[0], s.header) {
		return recs[1:], false, nil
	}
	// An older header: where each of its columns goes.
	to := make([]int, len(recs[0]))
	for i, name := range recs[0] {
		if to[i] = slices.Index(s.header, name); to[i] < 0 || slices.Index(recs[0], name) != i {
			return nil, false, fmt.Errorf("metrics %s: header %v: column %q is not one of %v (or is repeated): move the file aside to start a new table",
				s.path, recs[0], name, s.header)
		}
	}
	for _, old := range recs[1:] {
		row := make([]string, len(s.header))
		for i, cell := range old {
			row[to[i]] = cell
		}
		rows = append(rows, row)
	}
	return rows, true, nil
}

// load reads the table's rows.
func (s *series) load() (*table, error) {
	rows, _, err := s.read()
	if err != nil {
		return nil, err
	}
	return &table{header: s.header, rows: rows}, nil
}

// add appends a row and writes the table.
func (s *series) add(values ...any) error { return s.replace("", values) }

// replace removes the rows whose first cell is key (a generation's rows,
// written again; "" removes none), appends rows, and writes the table.
func (s *series) replace(key string, rows ...[]any) error {
	t, err := s.load()
	if err != nil {
		return err
	}
	if key != "" {
		t.rows = slices.DeleteFunc(t.rows, func(r []string) bool { return r[0] == key })
	}
	for _, values := range rows {
		if len(values) != len(s.header) {
			return fmt.Errorf("metrics %s: %d values for %d columns", s.path, len(values), len(s.header))
		}
		row := make([]string, len(values))
		for i, v := range values {
			switch x := v.(type) {
			case float64:
				row[i] = strconv.FormatFloat(x, 'g', 6, 64)
				if math.IsNaN(x) {
					row[i] = "" // unknown: an empty cell, never "NaN"
				}
			case float32:
				row[i] = strconv.FormatFloat(float64(x), 'g', 6, 32)
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		t.rows = append(t.rows, row)
	}
	return s.write(t.rows)
}

// write writes the header and rows as the table's file.
func (s *series) write(rows [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(s.header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return fmt.Errorf("metrics %s: %w", s.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(s.path, buf.Bytes())
}

// column is the values of the named column, parsed as numbers (NaN where
// a cell is not one).
func (t *table) column(name string) []float64 {
	i := slices.Index(t.header, name)
	out := make([]float64, len(t.rows))
	for r, row := range t.rows {
		x, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			x = math.NaN()
		}
		out[r] = x
	}
	return out
}

// text is the named column's cells as text.
func (t *table) text(name string) []string {
	i := slices.Index(t.header, name)
	out := make([]string, len(t.rows))
	for r, row := range t.rows {
		out[r] = row[i]
	}
	return out
}

// line is one named line of a plot; with low and high (the same length
// as y), each point has an error bar from low to high.
type line struct {
	name      string
	x, y      []float64
	low, high []float64
}

// inMinutes turns an axis of hours under two hours into minutes, which
// read better than small fractions of an hour: the lines with their x in
// minutes and the label to give the axis.
func inMinutes(xLabel string, lines []line) ([]line, string) {
	if !strings.HasSuffix(xLabel, "hours") {
		return lines, xLabel
	}
	top := 0.0
	for _, l := range lines {
		for _, x := range l.x {
			if x == x {
				top = max(top, x)
			}
		}
	}
	if top >= 2 {
		return lines, xLabel
	}
	out := make([]line, len(lines))
	for i, l := range lines {
		out[i] = l
		out[i].x = make([]float64, len(l.x))
		for k, x := range l.x {
			out[i].x[k] = 60 * x
		}
	}
	return out, strings.TrimSuffix(xLabel, "hours") + "minutes"
}

// plotLines draws lines on one chart and writes it as a PNG to path: run
// hours under two as minutes, and room above the data for the legend, so
// that it covers no point.
func plotLines(path, title, xLabel, yLabel string, lines ...line) error {
	lines, xLabel = inMinutes(xLabel, lines)
	return plotLinesScaled(path, title, xLabel, yLabel, false, lines...)
}

// plotLinesScaled is plotLines with the x axis on a log scale when logX
// (points at x <= 0 left out), its ticks at powers of ten and between.
func plotLinesScaled(path, title, xLabel, yLabel string, logX bool, lines ...line) error {
	if logX {
		kept := make([]line, len(lines))
		for i, l := range lines {
			kept[i] = line{name: l.name}
			for k := range l.x {
				if l.x[k] > 0 {
					kept[i].x, kept[i].y = append(kept[i].x, l.x[k]), append(kept[i].y, l.y[k])
					if l.low != nil {
						kept[i].low, kept[i].high = append(kept[i].low, l.low[k]), append(kept[i].high, l.high[k])
					}
				}
			}
		}
		lines = kept
		n := 0
		for _, l := range lines {
			n += len(l.x)
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
		for k := range l.x {
			if l.x[k] == l.x[k] && l.y[k] == l.y[k] { // skip NaN
				xy = append(xy, plotter.XY{X: l.x[k], Y: l.y[k]})
				if l.low != nil {
					bars = append(bars, struct{ Low, High float64 }{l.y[k] - l.low[k], l.high[k] - l.y[k]})
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
		p.Legend.Add(l.name, ln)
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

// plots redraws metrics/elo.png, metrics/loss.png, metrics/time.png and
// metrics/selfplay.png.
func (l *Loop) plots() error {
	// One line per player of metrics/elo.csv: the best model (rows named
	// "best", or older rows named by its generation) and the yardsticks.
	elo, err := l.elo.load()
	if err != nil {
		return err
	}
	h, e := elo.column("hours"), elo.column("elo")
	var lo, hi []float64 // the intervals, in files that have them
	if slices.Contains(elo.header, "low") && slices.Contains(elo.header, "high") {
		lo, hi = elo.column("low"), elo.column("high")
	}
	byPlayer := map[string]*line{}
	var order []string
	for i, r := range elo.rows {
		name := r[2]
		if _, model := gen.Parse(name); model {
			name = "best"
		}
		ln, ok := byPlayer[name]
		if !ok {
			ln = &line{name: name}
			byPlayer[name] = ln
			order = append(order, name)
		}
		ln.x, ln.y = append(ln.x, h[i]), append(ln.y, e[i])
		if lo != nil && hi != nil && lo[i] == lo[i] && hi[i] == hi[i] {
			ln.low, ln.high = append(ln.low, lo[i]), append(ln.high, hi[i])
		} else { // no interval: a bar of no length
			ln.low, ln.high = append(ln.low, e[i]), append(ln.high, e[i])
		}
	}
	var lines []line
	for _, name := range order {
		lines = append(lines, *byPlayer[name])
	}
	if err := plotLines(l.dir.Path(store.EloPlot), "Elo over time ("+l.v.Name+", random = 0)",
		"hours", "Elo", lines...); err != nil {
		return err
	}
	loss, err := l.loss.load()
	if err != nil {
		return err
	}
	if err := plotLines(l.dir.Path(store.LossPlot), "Loss ("+l.v.Name+")", "optimizer steps", "loss",
		lossLines(loss)...); err != nil {
		return err
	}
	if err := l.plotTime(); err != nil {
		return err
	}
	return l.plotSelfplay()
}

// lossLines are the lines of loss.png: training's total, policy and
// outcome (value) losses apart, and validation's total.
func lossLines(loss *table) []line {
	tr, po, ou, va := line{name: "train total"}, line{name: "train policy"}, line{name: "train outcome (value)"}, line{name: "validation total"}
	steps, total := loss.column("step"), loss.column("total")
	var policy, outcome []float64 // in files that have them
	if slices.Contains(loss.header, "policy") && slices.Contains(loss.header, "outcome") {
		policy, outcome = loss.column("policy"), loss.column("outcome")
	}
	for i, r := range loss.rows {
		switch r[2] {
		case "train":
			tr.x, tr.y = append(tr.x, steps[i]), append(tr.y, total[i])
			if policy != nil && outcome != nil {
				po.x, po.y = append(po.x, steps[i]), append(po.y, policy[i])
				ou.x, ou.y = append(ou.x, steps[i]), append(ou.y, outcome[i])
			}
		case "val":
			va.x, va.y = append(va.x, steps[i]), append(va.y, total[i])
		}
	}
	return []line{tr, po, ou, va}
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
