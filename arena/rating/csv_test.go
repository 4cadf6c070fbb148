package rating

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readCSV reads the CSV file at path whole.
func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestWriteCSV_OneRowPerPlayer(t *testing.T) {
	rs, err := FitElo(append(games("A", "random", 75, 0, 25), games("B", "random", 40, 0, 60)...), EloSettings{Anchor: "random"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "arena", "ratings.csv")
	if err := WriteCSV(path, rs); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if len(rows) != 4 || rows[0][0] != "player" || rows[1][0] != "A" || rows[1][6] != "190.8" || rows[2][0] != "random" || rows[3][0] != "B" {
		t.Errorf("table %v", rows)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind")
	}
}

func TestReadCSV_ReadsWhatWriteWroteAndNamesABadFile(t *testing.T) {
	rs, err := FitElo(append(games("A", "random", 75, 5, 20), games("B", "random", 40, 0, 60)...), onRandom())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ratings.csv")
	if err := WriteCSV(path, rs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rs) {
		t.Fatalf("read %d rows, wrote %d", len(back), len(rs))
	}
	for i, r := range rs {
		b := back[i]
		if b.Name != r.Name || b.Games != r.Games || b.Wins != r.Wins || b.Draws != r.Draws || b.Losses != r.Losses ||
			!near(b.Elo, r.Elo, 0.05) || !near(b.Low, r.Low, 0.05) || !near(b.High, r.High, 0.05) {
			t.Errorf("row %d: read %+v, wrote %+v", i, b, r)
		}
	}
	if rows, err := ReadCSV(filepath.Join(dir, "missing.csv")); err != nil || rows != nil {
		t.Errorf("a missing file: %v, %v; want no rows and no error", rows, err)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("player,games,wins,draws,losses,score,elo,low,high\nA,x,1,0,0,1,0,0,0\n"), 0o644)
	if _, err := ReadCSV(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("a bad cell: %v; want an error naming the file and the row", err)
	}
}
