package run

import (
	"context"
	"math"
	"time"

	"github.com/millzero/millzero/runmetrics"
)

// phaseNames are the phases, in the order of a generation.
var phaseNames = []string{"selfplay", "reanalyse", "train", "gate", "ladder"}

// timed runs f, phase of generation g, and records its wall time in
// metrics/phases.csv (a commit), also when f fails or is interrupted.
func (t *Trainer) timed(ctx context.Context, g int, phase string, f func() error) error {
	start := time.Now()
	err := f()
	rerr := t.commit(ctx, func(context.Context) error {
		return t.phases.Add(runmetrics.PhaseRow{Generation: g, Phase: phase, Seconds: time.Since(start).Seconds()})
	})
	if err == nil {
		err = rerr
	}
	return err
}

// phaseTotal is what every process spent in each phase of one generation.
type phaseTotal struct {
	seconds             map[string]float64
	moves, positions    float64
	klMicro             float64
	games, plies, draws float64 // NaN when a process's row has none (a file older than these columns)
	entropyMicro        float64 // NaN as games
}

// phaseTotals sums generation g's rows of metrics/phases.csv.
func (t *Trainer) phaseTotals(g int) (phaseTotal, error) {
	p := phaseTotal{seconds: map[string]float64{}}
	rows, err := t.phases.Rows()
	if err != nil {
		return p, err
	}
	for _, r := range rows {
		if r.Generation != g || math.IsNaN(r.Seconds) {
			continue
		}
		p.seconds[r.Phase] += r.Seconds
		if r.Phase != "selfplay" {
			continue
		}
		if !math.IsNaN(r.Moves + r.Positions + r.KLMicro) {
			p.moves, p.positions, p.klMicro = p.moves+r.Moves, p.positions+r.Positions, p.klMicro+r.KLMicro
		}
		// A NaN (an older process's row) makes the sums unknown.
		p.games, p.plies, p.draws = p.games+r.Games, p.plies+r.Plies, p.draws+r.Draws
		p.entropyMicro += r.EntropyMicro
	}
	return p, nil
}

// drawShare is the share of this trainer's self-play games of the
// generation that were drawn; NaN when it finished none, or a process's
// row does not say.
func (p phaseTotal) drawShare() float64 {
	if !(p.games > 0) {
		return math.NaN()
	}
	return p.draws / p.games
}

// meanPlies is the mean length, in plies, of this trainer's self-play
// games of the generation; NaN as for drawShare.
func (p phaseTotal) meanPlies() float64 {
	if !(p.games > 0) {
		return math.NaN()
	}
	return p.plies / p.games
}

// movesPerSecond is self-play's speed over the generation's processes; NaN
// (an empty cell) when this trainer played none of its games.
func (p phaseTotal) movesPerSecond() float64 {
	if p.moves == 0 || p.seconds["selfplay"] <= 0 {
		return math.NaN()
	}
	return p.moves / p.seconds["selfplay"]
}

// meanKL is the mean KL divergence, in nats, of the recorded policy
// targets from the priors of this trainer's self-play
// (selfplay.Stats.MeanPolicyKL over every process); NaN when it recorded
// none.
func (p phaseTotal) meanKL() float64 {
	if p.positions == 0 {
		return math.NaN()
	}
	return p.klMicro / 1e6 / p.positions
}

// meanEntropy is the mean entropy, in nats, of the recorded policy
// targets of this trainer's self-play (selfplay.Stats.MeanTargetEntropy
// over every process); NaN when it recorded none, or a process's row does
// not say.
func (p phaseTotal) meanEntropy() float64 {
	if p.positions == 0 {
		return math.NaN()
	}
	return p.entropyMicro / 1e6 / p.positions
}
