package runmetrics

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/store"
)

func TestTable_RowsAreReadBackAsWritten_AndAGenerationIsReplaced(t *testing.T) {
	dir := store.Dir(t.TempDir())
	loss := Losses(dir)
	rows := []LossRow{
		{Generation: 0, Step: 10, Split: "train", LR: 0.002, Total: 2.5, Policy: 1.5, Outcome: 1, L2: 0.01, Lease: "abc"},
		{Generation: 1, Step: 20, Split: "train", LR: 0.002, Total: 2.25, Policy: 1.25, Outcome: 1, L2: 0.01, Lease: "abc"},
		{Generation: 1, Step: 20, Split: "val", Total: 2.4, Policy: 1.3, Outcome: 1.1, L2: 0.01, Lease: "abc"},
	}
	if err := loss.Add(rows...); err != nil {
		t.Fatal(err)
	}
	got, err := Losses(dir).Rows()
	if err != nil || !slices.Equal(got, rows) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, rows)
	}
	again := LossRow{Generation: 1, Step: 30, Split: "train", Total: 2, Policy: math.NaN(), Outcome: 1, L2: 0, Lease: "def"}
	if err := loss.Replace(1, again); err != nil {
		t.Fatal(err)
	}
	got, err = loss.Rows()
	if err != nil || len(got) != 2 || got[0] != rows[0] || got[1].Step != 30 || !math.IsNaN(got[1].Policy) {
		t.Fatalf("after replacing generation 1: %+v, %v; want generation 0's row, then the new one with an unknown policy", got, err)
	}
	data, _ := os.ReadFile(loss.Path())
	if !strings.Contains(string(data), "1,30,train,0,2,,1,0,def\n") {
		t.Errorf("an unknown number is not an empty cell:\n%s", data)
	}
}

func TestTable_AnOlderHeaderIsReadByName_AndMigratedOnlyWhenAsked(t *testing.T) {
	dir := store.Dir(t.TempDir())
	path := dir.Path(store.PhasesTable)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	old := "generation,phase,seconds\n3,train,12.5\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	phases := Phases(dir)
	rows, err := phases.Rows()
	if err != nil || len(rows) != 1 || rows[0].Generation != 3 || rows[0].Seconds != 12.5 || !math.IsNaN(rows[0].Games) {
		t.Fatalf("rows of an older file: %+v, %v; want its row, the new columns unknown", rows, err)
	}
	if data, _ := os.ReadFile(path); string(data) != old {
		t.Fatal("reading an older file rewrote it")
	}
	if migrated, err := phases.Migrate(); err != nil || !migrated {
		t.Fatalf("Migrate = %v, %v", migrated, err)
	}
	if data, _ := os.ReadFile(path); !strings.HasPrefix(string(data), strings.Join(PhaseHeader, ",")+"\n") {
		t.Errorf("migrated file:\n%s", data)
	}
	if migrated, err := phases.Migrate(); err != nil || migrated {
		t.Errorf("a second Migrate = %v, %v; want nothing to do", migrated, err)
	}
}

func TestTable_AColumnItDoesNotKnowIsAnErrorNamingIt(t *testing.T) {
	dir := store.Dir(t.TempDir())
	path := dir.Path(store.EloTable)
	os.MkdirAll(filepath.Dir(path), 0o777)
	os.WriteFile(path, []byte("generation,hours,colour\n1,2,red\n"), 0o644)
	if _, err := Elo(dir).Rows(); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Fatalf("Rows = %v; want an error naming the column", err)
	}
	os.WriteFile(path, []byte(strings.Join(EloHeader, ",")+"\nseven,2,best,1,0,2,4\n"), 0o644)
	if _, err := Elo(dir).Rows(); err == nil || !strings.Contains(err.Error(), `generation "seven"`) {
		t.Fatalf("Rows = %v; want an error naming the cell", err)
	}
}

