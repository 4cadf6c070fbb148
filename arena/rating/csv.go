package rating

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

// CSVHeader is the header row of a ratings table (a run's ladder,
// RUN/arena/ratings.csv).
var CSVHeader = []string{"player", "games", "wins", "draws", "losses", "score", "elo", "low", "high"}

// CSV is ratings as a CSV table: CSVHeader, then one row per player in
// the given order, numbers to one decimal.
func CSV(ratings []Rating) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(CSVHeader)
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

// WriteCSV writes CSV(ratings) to path (the run's ratings
// ladder, RUN/arena/ratings.csv), making its directory. The file is
// written to a temporary name and renamed, so a reader sees the old table
// or the new one, never a part.
func WriteCSV(path string, ratings []Rating) error {
	data, err := CSV(ratings)
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

// ReadCSV reads a table CSV wrote; a missing file has no
// rows. An unreadable one is an error naming it.
func ReadCSV(path string) ([]Rating, error) {
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
	if len(rows) == 0 || !slices.Equal(rows[0], CSVHeader) {
		return nil, fmt.Errorf("ratings %s: the header is not %v", path, CSVHeader)
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
