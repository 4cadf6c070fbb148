package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/gen"
)

// A run's layout, the same in a store and in a local directory (DESIGN.md).
// Every reader and writer of a run takes its object names from here:
//
//	run.yaml                          ConfigObject: the resolved config
//	lease/00000001733580000123.json   LeaseRecord(n): the trainer's lease, a record a change
//	models/gen-000007.safetensors     CheckpointObject(7): weights and metadata
//	models/best                       BestObject: the generation self-play uses
//	games/gen-000007/*.parquet        ShardsPrefix(7): self-play shards
//	arena/*.parquet                   ArenaPrefix: every arena game
//	arena/ratings.csv                 RatingsObject: the Elo ladder
//	metrics/*.csv, metrics/*.png      MetricsPrefix: tables and plots
//
// Object names are slash-separated and relative to the run; Dir.Path is an
// object's file in a local run directory.
const (
	ConfigObject      = "run.yaml"                  // the resolved config; every run has it
	LeasePrefix       = "lease/"                    // the trainer's lease: LeaseRecord's, written once each (lease.go)
	ModelsPrefix      = "models/"                   // the checkpoints and the best pointer
	BestObject        = ModelsPrefix + "best"       // the generation self-play uses (Dir.Best)
	CheckpointsPrefix = ModelsPrefix + gen.Prefix   // what every checkpoint's name starts with
	CheckpointExt     = ".safetensors"              // what every checkpoint's name ends with
	GamesPrefix       = "games/"                    // the self-play shards, a directory a generation
	ArenaPrefix       = "arena/"                    // the arena's game records and ratings
	RatingsObject     = ArenaPrefix + "ratings.csv" // the Elo ladder
	MetricsPrefix     = "metrics/"                  // the tables and plots
)

// The metrics tables and plots of a run, under MetricsPrefix. Only the
// trainer writes them.
const (
	GenerationsTable = MetricsPrefix + "generations.csv" // one row a generation
	LossesTable      = MetricsPrefix + "losses.csv"      // the training losses
	EloTable         = MetricsPrefix + "elo.csv"         // the ratings ladder over time
	PhasesTable      = MetricsPrefix + "phases.csv"      // where a generation's time goes
	StrengthTable    = MetricsPrefix + "strength.csv"    // the yardstick matches
	LastErrorObject  = MetricsPrefix + "last-error.txt"  // the trainer's last error, for millzero status

	EloPlot      = MetricsPrefix + "elo.png"      // Elo over time
	LossPlot     = MetricsPrefix + "loss.png"     // the losses
	TimePlot     = MetricsPrefix + "time.png"     // where a generation's time goes
	SelfPlayPlot = MetricsPrefix + "selfplay.png" // self-play's games
	StrengthPlot = MetricsPrefix + "strength.png" // the yardstick matches
)

// ModelName is the name of generation gen's model (gen.Name): its arena
// name, its checkpoint's name without CheckpointExt and its shards'
// directory (gen-000007). Generation 0 is the search with random-rollout
// values that plays before any model exists.
func ModelName(g int) string { return gen.Name(g) }

// ParseModelName is the generation a model name (ModelName's form) names,
// and whether name is one.
func ParseModelName(name string) (int, bool) { return gen.Parse(name) }

// LeaseRecord is the lease's record number n: a write-once object, so
// that of two trainers that write record n (a renewal and a takeover, a
// commit and --break-lease) exactly one succeeds. Numbers are zero-padded
// so that names sort by number.
func LeaseRecord(n int64) string { return fmt.Sprintf("%s%020d%s", LeasePrefix, n, leaseRecordExt) }

// leaseRecordExt ends a lease record's name.
const leaseRecordExt = ".json"

// leaseDoneSuffix ends the name of the object that says a commit record's
// writes are done (LeaseDone).
const leaseDoneSuffix = ".done"

// LeaseDone is the write-once object the holder of the lease writes when
// the writes of its commit record n are over, so that a trainer that broke
// the lease meanwhile need not wait out the commit's window.
func LeaseDone(n int64) string { return LeaseRecord(n) + leaseDoneSuffix }

