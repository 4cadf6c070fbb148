package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

func TestStrength_TheLoopMeasuresTheBestAgainstTheYardsticksAndPlotsIt(t *testing.T) {
	text := "variant: three\nmodel: {width: 16, blocks: 1}\nloop: {generations: 2, games: 16, steps: 4}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n" +
		"strength: {every_hours: 0.0000001, simulations: 8, classic: [classic:2], depths: [1], pairs: 2, seed: 3}\n"
	l := runConfig(t, text)
	// Two generations, each with a new best: two measurements of two rows.
	rows := mustLoad(t, l.str).rows
	if len(rows) != 4 {
		t.Fatalf("strength rows %v, want 2 measurements x 2 yardsticks", rows)
	}
	for i, r := range rows {
		if want := []string{"classic:2", "alphabeta:1"}[i%2]; r[3] != want || r[4] != "4" || r[10] != "" {
			t.Errorf("row %d: %v, want 4 games against %s and no thrown endgames (no tables)", i, r, want)
		}
	}
	if rows[0][2] != "gen-000001" || rows[2][2] != "gen-000002" {
		t.Errorf("models measured %s and %s, want the bests gen-000001 and gen-000002", rows[0][2], rows[2][2])
	}
	if _, err := os.Stat(filepath.Join(l.dir.Metrics(), "strength.png")); err != nil {
		t.Error(err)
	}
	// status shows the newest measurement alone, with the run's hours and
	// pace.
	st := statusOf(t, l.wd.Store(), l.loc)
	if len(st.Strength) != 2 || st.Strength[0].Model != "gen-000002" || st.Strength[1].Opponent != "alphabeta:1" ||
		st.Strength[0].Elo == nil || st.Strength[0].Games != 4 {
		t.Errorf("status strength %+v: want gen-000002's two rows with Elo", st.Strength)
	}
	if !(st.Hours > 0 && st.Pace > 0) {
		t.Errorf("status hours %v, pace %v s: want both positive after two generations", st.Hours, st.Pace)
	}
	// The same best is not measured twice.
	if err := l.strength(context.Background(), 2, 2); err != nil || len(mustLoad(t, l.str).rows) != 4 {
		t.Errorf("measuring gen-000002 again: %v, %d rows", err, len(mustLoad(t, l.str).rows))
	}
}

func TestStrength_WithTablesTheLoopRecordsTheOraclesAccuracy(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: 6, Dir: dir + "/tb"}); err != nil {
		t.Fatal(err)
	}
	text := "variant: nine\ntablebase: " + dir + "/tb\nmodel: {width: 16, blocks: 1}\nloop: {generations: 1, games: 8, steps: 2}\n" +
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4, rollout_plies: 40}\n" +
		"gate: {max_games: 0, ladder: [], ladder_pairs: 0}\n" +
		"strength: {every_hours: 0.0000001, simulations: 4, classic: [], depths: [1], pairs: 1, seed: 3}\n"
	l := runConfig(t, text)
	var got []string
	for _, r := range mustLoad(t, l.str).rows {
		got = append(got, r[3])
		if strings.HasPrefix(r[3], "tables:") && r[4] != strconv.Itoa(len(l.oracle)) {
			t.Errorf("row %v: want %d positions", r, len(l.oracle))
		}
		// With tables the games against alpha-beta count the endgames thrown away.
		if thrown, err := strconv.Atoi(r[10]); r[3] == "alphabeta:1" && (err != nil || thrown < 0) {
			t.Errorf("row %v: thrown_endgames %q, want a count", r, r[10])
		}
	}
	if !slices.Equal(got, []string{"alphabeta:1", "tables:network", "tables:search"}) {
		t.Errorf("strength rows for %v, want alphabeta:1 and the tables' two", got)
	}
	// status carries the tables' rows without an Elo (NaN would not be JSON).
	st := statusOf(t, l.wd.Store(), l.loc)
	if len(st.Strength) != 3 || st.Strength[0].Elo == nil || st.Strength[1].Elo != nil || st.Strength[2].Opponent != "tables:search" {
		t.Errorf("status strength %+v: want alphabeta:1 with an Elo, then the tables' two without", st.Strength)
	}
	if _, err := json.Marshal(st); err != nil {
		t.Errorf("status as JSON: %v", err)
	}
}

// runConfig runs the loop of a new run with the config text to its
// budget and returns it (closed when the test ends).
func runConfig(t *testing.T, text string) *Trainer {
	t.Helper()
	dir := t.TempDir()
	cfg := dir + "/c.yaml"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenTrainer(context.Background(), dir+"/run", cfg, TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}
