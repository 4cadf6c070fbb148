package arena

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
)

func TestMatch_PairsPlayEachOpeningTwiceWithSeatsSwapped(t *testing.T) {
	v := loadVariant(t, "nine")
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 5, OpeningPlies: 3, Seed: 9, Workers: 3}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 10 {
		t.Fatalf("%d games, want 10", len(recs))
	}
	openings := map[string]bool{}
	for i := 0; i < len(recs); i += 2 {
		a, b := recs[i], recs[i+1]
		if a.Pair != b.Pair || a.Game != 0 || b.Game != 1 {
			t.Fatalf("records %d, %d: pair/game %d/%d and %d/%d", i, i+1, a.Pair, a.Game, b.Pair, b.Game)
		}
		if a.Player0 != m.A.Name() || a.Player1 != m.B.Name() || b.Player0 != m.B.Name() || b.Player1 != m.A.Name() {
			t.Errorf("pair %d: seats %s/%s then %s/%s, want A first then swapped", a.Pair, a.Player0, a.Player1, b.Player0, b.Player1)
		}
		oa := strings.Fields(a.Moves)[:a.Opening]
		ob := strings.Fields(b.Moves)[:b.Opening]
		if a.Opening != 3 || !reflect.DeepEqual(oa, ob) {
			t.Errorf("pair %d: openings %v and %v, want the same 3 plies", a.Pair, oa, ob)
		}
		key := strings.Join(oa, " ")
		if openings[key] {
			t.Errorf("pair %d repeats opening %s", a.Pair, key)
		}
		openings[key] = true
	}
}

func TestMatch_RecordsReplayToTheirResult(t *testing.T) {
	v := loadVariant(t, "nine")
	m := Match{Variant: v, A: AlphaBeta{Depth: 2}, B: Random{}, Pairs: 3, OpeningPlies: 4, Seed: 10}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		g := engine.NewGame(v)
		for i, s := range strings.Fields(r.Moves) {
			if err := g.PlayString(s); err != nil {
				t.Fatalf("pair %d game %d action %d: %v", r.Pair, r.Game, i, err)
			}
		}
		res, why := g.Outcome()
		want := engine.Draw
		if r.Winner >= 0 {
			want = engine.WinFor(int(r.Winner))
		}
		if res != want || why.String() != r.Reason || int(r.Plies) != len(g.Actions) {
			t.Errorf("pair %d game %d: replay gives %s (%s) after %d plies, record says %s (%s) after %d",
				r.Pair, r.Game, res, why, len(g.Actions), r.ResultString(), r.Reason, r.Plies)
		}
	}
}

func TestMatch_SameSeedSameGames(t *testing.T) {
	v := loadVariant(t, "nine")
	moves := func() []string {
		m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 3, OpeningPlies: 2, Seed: 11, Workers: 2}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.Moves)
		}
		return out
	}
	if a, b := moves(), moves(); !reflect.DeepEqual(a, b) {
		t.Errorf("two runs with one seed played different games")
	}
}

func TestMatch_RecordsAreWrittenAsParquet(t *testing.T) {
	v := loadVariant(t, "nine")
	dir := filepath.Join(t.TempDir(), "arena")
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 3, OpeningPlies: 2, Seed: 12, Dir: dir}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Seed = 13
	recs2, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), RecordExt) {
			t.Errorf("stray file %s", e.Name())
		}
	}
	if len(entries) != 2 {
		t.Errorf("%d files, want one per match", len(entries))
	}
	back, err := ReadRecordDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]Record(nil), recs...), recs2...)
	if recs[0].Match > recs2[0].Match {
		want = append(append([]Record(nil), recs2...), recs...)
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("read back %d records unlike the %d written:\n%+v\n%+v", len(back), len(want), back[0], want[0])
	}
}

