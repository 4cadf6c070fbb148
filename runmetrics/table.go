// Package runmetrics is a run's metrics tables: each a CSV file under
// metrics/ of one typed row a line (GenRow, LossRow, EloRow, PhaseRow,
// StrengthRow), its header and its parse written once here, rewritten
// whole on every change and read from the file when needed (a run lasts
// days, and its rows are not kept in memory); and what the tables say of
// a run's models (ModelHours, ModelCompute). The loop writes the tables;
// status, bench and the commands read them without the loop.
package runmetrics

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/millzero/millzero/internal/atomicfile"
)

// Table is one metrics table, of rows R: the CSV file at its path, with
// a header row.
type Table[R any] struct {
	path   string
	header []string
	cells  func(R) []string         // a row's cells, in header's order
	parse  func(c cells) (R, error) // a row from its cells, in header's order
}

// Path is the table's file.
func (t *Table[R]) Path() string { return t.path }

// Header is the table's columns.
func (t *Table[R]) Header() []string { return t.header }

// Rows reads the table's rows (none when its file is not there). A file
// of an older version, with fewer columns, is read by column name, the
// columns it lacks empty.
func (t *Table[R]) Rows() ([]R, error) {
	raw, _, err := t.read()
	if err != nil {
		return nil, err
	}
	out := make([]R, len(raw))
	for i, r := range raw {
		if out[i], err = t.parse(cells{r}); err != nil {
			return nil, fmt.Errorf("metrics %s: row %d: %w", t.path, i+1, err)
		}
	}
	return out, nil
}

// Raw reads the table's rows as text, by column name as Rows does.
func (t *Table[R]) Raw() ([][]string, error) {
	raw, _, err := t.read()
	return raw, err
}

// Migrate rewrites the file of an older version with the table's header,
// its columns mapped by name and the new ones empty; it tells whether it
// did.
func (t *Table[R]) Migrate() (bool, error) {
	raw, older, err := t.read()
	if err != nil || !older {
		return false, err
	}
	return true, t.WriteRaw(raw)
}

// Add appends rows and writes the table.
func (t *Table[R]) Add(rows ...R) error {
	raw, _, err := t.read()
	if err != nil {
		return err
	}
	for _, r := range rows {
		raw = append(raw, t.cells(r))
	}
	return t.WriteRaw(raw)
}

// Replace removes generation g's rows (every table's first column is the
// generation), appends rows, and writes the table: a generation written
// again replaces what it wrote before.
func (t *Table[R]) Replace(g int, rows ...R) error {
	raw, _, err := t.read()
	if err != nil {
		return err
	}
	key := strconv.Itoa(g)
	raw = slices.DeleteFunc(raw, func(r []string) bool { return r[0] == key })
	for _, r := range rows {
		raw = append(raw, t.cells(r))
	}
	return t.WriteRaw(raw)
}

// WriteRaw writes the header and rows, given as text, as the table's
// file (atomicfile: a reader sees the old table or the new one), making
// metrics/ when it is missing.
func (t *Table[R]) WriteRaw(rows [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(t.header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return fmt.Errorf("metrics %s: %w", t.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(t.path, buf.Bytes())
}

// ReadRaw reads the table of header from data (a copy of a table from
// elsewhere, say the store's), as Raw does its file; name names it.
func ReadRaw(name string, header []string, data []byte) ([][]string, error) {
	raw, _, err := parseRaw(name, header, data)
	return raw, err
}

// read parses the file (none: no rows), mapping an older header's columns
// by name (older).
func (t *Table[R]) read() (rows [][]string, older bool, err error) {
	data, err := os.ReadFile(t.path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("metrics %s: %w", t.path, err)
	}
	return parseRaw(t.path, t.header, data)
}

// parseRaw parses a table's CSV data, mapping an older header's columns
// by name.
func parseRaw(name string, header []string, data []byte) (rows [][]string, older bool, err error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, false, fmt.Errorf("metrics %s: %w", name, err)
	}
	if len(recs) == 0 {
		return nil, false, fmt.Errorf("metrics %s: no header, want %v", name, header)
	}
	if slices.Equal(recs[0], header) {
		return recs[1:], false, nil
	}
	// An older header: where each of its columns goes.
	to := make([]int, len(recs[0]))
	for i, col := range recs[0] {
		if to[i] = slices.Index(header, col); to[i] < 0 || slices.Index(recs[0], col) != i {
			return nil, false, fmt.Errorf("metrics %s: header %v: column %q is not one of %v (or is repeated): move the file aside to start a new table",
				name, recs[0], col, header)
		}
	}
	for _, old := range recs[1:] {
		row := make([]string, len(header))
		for i, cell := range old {
			row[to[i]] = cell
		}
		rows = append(rows, row)
	}
	return rows, true, nil
}

// cells is a row's text, in its table's header order, read by the row
// types' parse functions.
type cells struct{ c []string }

// num is cell i as a number: NaN when it is empty or not one (unknown).
func (c cells) num(i int) float64 {
	x, err := strconv.ParseFloat(c.c[i], 64)
	if err != nil {
		return math.NaN()
	}
	return x
}

// integer is cell i as a whole number; what is not one is an error naming
// the column.
func (c cells) integer(i int, column string) (int, error) {
	n, err := strconv.Atoi(c.c[i])
	if err != nil {
		return 0, fmt.Errorf("%s %q: not a whole number", column, c.c[i])
	}
	return n, nil
}

// text is cell i.
func (c cells) text(i int) string { return c.c[i] }

// fmtNum is a number's cell: six significant digits, and an empty cell
// for NaN (unknown), never "NaN".
func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// fmtInt is a whole number's cell.
func fmtInt[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// fmtCount is a count's cell: the whole number, or an empty cell for NaN
// (a count that a row of an older version does not say).
func fmtCount(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatInt(int64(x), 10)
}
