package runconfig

import (
	"errors"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/mcts"
)

// AutoTablePieces is how many pieces the tables of a run with
// tablebase.Auto cover: every material up to it is built in the user's
// cache by the first process that needs it.
const AutoTablePieces = 8

// OpenTables opens the endgame tables of v that dir names (a run's
// tablebase key, a --tablebase flag): "" is none (nil, and no error); a
// directory of tables; tablebase.Auto those of every material up to
// AutoTablePieces pieces in the user's cache (tablebase.AutoDir). With
// build, Auto's missing materials are built there first, with progress on
// prog, and a variant the tables do not cover is none; without build,
// Auto's tables are opened as they are.
func OpenTables(v *engine.Variant, dir string, build bool, prog progress.Reporter) (*tablebase.Set, error) {
	return openTables(v, dir, build, AutoTablePieces, prog)
}

// openTables is OpenTables with Auto's tables up to pieces pieces.
func openTables(v *engine.Variant, dir string, build bool, pieces int, prog progress.Reporter) (*tablebase.Set, error) {
	switch {
	case dir == "":
		return nil, nil
	case dir != tablebase.Auto:
		return tablebase.Open(v, dir, 0)
	}
	auto, err := tablebase.AutoDir(v)
	if err != nil {
		return nil, err
	}
	if !build {
		return tablebase.Open(v, auto, 0)
	}
	// Build reads the materials already in dir and builds only the
	// missing ones.
	start, built := time.Now(), 0
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: pieces, Dir: auto,
		Progress: func(p tablebase.Progress) {
			if m, ok := prog.(progress.Meter); ok && p.Phase == "init" {
				m.Phase(p.Done, p.Total) // the level phase's count of passes is a bound, not its size
			}
			prog.Update("tables of %s up to %d pieces in %s: %s, %s", v.Name, pieces, auto, p.Material, p.Elapsed.Round(time.Second))
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
		prog.Done("tables of %s up to %d pieces built in %s (%d new files) in %s", v.Name, pieces, time.Since(start).Round(100*time.Millisecond), built, auto)
	}
	return set, nil
}

// Prover is set as a search's prover: nil when set is nil, not a nil
// *tablebase.Set in an interface that is not.
func Prover(set *tablebase.Set) mcts.Prover {
	if set == nil {
		return nil
	}
	return set
}
