package run

import (
	"errors"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/internal/progress"
)

// AutoTablePieces is how many pieces the tables of a run with
// tablebase.Auto cover: every material up to it is built in the user's
// cache by the first process that needs it.
const AutoTablePieces = 8

// openTables opens a run's tables: those of dir, or with tablebase.Auto the
// cache's of every material up to pieces pieces, built first where
// missing (with progress); nil, and no error, when tablebase.Auto meets a
// variant the tables do not cover.
func openTables(v *engine.Variant, dir string, pieces int, prog progress.Reporter) (*tablebase.Set, error) {
	if dir != tablebase.Auto {
		return tablebase.Open(v, dir, 0)
	}
	dir, err := tablebase.AutoDir(v)
	if err != nil {
		return nil, err
	}
	// Build reads the materials already in dir and builds only the
	// missing ones.
	start, built := time.Now(), 0
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: pieces, Dir: dir,
		Progress: func(p tablebase.Progress) {
			if m, ok := prog.(progress.Meter); ok && p.Phase == "init" {
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
