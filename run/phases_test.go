package run

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPhaseTotals_SumEveryProcessOfAGeneration: a generation's self-play
// ran in two processes (a stop between them); its totals are the sums of
// both rows, and its draw share and mean length are over the games of
// both, not the mean of two processes' shares. Another generation's rows
// and the other phases' rows add nothing to them.
func TestPhaseTotals_SumEveryProcessOfAGeneration(t *testing.T) {
	s, err := openSeries(filepath.Join(t.TempDir(), "phases.csv"), phaseColumns...)
	if err != nil {
		t.Fatal(err)
	}
	l := &Loop{phases: s}
	for _, r := range [][]any{
		{3, "selfplay", 2.0, 5000, 600, 300e6, 100, 5000, 60, 150e6},
		{3, "train", 1.5, 0, 0, 0, 0, 0, 0, 0},
		{4, "selfplay", 9.0, 9000, 900, 900e6, 200, 9000, 10, 700e6},
		{3, "selfplay", 1.0, 1000, 400, 100e6, 25, 1250, 0, 50e6},
	} {
		if err := s.add(r...); err != nil {
			t.Fatal(err)
		}
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
// the games, plies and draws columns migrates with those cells empty, so
// a generation with such a row has no draw share or length (an empty
// cell in generations.csv), where a guess from the newer rows alone would
// be a wrong figure.
func TestPhaseTotals_AnOlderFileSaysNothingOfDraws(t *testing.T) {
	path := filepath.Join(t.TempDir(), "phases.csv")
	old := "generation,phase,seconds,moves,positions,kl_micro\n3,selfplay,2,5000,600,300000000\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := openSeries(path, phaseColumns...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.add(3, "selfplay", 1.0, 1000, 400, 100e6, 25, 1250, 5, 80e6); err != nil {
		t.Fatal(err)
	}
	tot, err := (&Loop{phases: s}).phaseTotals(3)
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

// TestGenRow_AFieldForEveryColumn: the typed row of generations.csv has a
// field for each column, in the columns' order by name.
func TestGenRow_AFieldForEveryColumn(t *testing.T) {
	ty := reflect.TypeOf(genRow{})
	if ty.NumField() != len(genColumns) || len(genRow{}.values()) != len(genColumns) {
		t.Fatalf("genRow: %d fields, %d values; generations.csv has %d columns", ty.NumField(), len(genRow{}.values()), len(genColumns))
	}
	for i, col := range genColumns {
		name := strings.ReplaceAll(strings.ToLower(ty.Field(i).Name), "_", "")
		if want := strings.ReplaceAll(col, "_", ""); name != want && !(col == leaseColumn && name == "lease") {
			t.Errorf("field %d is %s, column %s", i, ty.Field(i).Name, col)
		}
	}
}