// ParseLeaseRecord is the number of a lease record's name (LeaseRecord's
// form), and whether name is one.
func ParseLeaseRecord(name string) (int64, bool) {
	digits, ok := strings.CutPrefix(name, LeasePrefix)
	if !ok {
		return 0, false
	}
	if digits, ok = strings.CutSuffix(digits, leaseRecordExt); !ok || len(digits) != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n > 0
}

// parseLeaseDone is the number of a LeaseDone name, and whether name is one.
func parseLeaseDone(name string) (int64, bool) {
	rec, ok := strings.CutSuffix(name, leaseDoneSuffix)
	if !ok {
		return 0, false
	}
	return ParseLeaseRecord(rec)
}

// CheckpointObject is the checkpoint of model generation gen
// (models/gen-000007.safetensors).
func CheckpointObject(gen int) string { return ModelsPrefix + ModelName(gen) + CheckpointExt }

// ParseCheckpointObject is the generation of a checkpoint's object name
// (CheckpointObject's form), and whether name is one.
func ParseCheckpointObject(name string) (int, bool) {
	file, ok := strings.CutPrefix(name, ModelsPrefix)
	if !ok {
		return 0, false
	}
	return checkpointGeneration(file)
}

// checkpointGeneration is the generation of a checkpoint's file name in
// models/ (CheckpointObject's base name), and whether it is one.
func checkpointGeneration(file string) (int, bool) {
	model, ok := strings.CutSuffix(file, CheckpointExt)
	if !ok {
		return 0, false
	}
	return ParseModelName(model)
}

// ShardsPrefix is the prefix of the shards played by model generation gen
// (games/gen-000007/).
func ShardsPrefix(gen int) string { return GamesPrefix + ModelName(gen) + "/" }

// Dir is a run's local directory, laid out as a store is (see the layout
// above): the run's own when it is a local path, else a cache of a store.
type Dir string

// Path is the file of the object (or prefix) name in the directory.
func (r Dir) Path(name string) string {
	return filepath.Join(string(r), filepath.FromSlash(name))
}

// Config is run.yaml, the resolved config.
func (r Dir) Config() string { return r.Path(ConfigObject) }

// Models is the directory of the checkpoints and the best pointer.
func (r Dir) Models() string { return r.Path(ModelsPrefix) }

// Games is the directory of the self-play shards, one directory a generation.
func (r Dir) Games() string { return r.Path(GamesPrefix) }

// Arena is the directory of the arena's game records and ratings.
func (r Dir) Arena() string { return r.Path(ArenaPrefix) }

// Metrics is the directory of the metrics tables and plots.
func (r Dir) Metrics() string { return r.Path(MetricsPrefix) }

// BestFile is models/best, the pointer to the best generation.
func (r Dir) BestFile() string { return r.Path(BestObject) }

// Model is the checkpoint of model generation gen.
func (r Dir) Model(gen int) string { return r.Path(CheckpointObject(gen)) }

// ShardDir is the directory of the shards played by model generation gen.
func (r Dir) ShardDir(gen int) string { return r.Path(ShardsPrefix(gen)) }

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

// SetBest records gen as the best generation (the trainer does this):
// readers see the old pointer or the new one.
func (r Dir) SetBest(gen int) error {
	path := r.BestFile()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.WriteString(w, strconv.Itoa(gen)+"\n")
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RemoveTemp deletes the temporary files in the directory that their
// writers abandoned (atomicfile.Abandoned): those of a process of this host
// that no longer runs (a writer killed while writing), and any an hour
// old. Files that live writers are writing stay.
func (r Dir) RemoveTemp() error {
	for _, d := range []string{string(r), r.Models(), r.Arena(), r.Metrics(), r.Path(LeasePrefix)} {
		if _, err := atomicfile.Sweep(d, time.Hour); err != nil {
			return err
		}
	}
	_, err := dataset.RemoveStaleTemp(r.Games(), time.Hour)
	return err
}
