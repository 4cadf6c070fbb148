package arena

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
)

// roundRobinRun runs rr and returns its records, how many games it played
// and which matches it found in its directory.
func roundRobinRun(t *testing.T, rr *RoundRobin) (recs []Record, played int, reused []string) {
	t.Helper()
	recs, err := rr.Run(context.Background(), func(m RoundRobinMatch) {
		if m.Reused {
			reused = append(reused, m.A+"-"+m.B)
		}
	}, func(*Record) { played++ })
	if err != nil {
		t.Fatal(err)
	}
	return recs, played, reused
}

func TestRoundRobin_PlaysEveryPairOnceAndReusesCompleteMatches(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rr := &RoundRobin{Variant: v, Players: []Player{Random{}, AlphaBeta{Depth: 1}, AlphaBeta{Depth: 2}},
		Pairs: 2, OpeningPlies: 2, Seed: 7, Workers: 2, Dir: dir}
	recs, played, reused := roundRobinRun(t, rr)
	if played != 12 || len(recs) != 12 || len(reused) != 0 {
		t.Fatalf("first run: %d games played, %d records, reused %v: want 12, 12, none", played, len(recs), reused)
	}
	for _, pair := range [][2]string{{"random", "alphabeta:1"}, {"random", "alphabeta:2"}, {"alphabeta:1", "alphabeta:2"}} {
		if row := StrengthOf(pair[0], pair[1], recs); row.Games != 4 {
			t.Errorf("%s against %s: %d games, want 4", pair[0], pair[1], row.Games)
		}
	}

	// A new player: only its matches are played.
	rr.Players = append(rr.Players, AlphaBeta{Depth: 3})
	recs2, played, reused := roundRobinRun(t, rr)
	if played != 12 || len(recs2) != 24 || len(reused) != 3 {
		t.Fatalf("with a fourth player: %d games played, %d records, reused %v: want 12, 24 and the first three matches", played, len(recs2), reused)
	}
	if recs2[0].Moves != recs[0].Moves || recs2[0].Finished != recs[0].Finished {
		t.Errorf("the first match's first game is not the one stored")
	}

	// Another seed or another number of pairs means other games.
	other := *rr
	other.Seed = 8
	if _, played, reused := roundRobinRun(t, &other); played != 24 || len(reused) != 0 {
		t.Errorf("another seed: %d games played, reused %v: want 24, none", played, reused)
	}
	// The first pairs of more pairs are the same games: only the new
	// pair is played; fewer pairs are all found.
	other = *rr
	other.Pairs = 3
	if _, played, reused := roundRobinRun(t, &other); played != 12 || len(reused) != 0 {
		t.Errorf("a third pair: %d games played, reused %v: want 12 (the new pair of each match), none whole", played, reused)
	}
	other.Pairs = 1
	if _, played, reused := roundRobinRun(t, &other); played != 0 || len(reused) != 6 {
		t.Errorf("one pair: %d games played, reused %v: want none, all six", played, reused)
	}
}

func TestRoundRobin_PlaysOnlyTheMissingGamesOfAnInterruptedMatch(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rr := &RoundRobin{Variant: v, Players: []Player{Random{}, AlphaBeta{Depth: 1}}, Pairs: 2, OpeningPlies: 2, Seed: 3, Dir: dir}
	recs, _, _ := roundRobinRun(t, rr)
	// The same match cut short: its file holds three of its four games.
	if _, err := WriteRecords(dir, "cut", recs[:3]); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, recs[0].Match+RecordExt)); err != nil {
		t.Fatal(err)
	}
	again, played, reused := roundRobinRun(t, rr)
	if played != 1 || len(reused) != 0 || len(again) != 4 {
		t.Fatalf("%d games played, reused %v, %d records: want the missing game played, the match not whole in the files, 4 records", played, reused, len(again))
	}
	for i, r := range again {
		if r.Pair != recs[i].Pair || r.Game != recs[i].Game || r.Match != again[0].Match {
			t.Errorf("record %d: pair %d game %d of match %s, want pair %d game %d of one match", i, r.Pair, r.Game, r.Match, recs[i].Pair, recs[i].Game)
		}
	}
	if i := 3; again[i].Seed != recs[i].Seed || again[i].Plies != recs[i].Plies || again[i].Winner != recs[i].Winner {
		t.Errorf("the game played again differs: seed %d, %d plies, winner %d; was %d, %d, %d",
			again[i].Seed, again[i].Plies, again[i].Winner, recs[i].Seed, recs[i].Plies, recs[i].Winner)
	}
	// Both pairs count whole: the found and the new game are one pair.
	if row := StrengthOf("random", "alphabeta:1", again); row.Games != 4 || row.Penta.Pairs() != 2 {
		t.Errorf("%d games, %d complete pairs: want 4 and 2", row.Games, row.Penta.Pairs())
	}
	// Now the files hold the whole match.
	if _, played, reused := roundRobinRun(t, rr); played != 0 || len(reused) != 1 {
		t.Errorf("run a third time: %d games played, reused %v: want none, the match", played, reused)
	}
}

