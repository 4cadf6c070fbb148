package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// AutoTables, as a run's tablebase, names the tables of every material up
// to AutoTablePieces pieces in the user's cache directory
// ($XDG_CACHE_HOME/millzero/tables/VARIANT-HASH), built there by the
// first process that needs them: seconds on two cores for nine, and
// every machine of the run builds its own.
const (
	AutoTables      = "auto"
	AutoTablePieces = 8
)

// AutoTablesDir is the directory of v's AutoTables in the user's cache.
func AutoTablesDir(v *engine.Variant) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("a cache directory for the tables (or name a directory): %w", err)
	}
	return filepath.Join(base, "millzero", "tables", v.Name+"-"+v.Spec.Hash()), nil
}

// openTables opens a run's tables: those of dir, or with AutoTables the
// cache's of every material up to pieces pieces, built first where
// missing (with progress); nil, and no error, when AutoTables meets a
// variant the tables do not cover.
func openTables(v *engine.Variant, dir string, pieces int, prog Progress) (*tablebase.Set, error) {
	if dir != AutoTables {
		return tablebase.Open(v, dir, 0)
	}
	dir, err := AutoTablesDir(v)
	if err != nil {
		return nil, err
	}
	// Build reads the materials already in dir and builds only the
	// missing ones.
	start, built := time.Now(), 0
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: pieces, Dir: dir,
		Progress: func(p tablebase.Progress) {
			if m, ok := prog.(Meter); ok && p.Phase == "init" {
				m.Phase(p.Done, p.Total) // the level phase's count of passes is a bound, not its size
			}
			prog.Update("tables of %s up to %d pieces in %s: %s, %s", v.Name, pieces, dir, p.Material, p.Elapsed.Round(time.Second))
		},
		Done: func(m tablebase.Material, _ string, reused bool) {
			if !reused {
				built++
			}
		}})
	if errors.Is(err, tablebase.ErrUnsupported) {
		prog.Done("tablebase auto: %v; the run goes on without tables", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if built > 0 {
		prog.Done("tables of %s up to %d pieces built in %s (%d new files) in %s", v.Name, pieces, time.Since(start).Round(100*time.Millisecond), built, dir)
	}
	return set, nil
}
