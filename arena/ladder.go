package arena

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/millzero/millzero/internal/atomicfile"
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
	err = atomicfile.WriteFile(path, data)
	if err != nil {
		return fmt.Errorf("write ratings %s: %w", path, err)
	}
	return nil
}

// ReadRatingsCSV reads a table RatingsCSV wrote; a missing file has no
// rows. An unreadable one is an error naming it.
func ReadRatingsCSV(path string) ([]Rating, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ratings: %w", err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("ratings %s: %w", path, err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], RatingsHeader) {
		return nil, fmt.Errorf("ratings %s: the header is not %v", path, RatingsHeader)
	}
	out := make([]Rating, 0, len(rows)-1)
	for i, row := range rows[1:] {
		var r Rating
		var errs [8]error
		r.Name = row[0]
		r.Games, errs[0] = strconv.Atoi(row[1])
		r.Wins, errs[1] = strconv.Atoi(row[2])
		r.Draws, errs[2] = strconv.Atoi(row[3])
		r.Losses, errs[3] = strconv.Atoi(row[4])
		r.Score, errs[4] = strconv.ParseFloat(row[5], 64)
		r.Elo, errs[5] = strconv.ParseFloat(row[6], 64)
		r.Low, errs[6] = strconv.ParseFloat(row[7], 64)
		r.High, errs[7] = strconv.ParseFloat(row[8], 64)
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("ratings %s: row %d: %w", path, i+2, err)
		}
		out = append(out, r)
	}
	return out, nil
}