func TestRoundRobin_RejectsBadSetups(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	for name, rr := range map[string]*RoundRobin{
		"one player": {Variant: v, Players: []Player{Random{}}, Pairs: 1},
		"no pairs":   {Variant: v, Players: []Player{Random{}, AlphaBeta{Depth: 1}}},
		"same name":  {Variant: v, Players: []Player{AlphaBeta{Depth: 1}, AlphaBeta{Depth: 1}}, Pairs: 1},
	} {
		if _, err := rr.Run(context.Background(), nil, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRoundRobin_ReusesAMatchOnlyOfTheSameSetups(t *testing.T) {
	v := loadVariant(t, "three")
	dir := t.TempDir()
	searcher := func(cPuct float64) Player {
		s := ArenaSettings(8)
		s.CPuct = cPuct
		return NewSearchPlayer("rollout@8", s, Evaluation{Playouts: 1, PlayoutPlies: 40})
	}
	rr := &RoundRobin{Variant: v, Players: []Player{searcher(1.5), Random{}}, Pairs: 2, OpeningPlies: 1, Seed: 5, Dir: dir}
	recs, played, _ := roundRobinRun(t, rr)
	if played != 4 {
		t.Fatalf("first run: %d games played, want 4", played)
	}
	for _, r := range recs {
		seat := r.SeatOf("rollout@8")
		if got, want := r.SetupAt(seat), SetupOf(rr.Players[0]); got != want || !strings.Contains(got, "CPuct:1.5") {
			t.Fatalf("pair %d game %d: the searcher's setup %q, want %q", r.Pair, r.Game, got, want)
		}
		if got := r.SetupAt(1 - seat); got != "" {
			t.Fatalf("pair %d game %d: random's setup %q, want none", r.Pair, r.Game, got)
		}
	}
	if _, played, reused := roundRobinRun(t, rr); played != 0 || len(reused) != 1 {
		t.Errorf("the same players again: %d games played, reused %v: want none played, the match reused", played, reused)
	}

	// The same name searching otherwise: the stored match is not its own.
	rr.Players[0] = searcher(2.5)
	if _, played, reused := roundRobinRun(t, rr); played != 4 || len(reused) != 0 {
		t.Errorf("another search under the same name: %d games played, reused %v: want 4, none", played, reused)
	}

	// Games stored before a search setting was added, which is off: the
	// setup lacks it and the games are still the player's.
	rr.Players[0] = searcher(1.5)
	before := t.TempDir()
	for i := range recs {
		seat := recs[i].SeatOf("rollout@8")
		setup := recs[i].SetupAt(seat)
		if !strings.Contains(setup, " MinimaxWeight:0 ") {
			t.Fatalf("the searcher's setup %q does not say MinimaxWeight:0", setup)
		}
		cut := strings.Replace(setup, " MinimaxWeight:0 ", " ", 1)
		if seat == 0 {
			recs[i].Setup0 = cut
		} else {
			recs[i].Setup1 = cut
		}
	}
	if _, err := WriteRecords(before, "before", recs); err != nil {
		t.Fatal(err)
	}
	rr.Dir = before
	if _, played, reused := roundRobinRun(t, rr); played != 0 || len(reused) != 1 {
		t.Errorf("games stored before an added setting that is off: %d games played, reused %v: want none played, the match reused", played, reused)
	}
	// Turned on, the setting makes another player of the same name.
	on := searcher(1.5).(*SearchPlayer)
	on.Settings.MinimaxWeight = 0.25
	rr.Players[0] = on
	if _, played, reused := roundRobinRun(t, rr); played != 4 || len(reused) != 0 {
		t.Errorf("the added setting turned on: %d games played, reused %v: want 4, none", played, reused)
	}

	// Games stored without setups (written before they were recorded)
	// are not taken for a player that has one.
	old := t.TempDir()
	for i := range recs {
		recs[i].Setup0, recs[i].Setup1 = "", ""
	}
	if _, err := WriteRecords(old, "old", recs); err != nil {
		t.Fatal(err)
	}
	rr.Players[0], rr.Dir = searcher(1.5), old
	if _, played, reused := roundRobinRun(t, rr); played != 4 || len(reused) != 0 {
		t.Errorf("games stored without setups: %d games played, reused %v: want 4, none", played, reused)
	}
}
