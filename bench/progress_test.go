package bench

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

func TestPickModels_QuartersEveryHourAndTheNewest(t *testing.T) {
	hours := map[int]float64{}
	for g := 1; g <= 100; g++ {
		hours[g] = float64(g) / 50 // two hours, 50 models an hour
	}
	for _, c := range []struct {
		n     int
		every float64
		want  []int
	}{
		{4, 0, []int{25, 50, 75, 100}},
		{2, 0, []int{50, 100}},
		{0, 0.5, []int{25, 50, 75, 100}},
		{0, 0.7, []int{35, 70, 100}}, // 2.1 hours would be past the end: the newest stands for it
		{0, 1.5, []int{75, 100}},
	} {
		got, err := PickModels(hours, c.n, c.every)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%d models, every %v hours: %v, %v; want %v", c.n, c.every, got, err, c.want)
		}
	}
	if _, err := PickModels(hours, 1, 0); err == nil {
		t.Error("one model: no error")
	}
	// A step of 1.9 hours on a run of two: the 1.9-hour model is next to
	// the newest, so there is one to choose.
	if _, err := PickModels(hours, 0, 1.9); err == nil {
		t.Error("every 1.9 hours of 2: no error")
	}
	if _, err := PickModels(map[int]float64{1: 0.1}, 4, 0); err == nil {
		t.Error("a run of one model: no error")
	}
	// Models far apart in time are not picked twice.
	if got, err := PickModels(map[int]float64{1: 0.1, 2: 0.2, 3: 2}, 4, 0); err != nil || !slices.Equal(got, []int{2, 3}) {
		t.Errorf("three models, one late: %v, %v; want [2 3]", got, err)
	}
}