func TestRows_EveryTableRoundTrips(t *testing.T) {
	dir := store.Dir(t.TempDir())
	gen := GenRow{Generation: 2, Hours: 0.5, Games: 256, MovesPerS: 5000, TrainLoss: 2.1, ValLoss: math.NaN(), Candidate: "gen-000003",
		Decision: "accepted", LLR: 1.4, Pairs: "0/0/5/2/1", Best: "gen-000003", BestElo: 629, SelfplayS: 1, TrainS: 2, GateS: 3, LadderS: 4,
		SearchKL: 0.2, DrawShare: 0.1, GamePlies: 13, TargetEntropy: 1.3, Lease: "abc", ReanalyseS: 0}
	elo := EloRow{Generation: 2, Hours: 0.5, Player: "best", Elo: 629, Low: 500, High: 700, Games: 8}
	str := StrengthRow{Generation: 2, Hours: 0.5, Model: "gen-000003", Opponent: "alphabeta:2", Games: 8, Score: 0.75, Elo: 190,
		Low: 10, High: 400, BlockadeLosses: 1, ThrownEndgames: -1}
	ph := PhaseRow{Generation: 2, Phase: "selfplay", Seconds: 1.5, Moves: 1234567, Positions: 3000, KLMicro: 9e9, Games: 256, Plies: 3300, Draws: 20, EntropyMicro: 4e9}
	if err := Generations(dir).Add(gen); err != nil {
		t.Fatal(err)
	}
	if err := Elo(dir).Add(elo); err != nil {
		t.Fatal(err)
	}
	if err := Strength(dir).Add(str); err != nil {
		t.Fatal(err)
	}
	if err := Phases(dir).Add(ph); err != nil {
		t.Fatal(err)
	}
	g, _ := Generations(dir).Rows()
	e, _ := Elo(dir).Rows()
	s, _ := Strength(dir).Rows()
	p, _ := Phases(dir).Rows()
	if len(g) != 1 || g[0].Games != 256 || g[0].Best != gen.Best || !math.IsNaN(g[0].ValLoss) || g[0].BestElo != 629 {
		t.Errorf("generations: %+v", g)
	}
	if len(e) != 1 || e[0] != elo {
		t.Errorf("elo: %+v, want %+v", e, elo)
	}
	if len(s) != 1 || s[0] != str {
		t.Errorf("strength: %+v, want %+v", s, str)
	}
	if len(p) != 1 || p[0] != ph {
		t.Errorf("phases: %+v, want %+v (counts whole, not rounded)", p, ph)
	}
}

// A generations.csv of an older version (fewer columns) keeps its rows'
// values by column name, the new columns unknown, and the next row
// rewrites the file with today's header.
func TestGenerations_AnOlderFileIsReadByNameAndRewrittenByTheNextRow(t *testing.T) {
	dir := store.Dir(t.TempDir())
	path := dir.Path(store.GenerationsTable)
	os.MkdirAll(filepath.Dir(path), 0o777)
	old := "generation,hours,games,moves_per_s,train_loss,val_loss,candidate,decision,llr,pairs,best,best_elo\n" +
		"0,0.01,256,3631.59,2.4035,2.30879,gen-000001,accepted,1.42743,0/0/3/0/4,gen-000001,610.582\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	gens := Generations(dir)
	rows, err := gens.Rows()
	if err != nil || len(rows) != 1 || rows[0].BestElo != 610.582 || rows[0].Games != 256 || !math.IsNaN(rows[0].TrainS) {
		t.Fatalf("rows of the older file: %+v, %v", rows, err)
	}
	if err := gens.Add(GenRow{Generation: 1, Hours: 0.02, Games: 256, Candidate: "gen-000002", Decision: "rejected", Best: "gen-000001", Lease: "abc"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || lines[0] != strings.Join(GenHeader, ",") || !strings.HasPrefix(lines[1], "0,0.01,256,") || !strings.HasSuffix(lines[1], ",") {
		t.Fatalf("rewritten file:\n%s", data)
	}
}
