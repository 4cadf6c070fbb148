package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

// diagnoseGames plays classic:1 against classic:4 on nine, two pairs from
// two-ply openings, and returns the directory of their records.
func diagnoseGames(t *testing.T) string {
	t.Helper()
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := arena.Match{Variant: v, A: arena.Classic{Depth: 1, HashMB: 1}, B: arena.Classic{Depth: 4, HashMB: 1},
		Pairs: 2, OpeningPlies: 2, Seed: 3, Workers: 1, Dir: dir}
	if _, err := m.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// diagnose runs d on the games in path for player, failing the test on an error.
func diagnose(t *testing.T, d Diagnose, path, player string) *Diagnosis {
	t.Helper()
	if d.HashMB == 0 {
		d.HashMB = 4
	}
	res, err := d.Run(context.Background(), path, player, nil)
	if err != nil {
		t.Fatalf("diagnose %s: %v", player, err)
	}
	return res
}

func TestDiagnose_TheWeakerSideLosesMoreValueAndAgreesLess(t *testing.T) {
	dir := diagnoseGames(t)
	weak := diagnose(t, Diagnose{Depth: 5}, dir, "classic:1")
	strong := diagnose(t, Diagnose{Depth: 5}, dir, "classic:4")
	t.Logf("classic:1 %+v\nclassic:4 %+v", weak.All, strong.All)
	if weak.All.MeanLost <= strong.All.MeanLost {
		t.Errorf("mean value lost: classic:1 %.3f, classic:4 %.3f: want the weaker side to lose more", weak.All.MeanLost, strong.All.MeanLost)
	}
	wAgree, sAgree := float64(weak.All.Agree)/float64(weak.All.Moves), float64(strong.All.Agree)/float64(strong.All.Moves)
	if wAgree >= sAgree {
		t.Errorf("agreement with depth 5: classic:1 %.2f, classic:4 %.2f: want the weaker side to agree less", wAgree, sAgree)
	}
	if weak.Games != 4 || strong.Games != 4 || weak.Wins != strong.Losses || weak.Losses != strong.Wins || weak.Draws != strong.Draws {
		t.Errorf("results: classic:1 +%d =%d -%d of %d, classic:4 +%d =%d -%d of %d: want 4 games each, mirrored",
			weak.Wins, weak.Draws, weak.Losses, weak.Games, strong.Wins, strong.Draws, strong.Losses, strong.Games)
	}
	if weak.Losses == 0 {
		t.Errorf("classic:1 lost no game to classic:4: the games do not tell the sides apart")
	}
}

func TestDiagnose_CountsAddUpToThePlayersActionsAfterTheOpening(t *testing.T) {
	dir := diagnoseGames(t)
	recs, err := ReadGames(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := engine.Load("nine")
	for _, player := range []string{"classic:1", "classic:4"} {
		want := 0
		for i := range recs {
			seat := recs[i].SeatOf(player)
			g := engine.NewGame(v)
			for k, m := range strings.Fields(recs[i].Moves) {
				if k >= int(recs[i].Opening) && int(g.Pos.Side) == seat {
					want++
				}
				if err := g.PlayString(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		d := diagnose(t, Diagnose{Depth: 4}, dir, player)
		if d.All.Moves != want || want == 0 {
			t.Errorf("%s: %d actions judged, want %d (its actions after the opening)", player, d.All.Moves, want)
		}
		for name, rows := range map[string][]DiagnoseRow{"phase": d.Phases, "action": d.Actions, "material": d.Material, "ply": d.Plies} {
			var sum DiagnoseRow
			for _, r := range rows {
				sum.Moves += r.Moves
				sum.Lost += r.Lost
				sum.Losing += r.Losing
				sum.Blunders += r.Blunders
				sum.Agree += r.Agree
				if r.Moves == 0 || r.MeanLost < 0 || math.Abs(r.MeanLost-r.Lost/float64(r.Moves)) > 1e-9 {
					t.Errorf("%s by %s: row %+v: want moves and a mean of them", player, name, r)
				}
			}
			if sum.Moves != d.All.Moves || math.Abs(sum.Lost-d.All.Lost) > 1e-6 || sum.Losing != d.All.Losing ||
				sum.Blunders != d.All.Blunders || sum.Agree != d.All.Agree {
				t.Errorf("%s by %s: the rows sum to %+v, want all's %+v", player, name, sum, d.All)
			}
		}
		lost, first := 0, 0
		for _, n := range d.LostBy {
			lost += n
		}
		for _, n := range d.FirstBlunder {
			first += n
		}
		if lost != d.Losses || first != d.Losses {
			t.Errorf("%s: %d losses, %d by reason, %d by first blunder: want them equal", player, d.Losses, lost, first)
		}
	}
}

func TestDiagnose_TheSameWithOneWorkerOrTwo(t *testing.T) {
	dir := diagnoseGames(t)
	one := diagnose(t, Diagnose{Depth: 4, Workers: 1}, dir, "classic:1")
	two := diagnose(t, Diagnose{Depth: 4, Workers: 2}, dir, "classic:1")
	one.Seconds, two.Seconds = 0, 0
	if !reflect.DeepEqual(one, two) {
		t.Errorf("one worker:\n%+v\ntwo workers:\n%+v\nwant the same diagnosis", one, two)
	}
	var b strings.Builder
	one.Write(&b)
	for _, want := range []string{"classic:1 in 4 games of nine", "placing", "remove", "all"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table does not say %q:\n%s", want, b.String())
		}
	}
}

func TestDiagnose_TheNetworksFirstChoiceAgreesSometimes(t *testing.T) {
	dir := diagnoseGames(t)
	d := diagnose(t, Diagnose{Depth: 3, Model: arena.BuiltinModel}, dir, "classic:4")
	if d.Model == "" || d.All.ModelAgree == 0 || d.All.ModelAgree > d.All.Moves {
		t.Errorf("model %q: the network agreed %d times in %d positions: want some, not more than the positions", d.Model, d.All.ModelAgree, d.All.Moves)
	}
	without := diagnose(t, Diagnose{Depth: 3}, dir, "classic:4")
	if without.All.ModelAgree != 0 || without.Model != "" {
		t.Errorf("without a model: %d network agreements, model %q: want none", without.All.ModelAgree, without.Model)
	}
}

func TestDiagnose_BadInputIsAnErrorNamingIt(t *testing.T) {
	dir := diagnoseGames(t)
	recs, err := ReadGames(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, recs []arena.Record) string {
		path, err := arena.WriteRecords(filepath.Join(t.TempDir(), name), name, recs)
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	illegal := append([]arena.Record(nil), recs...)
	f := strings.Fields(illegal[1].Moves)
	f[3] = f[2] // the same point twice, or a piece that is not there
	illegal[1].Moves = strings.Join(f, " ")
	twelve := append([]arena.Record(nil), recs...)
	twelve[2].Variant = "twelve"
	missing := filepath.Join(t.TempDir(), "none.parquet")
	empty := t.TempDir()
	notRecords := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(notRecords, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, player string
		d                  Diagnose
		want               []string
	}{
		{"an illegal action", write("illegal", illegal), "classic:4", Diagnose{}, []string{"illegal.parquet", illegal[1].Match, fmt.Sprintf("pair %d, game %d", illegal[1].Pair, illegal[1].Game), "action 4"}},
		{"another variant", write("twelve", twelve), "classic:4", Diagnose{}, []string{"twelve.parquet", "games of nine and of twelve"}},
		{"no such player", dir, "classic:9", Diagnose{}, []string{dir, `"classic:9"`, "classic:1, classic:4"}},
		{"no player to choose", dir, "", Diagnose{}, []string{"choose the player", "classic:1, classic:4"}},
		{"a missing file", missing, "", Diagnose{}, []string{missing}},
		{"a directory without games", empty, "", Diagnose{}, []string{empty, "no arena records"}},
		{"not a record file", notRecords, "", Diagnose{}, []string{notRecords}},
		{"a missing model", dir, "classic:4", Diagnose{Model: missing}, []string{missing}},
		{"a bad depth", dir, "classic:4", Diagnose{Depth: 99}, []string{"depth 99"}},
	} {
		_, err := c.d.Run(context.Background(), c.path, c.player, nil)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

func TestDiagnosedPlayer_TheOnePlayerNotAYardstick(t *testing.T) {
	recs := []arena.Record{{Player0: "gen-000010@400", Player1: "classic@100ms"}, {Player0: "random", Player1: "gen-000010@400"}}
	if p, err := DiagnosedPlayer("x", recs, ""); err != nil || p != "gen-000010@400" {
		t.Errorf("player %q, %v: want gen-000010@400", p, err)
	}
	recs = append(recs, arena.Record{Player0: "gen-000020@400", Player1: "alphabeta:4"})
	if _, err := DiagnosedPlayer("x", recs, ""); err == nil || !strings.Contains(err.Error(), "gen-000010@400, classic@100ms, random, gen-000020@400, alphabeta:4") {
		t.Errorf("two models: error %v: want one naming every player", err)
	}
}

func TestDiagnosis_DrawsByReasonMaterialPeakAndLengthAndWinsNotWon(t *testing.T) {
	rec := func(winner int8, reason string, plies int32) *arena.Record {
		return &arena.Record{Winner: winner, Reason: reason, Forfeit: -1, Plies: plies}
	}
	moves := func(best ...int) []judgement {
		ms := make([]judgement, len(best))
		for i, b := range best {
			ms[i].best = b
		}
		return ms
	}
	won := classic.Decisive + 5
	games := []judgedGame{
		{rec: rec(-1, "no-capture draw", 230), seat: 0, endLead: 2},
		{rec: rec(-1, "repetition draw", 59), seat: 1, endLead: -5},
		{rec: rec(-1, "no-capture draw", 60), seat: 0, endLead: 0},
		{rec: rec(0, "too few pieces", 70), seat: 1},
		{rec: rec(0, "too few pieces", 80), seat: 0},
	}
	judged := [][]judgement{moves(50, 250, 120), moves(-40, won, 0), moves(99, -300), moves(won, -won), moves(won)}
	d := &Diagnosis{Threshold: 1}
	d.count(games, judged)
	for name, c := range map[string]struct{ got, want map[string]int }{
		"drawn by":     {d.DrawnBy, map[string]int{"no-capture draw": 2, "repetition draw": 1}},
		"drawn at":     {d.DrawnAt, map[string]int{"+2": 1, "<=-3": 1, "0": 1}},
		"drawn from":   {d.DrawnFrom, map[string]int{">=+2": 1, "won": 1, "<+1": 1}},
		"drawn after":  {d.DrawnAfter, map[string]int{"0-59": 1, "60-99": 1, "200+": 1}},
		"not won from": {d.NotWonFrom, map[string]int{"draw": 1, "loss": 1}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", name, c.got, c.want)
		}
	}
	if d.Draws != 3 || d.Wins != 1 || d.Losses != 1 {
		t.Errorf("results +%d =%d -%d, want +1 =3 -1", d.Wins, d.Draws, d.Losses)
	}
}
