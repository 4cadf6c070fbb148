package run

import (
	"context"
	"fmt"
	"os"

	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/store"
)

// reconfigureRun applies the config file at path to the existing run in
// wd, whose run.yaml is stored: it writes the new run.yaml under the
// trainer's lease and returns the new config and the changes.
func reconfigureRun(ctx context.Context, wd *store.WorkDir, lease *store.Lease, stored []byte, path string) (runconfig.Config, []string, error) {
	cfg, text, changes, err := runconfig.Reconfigure(stored, path)
	if err != nil || len(changes) == 0 {
		return cfg, nil, err
	}
	v, err := cfg.LoadVariant()
	if err == nil {
		err = runconfig.CheckBeforeGames(&cfg, v)
	}
	if err != nil {
		return cfg, nil, fmt.Errorf("config %s over the run's run.yaml: %w", path, err)
	}
	err = lease.Commit(ctx, func(ctx context.Context) error {
		if err := atomicfile.WriteFile(wd.Dir().Config(), text); err != nil {
			return err
		}
		return wd.Push(ctx, store.ConfigObject)
	})
	return cfg, changes, err
}

// isFile reports whether path is an existing file.
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
