package run

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/millzero/millzero/store"
)

// genColumns are the columns of metrics/generations.csv, one row per
// generation: the generation's commit point. The newer ones come last, so
// an older file migrates by name (openSeries).
var genColumns = []string{"generation", "hours", "games", "moves_per_s", "train_loss", "val_loss", "candidate", "decision",
	"llr", "pairs", "best", "best_elo", "selfplay_s", "train_s", "gate_s", "ladder_s", "search_kl", "draw_share", "game_plies",
	"target_entropy", leaseColumn, "reanalyse_s"}

// genRow is one row of metrics/generations.csv, a field for each of
// genColumns in their order.
type genRow struct {
	Generation               int
	Hours                    float64 // run hours at the row's writing
	Games                    int     // games of the generation, from the shards
	MovesPerS                float64 // self-play's speed over the generation
	TrainLoss, ValLoss       float64
	Candidate, Decision      string
	LLR                      float64
	Pairs                    string // the gate's pair counts
	Best                     string
	BestElo                  float64
	SelfplayS, TrainS        float64 // wall seconds of each phase
	GateS, LadderS           float64
	SearchKL, DrawShare      float64
	GamePlies, TargetEntropy float64
	Lease                    string  // the trainer's lease (leaseTag)
	ReanalyseS               float64 // wall seconds of searching older positions again (loop.reanalyse)
}

// values is r as a row of genColumns.
func (r genRow) values() []any {
	return []any{r.Generation, r.Hours, r.Games, r.MovesPerS, r.TrainLoss, r.ValLoss, r.Candidate, r.Decision,
		r.LLR, r.Pairs, r.Best, r.BestElo, r.SelfplayS, r.TrainS, r.GateS, r.LadderS, r.SearchKL, r.DrawShare, r.GamePlies,
		r.TargetEntropy, r.Lease, r.ReanalyseS}
}

// lossColumns are the columns of metrics/losses.csv: a row per logged
// training step and one for validation, of the generation trained, with
// the trainer's lease (leaseTag) as generations.csv has.
var lossColumns = []string{"generation", "step", "split", "lr", "total", "policy", "outcome", "l2", leaseColumn}

// phaseColumns are the columns of metrics/phases.csv: one row each time a
// process ran a phase of a generation (self-play, reanalyse, train, gate or ladder),
// with its wall seconds and, for self-play, the moves played, the
// positions recorded and their summed KL divergence of the visit target
// from the prior, in micro-nats, the games finished, their plies and how
// many were drawn, and the recorded targets' summed entropy in micro-nats.
// A generation resumed after a stop sums the rows of every process.
var phaseColumns = []string{"generation", "phase", "seconds", "moves", "positions", "kl_micro", "games", "plies", "draws",
	"entropy_micro"}

// phaseNames are the phases, in the order of a generation.
var phaseNames = []string{"selfplay", "reanalyse", "train", "gate", "ladder"}

// timed runs f, phase of generation g, and records its wall time in
// metrics/phases.csv (a commit), also when f fails or is interrupted.
func (l *Loop) timed(ctx context.Context, g int, phase string, f func() error) error {
	start := time.Now()
	err := f()
	rerr := l.commit(ctx, func(context.Context) error {
		return l.phases.add(g, phase, time.Since(start).Seconds(), 0, 0, 0, 0, 0, 0, 0)
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
func (l *Loop) phaseTotals(g int) (phaseTotal, error) {
	t := phaseTotal{seconds: map[string]float64{}}
	ph, err := l.phases.load()
	if err != nil {
		return t, err
	}
	gen := fmt.Sprint(g)
	sec, moves, pos, kl := ph.column("seconds"), ph.column("moves"), ph.column("positions"), ph.column("kl_micro")
	games, plies, draws, ent := ph.column("games"), ph.column("plies"), ph.column("draws"), ph.column("entropy_micro")
	for i, r := range ph.rows {
		if r[0] != gen || math.IsNaN(sec[i]) {
			continue
		}
		t.seconds[r[1]] += sec[i]
		if r[1] != "selfplay" {
			continue
		}
		if !math.IsNaN(moves[i] + pos[i] + kl[i]) {
			t.moves, t.positions, t.klMicro = t.moves+moves[i], t.positions+pos[i], t.klMicro+kl[i]
		}
		// A NaN (an older process's row) makes the sums unknown.
		t.games, t.plies, t.draws = t.games+games[i], t.plies+plies[i], t.draws+draws[i]
		t.entropyMicro += ent[i]
	}
	return t, nil
}

// drawShare is the share of this trainer's self-play games of the
// generation that were drawn; NaN when it finished none, or a process's
// row does not say.
func (t phaseTotal) drawShare() float64 {
	if !(t.games > 0) {
		return math.NaN()
	}
	return t.draws / t.games
}

// meanPlies is the mean length, in plies, of this trainer's self-play
// games of the generation; NaN as for drawShare.
func (t phaseTotal) meanPlies() float64 {
	if !(t.games > 0) {
		return math.NaN()
	}
	return t.plies / t.games
}

// movesPerSecond is self-play's speed over the generation's processes; NaN
// (an empty cell) when this trainer played none of its games.
func (t phaseTotal) movesPerSecond() float64 {
	if t.moves == 0 || t.seconds["selfplay"] <= 0 {
		return math.NaN()
	}
	return t.moves / t.seconds["selfplay"]
}

// meanKL is the mean KL divergence, in nats, of the recorded policy
// targets from the priors of this trainer's self-play (selfplay.Stats.MeanPolicyKL
// over every process); NaN when it recorded none.
func (t phaseTotal) meanKL() float64 {
	if t.positions == 0 {
		return math.NaN()
	}
	return t.klMicro / 1e6 / t.positions
}

// meanEntropy is the mean entropy, in nats, of the recorded policy
// targets of this trainer's self-play (selfplay.Stats.MeanTargetEntropy
// over every process); NaN when it recorded none, or a process's row does
// not say.
func (t phaseTotal) meanEntropy() float64 {
	if t.positions == 0 {
		return math.NaN()
	}
	return t.entropyMicro / 1e6 / t.positions
}

// plotTime draws metrics/time.png: the seconds of each phase of every
// generation, from metrics/generations.csv.
func (l *Loop) plotTime() error {
	gens, err := l.gens.load()
	if err != nil {
		return err
	}
	x := gens.column("generation")
	var lines []line
	for _, p := range phaseNames {
		y := gens.column(p + "_s")
		if p == "reanalyse" && !slices.ContainsFunc(y, func(s float64) bool { return s > 0 }) {
			continue // a run that does not reanalyse
		}
		lines = append(lines, line{name: p, x: x, y: y})
	}
	return plotLines(l.dir.Path(store.TimePlot), "Where a generation's time goes ("+l.v.Name+")",
		"generation", "seconds", lines...)
}

// plotSelfplay draws metrics/selfplay.png: the share of each generation's
// self-play games drawn, in percent, and their mean length, in plies, from
// metrics/generations.csv: the games settling into repeated draws show
// there.
func (l *Loop) plotSelfplay() error {
	gens, err := l.gens.load()
	if err != nil {
		return err
	}
	x, share := gens.column("generation"), gens.column("draw_share")
	for i := range share {
		share[i] *= 100
	}
	return plotLines(l.dir.Path(store.SelfPlayPlot), "Self-play games ("+l.v.Name+")",
		"generation", "percent drawn; plies", line{name: "drawn (%)", x: x, y: share},
		line{name: "mean length (plies)", x: x, y: gens.column("game_plies")})
}
