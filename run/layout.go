package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
)

// Dir is a run's directory (DESIGN.md):
//
//	runs/NAME/
//	  run.yaml                        the resolved config
//	  models/gen-000007.safetensors   weights and metadata
//	  models/best                     the generation self-play uses
//	  games/gen-000007/*.parquet      self-play shards
//	  arena/*.parquet                 every arena game
//	  metrics/                        tables and plots
type Dir string

// Config is run.yaml, the resolved config.
func (r Dir) Config() string { return filepath.Join(string(r), "run.yaml") }

// Variant is the run's variant, rebuilt from the spec its run.yaml records.
func (r Dir) Variant() (*engine.Variant, error) {
	rc, _, err := LoadRunConfig(r.Config())
	if err != nil {
		return nil, err
	}
	return rc.LoadVariant()
}

// Models is the directory of the checkpoints and the best pointer.
func (r Dir) Models() string { return filepath.Join(string(r), "models") }

// Games is the directory of the self-play shards, one directory a generation.
func (r Dir) Games() string { return filepath.Join(string(r), "games") }

// Arena is the directory of the arena's game records and ratings.
func (r Dir) Arena() string { return filepath.Join(string(r), "arena") }

// Metrics is the directory of the metrics tables and plots.
func (r Dir) Metrics() string { return filepath.Join(string(r), "metrics") }

// BestFile is models/best, the pointer to the best generation.
func (r Dir) BestFile() string { return filepath.Join(r.Models(), "best") }

// Model is the checkpoint of model generation gen.
func (r Dir) Model(gen int) string {
	return filepath.Join(r.Models(), fmt.Sprintf("gen-%06d.safetensors", gen))
}

// ErrNoModel is returned by Best when the run has no model yet
// (generation 0 plays without one).
var ErrNoModel = errors.New("no model yet")

// Best is the generation self-play uses, from models/best.
func (r Dir) Best() (int, error) {
	data, err := os.ReadFile(r.BestFile())
	if os.IsNotExist(err) {
		return 0, ErrNoModel
	}
	if err != nil {
		return 0, err
	}
	gen, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || gen < 0 {
		return 0, fmt.Errorf("%s: %q is not a generation", r.BestFile(), strings.TrimSpace(string(data)))
	}
	return gen, nil
}

// SetBest records gen as the best generation (the trainer does this).
func (r Dir) SetBest(gen int) error {
	return saveFile(r.BestFile(), []byte(strconv.Itoa(gen)+"\n"))
}

// removeTemp deletes the temporary files a killed run left in the
// directories only the trainer writes (the top level, models, arena,
// metrics), and games' temporary shards older than an hour (younger ones
// may be another self-play process's, still being written).
func (r Dir) removeTemp() error {
	for _, d := range []string{string(r), r.Models(), r.Arena(), r.Metrics()} {
		entries, err := os.ReadDir(d)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() && atomicfile.IsTemp(e.Name()) {
				if err := os.Remove(filepath.Join(d, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	if _, err := os.Stat(r.Games()); os.IsNotExist(err) {
		return nil
	}
	_, err := dataset.RemoveStaleTemp(r.Games(), time.Hour)
	return err
}

// ModelName is the arena name of a generation's model; generation 0 is the
// search with random-rollout values that plays before any model exists.
func ModelName(gen int) string { return fmt.Sprintf("gen-%06d", gen) }

// seedNow is a seed for a process that must not repeat another's games.
func seedNow() uint64 { return uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<40 }
