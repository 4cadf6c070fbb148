package arena

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteRatingsCSV_OneRowPerPlayer(t *testing.T) {
	rs, err := FitElo(append(games("A", "random", 75, 0, 25), games("B", "random", 40, 0, 60)...), EloSettings{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "arena", "ratings.csv")
	if err := WriteRatingsCSV(path, rs); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0][0] != "player" || rows[1][0] != "A" || rows[1][6] != "190.8" || rows[2][0] != "random" || rows[3][0] != "B" {
		t.Errorf("table %v", rows)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind")
	}
}
