package arena

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/millzero/millzero/model"
)

// RatingsHeader is the header row of a ratings table (RUN/arena/ratings.csv).
var RatingsHeader = []string{"player", "games", "wins", "draws", "losses", "score", "elo", "low", "high"}

// RatingsCSV is ratings as a CSV table: RatingsHeader, then one row per
// player in the given order, numbers to one decimal.
func RatingsCSV(ratings []Rating) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(RatingsHeader)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	for _, r := range ratings {
		w.Write([]string{r.Name, strconv.Itoa(r.Games), strconv.Itoa(r.Wins), strconv.Itoa(r.Draws),
			strconv.Itoa(r.Losses), f(r.Score), f(r.Elo), f(r.Low), f(r.High)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("ratings table: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteRatingsCSV writes RatingsCSV(ratings) to path (the run's ratings
// ladder, RUN/arena/ratings.csv), making its directory. The file is
// written to a temporary name and renamed, so a reader sees the old table
// or the new one, never a part.
func WriteRatingsCSV(path string, ratings []Rating) error {
	data, err := RatingsCSV(ratings)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write ratings: %w", err)
	}
	err = model.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("write ratings %s: %w", path, err)
	}
	return nil
}