func TestMatch_StopsWhenTheCallbackSays(t *testing.T) {
	v := loadVariant(t, "nine")
	dir := t.TempDir()
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 50, OpeningPlies: 2, Seed: 14, Workers: 2, Dir: dir}
	seen := 0
	recs, err := m.Run(context.Background(), func(*Record) error {
		if seen++; seen == 3 {
			return ErrStop
		}
		return nil
	})
	if err != nil {
		t.Fatalf("stopped with ErrStop: error %v, want none", err)
	}
	if len(recs) != 3 {
		t.Errorf("%d records, want the 3 seen before stopping", len(recs))
	}
	back, err := ReadRecordDir(dir)
	if err != nil || len(back) != 3 {
		t.Errorf("read back %d records (%v), want 3", len(back), err)
	}

	boom := errors.New("boom")
	_, err = m.Run(context.Background(), func(*Record) error { return boom })
	if !errors.Is(err, boom) {
		t.Errorf("callback error %v, want boom", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.Run(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

func TestMatch_BadSettingsAreErrors(t *testing.T) {
	nine := loadVariant(t, "nine")
	three := loadVariant(t, "three")
	four := loadVariant(t, "moulin-rouge-4")
	tests := []struct {
		name string
		m    Match
		want string
	}{
		{"no variant", Match{A: Random{}, B: AlphaBeta{Depth: 1}, Pairs: 1}, "no variant"},
		{"more players than seats", Match{Variant: four, A: Random{}, B: AlphaBeta{Depth: 1}, Pairs: 1,
			More: []Player{renamed{Random{}, "c"}, renamed{Random{}, "d"}, renamed{Random{}, "e"}}}, "5 players for the 4 seats"},
		{"same names", Match{Variant: nine, A: Random{}, B: Random{}, Pairs: 1}, "names must differ"},
		{"no pairs", Match{Variant: nine, A: Random{}, B: AlphaBeta{Depth: 1}}, "pairs 0"},
		{"too few openings", Match{Variant: three, A: Random{}, B: AlphaBeta{Depth: 1}, Pairs: 20, OpeningPlies: 1}, "distinct openings"},
		{"player cannot start", Match{Variant: nine, A: Random{}, B: AlphaBeta{Depth: 99}, Pairs: 1}, "depth 99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.m.Run(context.Background(), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestOpenings_AreDistinctAndNotOver(t *testing.T) {
	for _, name := range []string{"nine", "three", "twelve-placing"} {
		v := loadVariant(t, name)
		ops, err := Openings(v, 6, 4, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seen := map[engine.Position]bool{}
		for _, op := range ops {
			g := engine.NewGame(v)
			for _, a := range op {
				if err := g.Play(a); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if r, _ := g.Outcome(); r != engine.Ongoing || len(op) != 4 {
				t.Errorf("%s: opening %v: %d plies, result %s", name, op, len(op), r)
			}
			if seen[g.Pos] {
				t.Errorf("%s: opening %v repeats a position", name, op)
			}
			seen[g.Pos] = true
		}
	}
}

func TestMatch_FromABookEachPairOpensFromABookPositionInBothSeats(t *testing.T) {
	v := loadVariant(t, "nine")
	book := smallBook(t, 8, 1, 0)
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 5, OpeningPlies: 2, Book: book, Seed: 9, Workers: 2}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := book.Openings(5, 9)
	if len(recs) != 10 {
		t.Fatalf("%d games, want 10", len(recs))
	}
	for _, r := range recs {
		moves := strings.Fields(r.Moves)
		opening := formatActions(v, want[r.Pair])
		if r.Book != book.ID() || int(r.Opening) != len(want[r.Pair]) || strings.Join(moves[:r.Opening], " ") != opening {
			t.Errorf("pair %d game %d: book %q, opening %d plies %v: want book %s and the position of %s",
				r.Pair, r.Game, r.Book, r.Opening, moves[:min(int(r.Opening), len(moves))], book.ID(), opening)
		}
		if a := r.SeatOf(m.A.Name()); a != int(r.Game) {
			t.Errorf("pair %d game %d: A on seat %d, want A on seat 0 then seat 1", r.Pair, r.Game, a)
		}
	}
}

func TestMatch_FromABookTakesOnlyTheGamesOfThatBook(t *testing.T) {
	v := loadVariant(t, "nine")
	book := smallBook(t, 6, 1, 0)
	random := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 3, OpeningPlies: 6, Seed: 9}
	recs, err := random.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fromBook := random
	fromBook.Book = book
	if found := fromBook.Found(recs); len(found) != 0 {
		t.Errorf("a match from a book took %d games of random openings", len(found))
	}
	bookRecs, err := fromBook.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if found := random.Found(bookRecs); len(found) != 0 {
		t.Errorf("a match of random openings took %d games from a book", len(found))
	}
	if found := fromBook.Found(bookRecs); len(found) != 6 {
		t.Errorf("the same match from the same book found %d of its 6 games", len(found))
	}
	other := fromBook
	other.Book = smallBook(t, 6, 2, 0)
	if found := other.Found(bookRecs); len(found) != 0 {
		t.Errorf("a match from another book took %d games", len(found))
	}
}

func TestMatch_ABookOfTooFewPositionsIsAnError(t *testing.T) {
	v := loadVariant(t, "nine")
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 5, Book: smallBook(t, 4, 1, 0), Seed: 1}
	if _, err := m.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "book of 4 positions: want 5") {
		t.Errorf("error %v, want one saying the book is too small", err)
	}
	m.Pairs, m.Variant = 2, loadVariant(t, "twelve")
	if _, err := m.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "an opening book of nine for a match of twelve") {
		t.Errorf("error %v, want one saying the book is of another variant", err)
	}
}

func TestMatch_GamesAreWrittenWhileTheMatchRuns(t *testing.T) {
	v := loadVariant(t, "nine")
	dir := t.TempDir()
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 3, OpeningPlies: 2, Seed: 15, Workers: 2,
		Dir: dir, SaveEvery: time.Nanosecond}
	seen := 0
	recs, err := m.Run(context.Background(), func(*Record) error {
		seen++
		// A process killed now keeps every game finished before this call.
		back, err := ReadRecordDir(dir)
		if err != nil || len(back) != seen {
			t.Errorf("after %d games: %d on disk (%v), want all %d", seen, len(back), err, seen)
		}
		return nil
	})
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d records, error %v: want 6 and none", len(recs), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 6 {
		t.Errorf("%d files, want one a game at this SaveEvery", len(entries))
	}
	back, err := ReadRecordDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sortRecords(back)
	if !reflect.DeepEqual(back, recs) {
		t.Errorf("read back %d records unlike the %d played", len(back), len(recs))
	}
	// Run again, it finds them all and plays none.
	m.Played = back
	again, err := m.Run(context.Background(), func(*Record) error {
		t.Error("a game played again")
		return nil
	})
	if err != nil || len(again) != 6 {
		t.Errorf("again: %d records, error %v: want the 6 found", len(again), err)
	}
}

func TestMatch_AGameThatCannotBeWrittenStopsTheMatch(t *testing.T) {
	v := loadVariant(t, "nine")
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := Match{Variant: v, A: AlphaBeta{Depth: 1}, B: Random{}, Pairs: 50, OpeningPlies: 2, Seed: 16, Workers: 1,
		Dir: filepath.Join(file, "arena"), SaveEvery: time.Nanosecond}
	recs, err := m.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "not-a-dir") {
		t.Errorf("error %v, want one naming the directory", err)
	}
	if len(recs) > 2 {
		t.Errorf("%d games played, want the match stopped at the first that could not be written", len(recs))
	}
}