func TestPickEveryGenerations_EachMultipleAndTheNewest(t *testing.T) {
	hours := map[int]float64{}
	for g := 1; g <= 230; g++ {
		hours[g] = float64(g) / 100
	}
	for _, c := range []struct {
		every int
		want  []int
	}{
		{100, []int{100, 200, 230}},
		{50, []int{50, 100, 150, 200, 230}}, // 200 lies 30 before the newest, more than a quarter step
		{75, []int{75, 150, 230}},           // 225 lies within a quarter step of 230: left to it
		{300, nil},
		{0, nil},
	} {
		got, err := PickEveryGenerations(hours, c.every)
		if c.want == nil {
			if err == nil {
				t.Errorf("every %d: %v, no error", c.every, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("every %d: %v, %v; want %v", c.every, got, err, c.want)
		}
	}
}

// A progress.csv written before the compute columns were added is still
// read, and drawn by hours or generations, not by compute.
func TestReadProgress_AnOlderMeasurementHasNoCompute(t *testing.T) {
	dir := t.TempDir()
	text := progressHeaderHours + "\nnine,gen-000050,50,0.2500,400,0.4000,0.0,-20.0,20.0,,,,\nnine,gen-000100,100,0.5000,400,0.6000,70.0,50.0,90.0,0.6,70.0,40.0,100.0\n"
	if err := os.WriteFile(filepath.Join(dir, "progress.csv"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := ReadProgress(dir)
	if err != nil {
		t.Fatal(err)
	}
	if x, err := l.X(AxisGenerations); err != nil || !slices.Equal(x, []float64{50, 100}) {
		t.Errorf("by generation: %v, %v", x, err)
	}
	if _, err := l.X(AxisSamples); err == nil || !strings.Contains(err.Error(), "samples") {
		t.Errorf("by samples: %v, want an error saying the measurement has none", err)
	}
}

func TestPickHours_TheModelsNearestEachHourOnce(t *testing.T) {
	hours := map[int]float64{}
	for g := 1; g <= 100; g++ {
		hours[g] = float64(g) / 25 // four hours, 25 models an hour
	}
	for _, c := range []struct {
		at   []float64
		want []int
	}{
		{[]float64{0.25, 0.5, 1, 2, 4}, []int{6, 12, 25, 50, 100}},    // 0.25 h lies between 6 and 7: the first
		{[]float64{0.25, 0.5, 1, 2, 4, 8}, []int{6, 12, 25, 50, 100}}, // 8 hours, past the end: the newest, once
		{[]float64{0.01, 0.02}, nil},                                  // both nearest the first model
		{[]float64{1, 1}, nil},
		{[]float64{2, 1}, nil},
		{[]float64{0, 1}, nil},
	} {
		got, err := PickHours(hours, c.at)
		if c.want == nil {
			if err == nil {
				t.Errorf("hours %v: %v, no error", c.at, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("hours %v: %v, %v; want %v", c.at, got, err, c.want)
		}
	}
}

func TestProgressBench_RatesARunsModelsAgainstTheFirstAndReusesItsGames(t *testing.T) {
	text := "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 3, games: 16, steps: 4}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0}\n"
	dir := trainRun(t, text)
	hours, err := runmetrics.ModelHours(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != 3 || !(hours[1] > 0 && hours[1] <= hours[2] && hours[2] <= hours[3]) {
		t.Fatalf("model hours %v: want models 1-3 in order", hours)
	}
	out := filepath.Join(t.TempDir(), "progress")
	b := ProgressBench{Dir: dir, Generations: []int{1, 2, 3}, Simulations: 8, Pairs: 2, OpeningPlies: 1, Seed: 5, Workers: 1, Out: out}
	played := 0
	rows, err := b.Run(context.Background(), nil, func(*arena.Record) { played++ })
	if err != nil {
		t.Fatal(err)
	}
	if played != 12 || len(rows) != 3 {
		t.Fatalf("%d games, %d rows: want 12 (three matches of two pairs) and 3", played, len(rows))
	}
	for i, r := range rows {
		if r.Generation != i+1 || r.Games != 8 || r.Hours != hours[i+1] {
			t.Errorf("row %d: %+v, want generation %d, 8 games, %v hours", i, r, i+1, hours[i+1])
		}
		// Four steps of 256 samples a generation; 16 games of a few plies.
		if r.Samples != int64(4*256*(i+1)) || r.Positions < int64(16*(i+1)) || (i > 0 && r.Positions <= rows[i-1].Positions) {
			t.Errorf("row %d: %d samples and %d positions before it: want %d samples, positions growing", i, r.Samples, r.Positions, 4*256*(i+1))
		}
		if (i == 0) != (r.Previous == nil) || (i > 0 && r.Previous.Games != 4) {
			t.Errorf("row %d: the match against the one before %+v", i, r.Previous)
		}
		if !(r.Low <= r.Elo && r.Elo <= r.High) {
			t.Errorf("row %d: Elo %v outside [%v, %v]", i, r.Elo, r.Low, r.High)
		}
	}
	if rows[0].Elo != 0 {
		t.Errorf("the first model's Elo %v, want 0 (the anchor)", rows[0].Elo)
	}
	csv, err := os.ReadFile(filepath.Join(out, "progress.csv"))
	if err != nil || len(strings.Split(strings.TrimSpace(string(csv)), "\n")) != 4 {
		t.Fatalf("progress.csv %q, %v: want a header and three rows", csv, err)
	}
	if _, err := os.Stat(filepath.Join(out, "progress.png")); err != nil {
		t.Error(err)
	}
	// Measured again with the same settings: every game is found.
	played = 0
	again, err := b.Run(context.Background(), nil, func(*arena.Record) { played++ })
	if err != nil || played != 0 || again[2].Elo != rows[2].Elo {
		t.Errorf("again: %v, %d games played, Elo %v (was %v): want none played, the same ratings", err, played, again[2].Elo, rows[2].Elo)
	}

	// By generation and by compute, beside itself read back.
	for _, axis := range []string{AxisGenerations, AxisPositions, AxisSamples} {
		b.Axis, b.With = axis, []string{out}
		if _, err := b.Run(context.Background(), nil, nil); err != nil {
			t.Errorf("axis %s: %v", axis, err)
		}
	}
	b.Axis, b.With = "weeks", nil
	if _, err := b.Run(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "weeks") {
		t.Errorf("axis weeks: %v, want an error naming it", err)
	}
	b.Axis = ""

	b.Generations = []int{1, 7}
	if _, err := b.Run(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "generation 7") {
		t.Errorf("a generation the run lacks: %v", err)
	}
}

// TestProgressBench_AReferenceIsMetByEveryModelAndAnchorsTheScale: a frozen
// reference plays every model, the models' Elo is over it, and each
// model's interval is then its own (no model is the anchor).
func TestProgressBench_AReferenceIsMetByEveryModelAndAnchorsTheScale(t *testing.T) {
	text := "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 2, games: 16, steps: 4}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0}\n"
	dir := trainRun(t, text)
	ref, err := model.LoadCheckpoint(dir.Model(1))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "progress")
	b := ProgressBench{Dir: dir, Generations: []int{1, 2}, Simulations: 8, Pairs: 2, OpeningPlies: 1, Seed: 5, Workers: 1, Out: out,
		Reference: ref, ReferenceName: "frozen"}
	played := 0
	rows, err := b.Run(context.Background(), nil, func(*arena.Record) { played++ })
	if err != nil {
		t.Fatal(err)
	}
	if played != 12 || len(rows) != 2 {
		t.Fatalf("%d games, %d rows: want 12 (three matches: the two models and each against the reference) and 2", played, len(rows))
	}
	for i, r := range rows {
		if r.Games != 8 || !(r.Low < r.Elo && r.Elo < r.High) {
			t.Errorf("row %d: %+v: want 8 games and an interval around its Elo over the reference", i, r)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "progress.csv"))
	if err != nil || len(strings.Split(strings.TrimSpace(string(csv)), "\n")) != 3 {
		t.Fatalf("progress.csv %q, %v: want a header and two rows", csv, err)
	}
	// Drawn again beside an earlier measurement (here: itself, read back).
	line, err := ReadProgress(out)
	if err != nil || line.Name != filepath.Base(string(dir)) || len(line.Hours) != 2 || line.Y[1] != math.Round(rows[1].Elo*10)/10 {
		t.Errorf("read back: %+v, %v: want the run's name and its two rows", line, err)
	}
	b.With = []string{out}
	if _, err := b.Run(context.Background(), nil, nil); err != nil {
		t.Errorf("with an earlier measurement: %v", err)
	}
	b.With = []string{t.TempDir()}
	if _, err := b.Run(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), "progress.csv") {
		t.Errorf("with a directory of no measurement: %v, want an error naming progress.csv", err)
	}
}

// trainRun trains the run of config text in a temporary directory to its
// end and gives its directory.
func trainRun(t *testing.T, text string) store.Dir {
	t.Helper()
	dir := t.TempDir()
	cfg := dir + "/c.yaml"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := run.OpenTrainer(context.Background(), dir+"/run", cfg, run.TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return store.Dir(dir + "/run")
}
