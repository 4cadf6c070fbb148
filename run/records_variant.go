package run

import (
	"context"
	"fmt"
	"os"

	"github.com/millzero/millzero/engine"
)

// CheckVariant refuses, before any game, to add games of v to the records
// of a run of another variant; a location holding only arena records
// takes any variant.
func (r *Records) CheckVariant(ctx context.Context, v *engine.Variant) error {
	if err := r.wd.pull(ctx, "run.yaml"); err != nil {
		return err
	}
	path := r.wd.dir.Config()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	rv, err := r.wd.dir.Variant()
	if err != nil {
		return fmt.Errorf("run %s: %w", r.wd.store, err)
	}
	if rv.Name != v.Name {
		return fmt.Errorf("run %s is a run of %s: its arena takes no games of %s (--variant %s)", r.wd.store, rv.Name, v.Name, v.Name)
	}
	return nil
}
