package run

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/millzero/millzero/internal/gen"
	"github.com/millzero/millzero/internal/plot"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// plotEvery is how often the trainer redraws its plots (and at the end of
// an invocation): drawing every point of the run takes longer as the run
// grows.
const plotEvery = time.Minute

// plotFiles are the plots redraw draws.
var plotFiles = []string{store.EloPlot, store.LossPlot, store.TimePlot, store.SelfPlayPlot}

// redraw draws the plots of the metrics so far.
func (t *Trainer) redraw() error {
	if err := t.plots(); err != nil {
		return err
	}
	t.plotted, t.stale = time.Now(), false
	t.redraws++
	return nil
}

// finalPlots draws the plots of the generations finished since the last
// drawing, as the invocation ends (however it ends), and uploads them; a
// failure is only logged.
func (t *Trainer) finalPlots(ctx context.Context) {
	if !t.stale {
		return
	}
	err := t.commit(ctx, func(ctx context.Context) error {
		if err := t.redraw(); err != nil {
			return err
		}
		for _, name := range plotFiles {
			if err := t.wd.Push(ctx, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.log.Warn("draw the plots", "err", err)
	}
}

// plots redraws metrics/elo.png, metrics/loss.png, metrics/time.png and
// metrics/selfplay.png.
func (t *Trainer) plots() error {
	elo, err := t.elo.Rows()
	if err != nil {
		return err
	}
	if err := plot.Lines(t.dir.Path(store.EloPlot), "Elo over time ("+t.v.Name+", random = 0)", "hours", "Elo", eloLines(elo)...); err != nil {
		return err
	}
	loss, err := t.loss.Rows()
	if err != nil {
		return err
	}
	if err := plot.Lines(t.dir.Path(store.LossPlot), "Loss ("+t.v.Name+")", "optimizer steps", "loss", lossLines(loss)...); err != nil {
		return err
	}
	gens, err := t.gens.Rows()
	if err != nil {
		return err
	}
	if err := plot.Lines(t.dir.Path(store.TimePlot), "Where a generation's time goes ("+t.v.Name+")",
		"generation", "seconds", timeLines(gens)...); err != nil {
		return err
	}
	return plot.Lines(t.dir.Path(store.SelfPlayPlot), "Self-play games ("+t.v.Name+")",
		"generation", "percent drawn; plies", selfplayLines(gens)...)
}

// eloLines are the lines of elo.png: one per player of metrics/elo.csv,
// the best model (rows named "best", or older rows named by its
// generation) and the yardsticks, each point with its interval.
func eloLines(rows []runmetrics.EloRow) []plot.Line {
	byPlayer := map[string]*plot.Line{}
	var order []string
	for _, r := range rows {
		name := r.Player
		if _, model := gen.Parse(name); model {
			name = "best"
		}
		ln, ok := byPlayer[name]
		if !ok {
			ln = &plot.Line{Name: name}
			byPlayer[name] = ln
			order = append(order, name)
		}
		ln.X, ln.Y = append(ln.X, r.Hours), append(ln.Y, r.Elo)
		if r.Low == r.Low && r.High == r.High {
			ln.Low, ln.High = append(ln.Low, r.Low), append(ln.High, r.High)
		} else { // no interval: a bar of no length
			ln.Low, ln.High = append(ln.Low, r.Elo), append(ln.High, r.Elo)
		}
	}
	lines := make([]plot.Line, 0, len(order))
	for _, name := range order {
		lines = append(lines, *byPlayer[name])
	}
	return lines
}

// lossLines are the lines of loss.png: training's total, policy and
// outcome (value) losses apart, and validation's total.
func lossLines(rows []runmetrics.LossRow) []plot.Line {
	tr, po, ou, va := plot.Line{Name: "train total"}, plot.Line{Name: "train policy"}, plot.Line{Name: "train outcome (value)"}, plot.Line{Name: "validation total"}
	for _, r := range rows {
		step := float64(r.Step)
		switch r.Split {
		case "train":
			tr.X, tr.Y = append(tr.X, step), append(tr.Y, r.Total)
			po.X, po.Y = append(po.X, step), append(po.Y, r.Policy)
			ou.X, ou.Y = append(ou.X, step), append(ou.Y, r.Outcome)
		case "val":
			va.X, va.Y = append(va.X, step), append(va.Y, r.Total)
		}
	}
	return []plot.Line{tr, po, ou, va}
}

// timeLines are the lines of time.png: the seconds of each phase of
// every generation (reanalyse only in a run that reanalyses).
func timeLines(rows []runmetrics.GenRow) []plot.Line {
	x := make([]float64, len(rows))
	ys := map[string][]float64{}
	for i, r := range rows {
		x[i] = float64(r.Generation)
		for p, s := range map[string]float64{"selfplay": r.SelfplayS, "reanalyse": r.ReanalyseS, "train": r.TrainS, "gate": r.GateS, "ladder": r.LadderS} {
			ys[p] = append(ys[p], s)
		}
	}
	var lines []plot.Line
	for _, p := range phaseNames {
		y := ys[p]
		if p == "reanalyse" && !slices.ContainsFunc(y, func(s float64) bool { return s > 0 }) {
			continue // a run that does not reanalyse
		}
		lines = append(lines, plot.Line{Name: p, X: x, Y: y})
	}
	return lines
}

// selfplayLines are the lines of selfplay.png: the share of each
// generation's self-play games drawn, in percent, and their mean length,
// in plies: the games settling into repeated draws show there.
func selfplayLines(rows []runmetrics.GenRow) []plot.Line {
	drawn, length := plot.Line{Name: "drawn (%)"}, plot.Line{Name: "mean length (plies)"}
	for _, r := range rows {
		g := float64(r.Generation)
		drawn.X, drawn.Y = append(drawn.X, g), append(drawn.Y, 100*r.DrawShare)
		length.X, length.Y = append(length.X, g), append(length.Y, r.GamePlies)
	}
	return []plot.Line{drawn, length}
}

// plotStrength draws metrics/strength.png: the best model's score against
// each yardstick over the run's hours.
func (t *Trainer) plotStrength() error {
	rows, err := t.str.Rows()
	if err != nil {
		return err
	}
	byOpp := map[string]*plot.Line{}
	var order []string
	for _, r := range rows {
		ln, ok := byOpp[r.Opponent]
		if !ok {
			ln = &plot.Line{Name: "vs " + r.Opponent}
			byOpp[r.Opponent] = ln
			order = append(order, r.Opponent)
		}
		ln.X, ln.Y = append(ln.X, r.Hours), append(ln.Y, 100*r.Score)
	}
	lines := make([]plot.Line, 0, len(order))
	for _, o := range order {
		lines = append(lines, *byOpp[o])
	}
	return plot.Lines(t.dir.Path(store.StrengthPlot),
		"Strength of the best ("+t.v.Name+", "+strconv.Itoa(t.cfg.Strength.Simulations)+" visits)", "hours", "score %", lines...)
}
