package run

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"
)

// testTable is a metrics table's rows as text, for tests that look at
// its columns by name.
type testTable struct {
	header []string
	rows   [][]string
}

// mustLoad reads a metrics table's rows as text.
func mustLoad(t *testing.T, tb rawTable) *testTable {
	t.Helper()
	rows, err := tb.Raw()
	if err != nil {
		t.Fatal(err)
	}
	return &testTable{header: tb.Header(), rows: rows}
}

// column is the named column's values as numbers (NaN where a cell is
// not one).
func (tt *testTable) column(name string) []float64 {
	i := slices.Index(tt.header, name)
	out := make([]float64, len(tt.rows))
	for r, row := range tt.rows {
		x, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			x = math.NaN()
		}
		out[r] = x
	}
	return out
}

// text is the named column's cells.
func (tt *testTable) text(name string) []string {
	i := slices.Index(tt.header, name)
	out := make([]string, len(tt.rows))
	for r, row := range tt.rows {
		out[r] = row[i]
	}
	return out
}

// mustReader is a reader of the trainer l's run, on its store (not
// closed: the store is the trainer's).
func mustReader(t *testing.T, l *Trainer) *Reader {
	t.Helper()
	r, err := openReaderOn(context.Background(), l.wd.Store(), l.loc, Options{Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
