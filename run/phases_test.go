package run

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// phasesOf is a trainer that knows only the phases table of the run in
// dir, enough for phaseTotals.
func phasesOf(dir store.Dir) *Trainer {
	return &Trainer{player: player{core: core{phases: runmetrics.Phases(dir)}}}
}

// TestPhaseTotals_SumEveryProcessOfAGeneration: a generation's self-play
// ran in two processes (a stop between them); its totals are the sums of
// both rows, and its draw share and mean length are over the games of
// both, not the mean of two processes' shares. Another generation's rows
// and the other phases' rows add nothing to them.
func TestPhaseTotals_SumEveryProcessOfAGeneration(t *testing.T) {
	l := phasesOf(store.Dir(t.TempDir()))
	if err := l.phases.Add(
		runmetrics.PhaseRow{Generation: 3, Phase: "selfplay", Seconds: 2, Moves: 5000, Positions: 600, KLMicro: 300e6, Games: 100, Plies: 5000, Draws: 60, EntropyMicro: 150e6},
		runmetrics.PhaseRow{Generation: 3, Phase: "train", Seconds: 1.5},
		runmetrics.PhaseRow{Generation: 4, Phase: "selfplay", Seconds: 9, Moves: 9000, Positions: 900, KLMicro: 900e6, Games: 200, Plies: 9000, Draws: 10, EntropyMicro: 700e6},
		runmetrics.PhaseRow{Generation: 3, Phase: "selfplay", Seconds: 1, Moves: 1000, Positions: 400, KLMicro: 100e6, Games: 25, Plies: 1250, Draws: 0, EntropyMicro: 50e6},
	); err != nil {
		t.Fatal(err)
	}
	tot, err := l.phaseTotals(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"self-play seconds", tot.seconds["selfplay"], 3},
		{"train seconds", tot.seconds["train"], 1.5},
		{"moves/s", tot.movesPerSecond(), 2000},
		{"mean KL", tot.meanKL(), 0.4},
		{"draw share", tot.drawShare(), 60.0 / 125},
		{"mean plies", tot.meanPlies(), 6250.0 / 125},
		{"mean target entropy", tot.meanEntropy(), 0.2},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestPhaseTotals_AnOlderFileSaysNothingOfDraws: phases.csv from before
// the games, plies and draws columns is read with those cells empty, so
// a generation with such a row has no draw share or length (an empty
// cell in generations.csv), where a guess from the newer rows alone would
// be a wrong figure.
func TestPhaseTotals_AnOlderFileSaysNothingOfDraws(t *testing.T) {
	dir := store.Dir(t.TempDir())
	path := dir.Path(store.PhasesTable)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	old := "generation,phase,seconds,moves,positions,kl_micro\n3,selfplay,2,5000,600,300000000\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l := phasesOf(dir)
	if err := l.phases.Add(runmetrics.PhaseRow{Generation: 3, Phase: "selfplay", Seconds: 1, Moves: 1000, Positions: 400, KLMicro: 100e6,
		Games: 25, Plies: 1250, Draws: 5, EntropyMicro: 80e6}); err != nil {
		t.Fatal(err)
	}
	tot, err := l.phaseTotals(3)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(tot.drawShare()) || !math.IsNaN(tot.meanPlies()) || !math.IsNaN(tot.meanEntropy()) {
		t.Errorf("draw share %v, mean plies %v, target entropy %v: want unknown (NaN) with an older process's row",
			tot.drawShare(), tot.meanPlies(), tot.meanEntropy())
	}
	if got := tot.movesPerSecond(); got != 2000 {
		t.Errorf("moves/s %v, want 2000 from both rows", got)
	}
}
