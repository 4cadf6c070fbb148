package tablebase

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/millzero/millzero/engine"
)

// Auto, given where a directory of tables is asked for (a run's
// tablebase, a --tablebase flag), names the tables of a variant in the
// user's cache directory (AutoDir), built there by the first process that
// needs them: seconds on two cores for nine, and every machine builds its
// own.
const Auto = "auto"

// AutoDir is the directory of v's Auto tables in the user's cache:
// $XDG_CACHE_HOME/millzero/tables/VARIANT-HASH.
func AutoDir(v *engine.Variant) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("a cache directory for the tables (or name a directory): %w", err)
	}
	return filepath.Join(base, "millzero", "tables", v.Name+"-"+v.Spec.Hash()), nil
}
