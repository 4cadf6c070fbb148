package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/dataset"
)

// runDir is a run's directory (DESIGN.md):
//
//	runs/NAME/
//	  run.yaml                        the resolved config
//	  models/gen-000007.safetensors   weights and metadata
//	  models/best                     the generation self-play uses
//	  games/gen-000007/*.parquet      self-play shards
//	  arena/*.parquet                 every arena game
//	  metrics/                        tables and plots
type runDir string

func (r runDir) config() string   { return filepath.Join(string(r), "run.yaml") }
func (r runDir) models() string   { return filepath.Join(string(r), "models") }
func (r runDir) games() string    { return filepath.Join(string(r), "games") }
func (r runDir) arena() string    { return filepath.Join(string(r), "arena") }
func (r runDir) metrics() string  { return filepath.Join(string(r), "metrics") }
func (r runDir) bestFile() string { return filepath.Join(r.models(), "best") }
func (r runDir) model(gen int) string {
	return filepath.Join(r.models(), fmt.Sprintf("gen-%06d.safetensors", gen))
}

// errNoModel is returned by best when the run has no model yet
// (generation 0 plays without one).
var errNoModel = errors.New("no model yet")

// best is the generation self-play uses, from models/best.
func (r runDir) best() (int, error) {
	data, err := os.ReadFile(r.bestFile())
	if os.IsNotExist(err) {
		return 0, errNoModel
	}
	if err != nil {
		return 0, err
	}
	gen, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || gen < 0 {
		return 0, fmt.Errorf("%s: %q is not a generation", r.bestFile(), strings.TrimSpace(string(data)))
	}
	return gen, nil
}

// setBest records gen as the best generation.
func (r runDir) setBest(gen int) error {
	return writeFileAtomic(r.bestFile(), []byte(strconv.Itoa(gen)+"\n"))
}

// removeTemp deletes the temporary files a killed run left in the
// directories only the loop writes (models, arena, metrics), and games'
// temporary shards older than an hour (younger ones may be another
// self-play process's, still being written).
func (r runDir) removeTemp() error {
	for _, d := range []string{r.models(), r.arena(), r.metrics()} {
		entries, err := os.ReadDir(d)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() && strings.Contains(e.Name(), ".tmp") {
				if err := os.Remove(filepath.Join(d, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	if _, err := os.Stat(r.games()); os.IsNotExist(err) {
		return nil
	}
	_, err := dataset.RemoveStaleTemp(r.games(), time.Hour)
	return err
}

// seedNow is a seed for a process that must not repeat another's games.
func seedNow() uint64 { return uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<40 }
