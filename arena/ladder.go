package arena

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// WriteRatingsCSV writes ratings as a CSV table (the run's ratings ladder,
// RUN/arena/ratings.csv): a header, then one row per player in the given
// order. The file is written to a temporary name and renamed, so a reader
// sees the old table or the new one, never a part.
func WriteRatingsCSV(path string, ratings []Rating) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"player", "games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	for _, r := range ratings {
		w.Write([]string{r.Name, strconv.Itoa(r.Games), strconv.Itoa(r.Wins), strconv.Itoa(r.Draws),
			strconv.Itoa(r.Losses), f(r.Score), f(r.Elo), f(r.Low), f(r.High)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("write ratings %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write ratings: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write ratings: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write ratings: %w", err)
	}
	return nil
}
