package arena

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

// smallBook builds a book of count positions of nine quickly: 6 plies,
// judged by the classical engine at depth 2.
func smallBook(t *testing.T, count int, seed uint64, workers int) *Book {
	t.Helper()
	b := BookBuild{Variant: loadVariant(t, "nine"), Plies: 6, Judge: Classic{Depth: 2}, Low: 30, High: 120,
		Count: count, Seed: seed, Workers: workers}
	book, err := b.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return book
}

func TestBookBuild_KeepsPositionsInTheBandHalfWithEachSeatBetterOff(t *testing.T) {
	v := loadVariant(t, "nine")
	book := smallBook(t, 12, 1, 2)
	if len(book.Lines) != 12 {
		t.Fatalf("%d positions, want 12", len(book.Lines))
	}
	if s0, s1, level := book.SeatCounts(); s0 != 6 || s1 != 6 || level != 0 {
		t.Errorf("seat 0 better off in %d, seat 1 in %d, neither in %d: want 6, 6, 0", s0, s1, level)
	}
	judge, err := classic.New(v, classic.Options{HashMB: BookJudgeHashMB, NoContempt: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[engine.Position]bool{}
	for i, l := range book.Lines {
		if a := max(l.Score, -l.Score); a < 30 || a > 120 {
			t.Errorf("line %d: score %+d, want 30..120 for the side better off", i, l.Score)
		}
		g := engine.NewGame(v)
		for _, a := range l.Actions {
			if err := g.Play(a); err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
		}
		if len(l.Actions) != 6 || g.Pos != l.Position {
			t.Errorf("line %d: %d actions reach %s, the line says %s", i, len(l.Actions), v.FormatPosition(&g.Pos), v.FormatPosition(&l.Position))
		}
		// The score is the judge's, searched again from nothing.
		res, err := judge.Search(context.Background(), g, classic.Limits{Depth: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g.Pos.Side == 1 {
			res.Score = -res.Score
		}
		if res.Score != l.Score {
			t.Errorf("line %d: the judge scores %+d for seat 0, the book says %+d", i, res.Score, l.Score)
		}
		key := v.MapPosition(v.CanonicalSymmetry(&g.Pos), g.Pos)
		key.Ply, key.Hash = 0, 0
		if seen[key] {
			t.Errorf("line %d: a position the book already holds, up to symmetry", i)
		}
		seen[key] = true
	}
}

func TestBookBuild_TheSeedAloneDecidesTheBook(t *testing.T) {
	one := smallBook(t, 8, 3, 1).Format()
	if three := smallBook(t, 8, 3, 3).Format(); !bytes.Equal(one, three) {
		t.Errorf("one judge and three made different books:\n%s\n%s", one, three)
	}
	if other := smallBook(t, 8, 4, 1).Format(); bytes.Equal(one, other) {
		t.Errorf("seeds 3 and 4 made the same book")
	}
}

func TestBookBuild_BadSettingsNameTheSetting(t *testing.T) {
	nine := loadVariant(t, "nine")
	good := BookBuild{Variant: nine, Plies: 6, Judge: Classic{Depth: 2}, Low: 30, High: 120, Count: 4, Seed: 1}
	tests := []struct {
		name string
		edit func(b *BookBuild)
		want string
	}{
		{"no variant", func(b *BookBuild) { b.Variant = nil }, "no variant"},
		{"three players", func(b *BookBuild) { b.Variant = loadVariant(t, "moulin-rouge-3") }, "3 players"},
		{"no plies", func(b *BookBuild) { b.Plies = 0 }, "plies 0"},
		{"a judge by time", func(b *BookBuild) { b.Judge = Classic{MoveTime: 1e8} }, "judge classic@100ms: want a fixed depth"},
		{"a band from 0", func(b *BookBuild) { b.Low = 0 }, "band 0.00..1.20"},
		{"a band upside down", func(b *BookBuild) { b.Low, b.High = 120, 30 }, "band 1.20..0.30"},
		{"an odd count", func(b *BookBuild) { b.Count = 5 }, "count 5: want an even number"},
		{"no positions", func(b *BookBuild) { b.Count = 0 }, "count 0"},
		{"a band no opening reaches", func(b *BookBuild) { b.Low, b.High, b.MaxJudged = 2000, 2500, 20 }, "widen the band"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := good
			tc.edit(&b)
			_, err := b.Run(context.Background(), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestBookBuild_StopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := BookBuild{Variant: loadVariant(t, "nine"), Plies: 6, Judge: Classic{Depth: 2}, Low: 30, High: 120, Count: 4, Seed: 1}
	if _, err := b.Run(ctx, nil); err == nil {
		t.Errorf("a cancelled build made a book")
	}
}

func TestWriteBook_ReadsBackTheSameBook(t *testing.T) {
	v := loadVariant(t, "nine")
	book := smallBook(t, 6, 1, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "book.txt")
	if err := WriteBook(path, book); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want the book alone", len(entries))
	}
	back, err := ReadBook(path, v)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Lines, book.Lines) || !reflect.DeepEqual(back.Header, book.Header) || back.ID() != book.ID() {
		t.Errorf("read back differs:\n%s\nwant\n%s", back.Format(), book.Format())
	}
	if !strings.Contains(string(book.Format()), "# variant: nine\n") || !strings.Contains(string(book.Format()), "judge: classic:2") {
		t.Errorf("the header does not say how the book was made:\n%s", book.Format())
	}
}

func TestParseBook_ReadsFENAndSkipsBlankLines(t *testing.T) {
	v := loadVariant(t, "nine")
	g := engine.NewGame(v)
	if err := g.PlayAll("a1 d7 g4 b6"); err != nil {
		t.Fatal(err)
	}
	fen, err := v.FEN(&g.Pos)
	if err != nil {
		t.Fatal(err)
	}
	book, err := ParseBook(strings.NewReader("# a note\n\n"+fen+" | -50 | a1 d7 g4 b6\n"), v)
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Lines) != 1 || book.Lines[0].Position != g.Pos || book.Lines[0].Score != -50 || book.Header[0] != "a note" {
		t.Errorf("read %+v", book)
	}
}

func TestParseBook_BadLinesNameTheLineAndWhatIsWrong(t *testing.T) {
	v := loadVariant(t, "nine")
	line := func(moves string) string {
		g := engine.NewGame(v)
		if err := g.PlayAll(moves); err != nil {
			t.Fatal(err)
		}
		return v.FormatPosition(&g.Pos) + " | +50 | " + moves
	}
	good := line("a1 d7 g4 b6")
	tests := []struct {
		name, text, want string
	}{
		{"empty", "# only a header\n", "no positions"},
		{"another variant", "# variant: twelve\n" + good, `line 1: a book of variant "twelve", want nine`},
		{"two fields", "# x\n" + strings.Join(strings.Split(good, " | ")[:2], " | "), "line 2: 2 fields"},
		{"a score not a number", strings.Replace(good, "+50", "lots", 1), `line 1: score "lots"`},
		{"a bad position", "a1 | +50 | a1", "line 1: position"},
		{"an illegal action", strings.Replace(good, "a1 d7 g4 b6", "a1 a1 g4 b6", 1), "line 1: actions \"a1 a1 g4 b6\": action 2"},
		{"actions elsewhere", strings.Replace(good, "a1 d7 g4 b6", "a1 d7 g4 b4", 1), "not the position of the line"},
		{"no actions", strings.Replace(good, "a1 d7 g4 b6", "", 1), "no actions"},
		{"the same position twice", good + "\n" + line("g4 b6 a1 d7"), "line 2: the position of line 1 again"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBook(strings.NewReader(tc.text), v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := ReadBook(filepath.Join(t.TempDir(), "missing.txt"), v); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("a missing book: error %v, want one naming the file", err)
	}
	path := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(path, []byte("a1 | +50 | a1\n"), 0o644)
	if _, err := ReadBook(path, v); err == nil || !strings.Contains(err.Error(), "bad.txt: line 1") {
		t.Errorf("a bad book: error %v, want one naming the file and the line", err)
	}
}

func TestBook_OpeningsAreChosenBySeedTheFewerTheFirst(t *testing.T) {
	book := smallBook(t, 10, 1, 0)
	ten, err := book.Openings(10, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := book.Openings(10, 7)
	four, _ := book.Openings(4, 7)
	other, _ := book.Openings(10, 8)
	if !reflect.DeepEqual(ten, again) || !reflect.DeepEqual(ten[:4], four) {
		t.Errorf("the same seed chose differently, or fewer pairs are not the first of more")
	}
	if reflect.DeepEqual(ten, other) {
		t.Errorf("seeds 7 and 8 chose the same order")
	}
	seen := map[string]bool{}
	for _, op := range ten {
		seen[formatActions(book.Variant, op)] = true
	}
	if len(seen) != 10 {
		t.Errorf("10 pairs met %d distinct positions of the 10", len(seen))
	}
	if _, err := book.Openings(11, 7); err == nil || !strings.Contains(err.Error(), "book of 10 positions: want 11") {
		t.Errorf("more pairs than positions: error %v", err)
	}
}
