package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// Reader reads a run's state (millzero status): it never writes the run,
// takes no lease and opens no tables.
type Reader struct {
	core
}

// Close releases the run's store.
func (r *Reader) Close() error { return r.closeStore() }

// Status is a run's state for people and programs (millzero status).
type Status struct {
	Run         string             `json:"run"`
	Variant     string             `json:"variant"`
	Generations int                `json:"generations"`         // finished generations
	Hours       float64            `json:"hours"`               // run hours at the end of the last, over every invocation
	RunHours    float64            `json:"run_hours,omitempty"` // the run's budget of hours in all (loop.run_hours); 0 none
	Pace        float64            `json:"pace_seconds"`        // wall seconds a generation over the last paceGenerations (0 with fewer than two)
	Best        string             `json:"best,omitempty"`      // the model self-play uses; "" before the first
	Strength    []StrengthStatus   `json:"strength,omitempty"`  // the newest strength measurement (metrics/strength.csv), a row per yardstick
	Losses      *LossStatus        `json:"losses,omitempty"`    // the newest training losses (metrics/losses.csv)
	Rating      *RatingStatus      `json:"rating,omitempty"`    // the best model's newest Elo on the ladder (metrics/elo.csv)
	Lease       *store.LeaseInfo   `json:"lease,omitempty"`
	LeaseState  string             `json:"lease_state,omitempty"` // the holder as far as can be told: "live", "possibly dead", "dead" or "expired"
	LeaseWhy    string             `json:"lease_why,omitempty"`   // how LeaseState is told, for people
	LastError   string             `json:"last_error,omitempty"`  // the trainer's last failed generation
	PerGen      []GenerationStatus `json:"per_generation"`
	Workers     []WorkerStatus     `json:"workers"` // over the generations of the training window
}

// GenerationStatus is one generation's games and gate.
type GenerationStatus struct {
	Generation int    `json:"generation"`
	Shards     int    `json:"shards"`                      // of games
	Games      int    `json:"games"`                       // counted from the shards' footers
	Reanalysed int    `json:"reanalysed_shards,omitempty"` // shards of positions searched again by the trainer (loop.reanalyse)
	Decision   string `json:"decision,omitempty"`          // the gate's, once the generation is finished
}

// StrengthStatus is one row of the newest strength measurement: the model
// against one yardstick, or with endgame tables its share of right moves
// (tables:network, tables:search; no Elo).
type StrengthStatus struct {
	Model    string   `json:"model"`
	Hours    float64  `json:"hours"`
	Opponent string   `json:"opponent"`
	Games    int      `json:"games"` // games, or table positions
	Score    float64  `json:"score"` // mean score 0..1, or share of right moves
	Elo      *float64 `json:"elo,omitempty"`
	Low      *float64 `json:"elo_low,omitempty"`
	High     *float64 `json:"elo_high,omitempty"`
}

// paceGenerations is how many of the newest generations Status.Pace
// averages over.
const paceGenerations = 20

// WorkerStatus is what one self-play process (host and pid) added to the
// generations of the training window.
type WorkerStatus struct {
	Worker string `json:"worker"` // HOST/PID, from the shard names
	Shards int    `json:"shards"`
	Games  int    `json:"games"`
}

// Status reads the run's state from its store (the metrics tables pulled
// afresh into a reader's cache): every generation's games
// are counted from its shards' Parquet footers (in an object store by
// ranged reads of their ends: no shard is downloaded), so they are the
// games the store holds, also those added after the generation finished.
func (r *Reader) Status(ctx context.Context) (Status, error) {
	if err := r.pullTables(ctx); err != nil {
		return Status{}, fmt.Errorf("run %s: %w", r.loc, err)
	}
	rows, err := r.gens.Rows()
	if err != nil {
		return Status{}, err
	}
	st, err := r.summary(ctx, rows)
	if err != nil {
		return st, err
	}
	gens, err := r.countShards(ctx, &st)
	if err != nil {
		return st, err
	}
	for g := range st.Generations {
		gs := gens[g]
		if gs == nil {
			gs = &GenerationStatus{Generation: g}
			gens[g] = gs
		}
		gs.Decision = rows[g].Decision
	}
	for _, gs := range gens {
		st.PerGen = append(st.PerGen, *gs)
	}
	sort.Slice(st.PerGen, func(i, j int) bool { return st.PerGen[i].Generation < st.PerGen[j].Generation })
	return st, nil
}

// summary is the run's status but its generations' games and workers:
// its hours and pace (from rows, generations.csv's), its newest figures,
// best model, lease and last error.
func (r *Reader) summary(ctx context.Context, rows []runmetrics.GenRow) (Status, error) {
	st := Status{Run: r.loc, Variant: r.v.Name, Generations: len(rows), RunHours: r.cfg.Loop.RunHours}
	if n := len(rows); n > 0 {
		st.Hours = rows[n-1].Hours
		if k := min(paceGenerations, n-1); k > 0 {
			st.Pace = 3600 * (rows[n-1].Hours - rows[n-1-k].Hours) / float64(k)
		}
	}
	var err error
	if st.Strength, err = r.newestStrength(); err != nil {
		return st, err
	}
	if err := r.newestFigures(&st); err != nil {
		return st, err
	}
	if best, err := r.dir.Best(); err == nil {
		st.Best = store.ModelName(best)
	} else if !errors.Is(err, store.ErrNoModel) {
		return st, err
	}
	if info, err := store.ReadLease(ctx, r.wd.Store()); err == nil {
		st.Lease = &info
		st.LeaseState, st.LeaseWhy = leaseState(info, time.Now())
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	if err := r.wd.Pull(ctx, store.LastErrorObject); err != nil {
		return st, err
	}
	if data, err := os.ReadFile(r.wd.Path(store.LastErrorObject)); err == nil {
		st.LastError = strings.TrimSpace(string(data))
	}
	return st, nil
}

// countShards counts every generation's shards and games in the store,
// and each worker's over the training window into st.Workers; a shard
// that cannot be read is skipped (the trainer skips it too) and said.
func (r *Reader) countShards(ctx context.Context, st *Status) (map[int]*GenerationStatus, error) {
	objs, err := r.wd.Store().List(ctx, store.GamesPrefix)
	if err != nil {
		return nil, err
	}
	counts := r.loadGameCounts()
	defer counts.save(r.log)
	gens := map[int]*GenerationStatus{}
	workers := map[string]*WorkerStatus{}
	window := st.Generations - r.cfg.Loop.WindowAt(st.Generations) + 1
	for _, o := range objs {
		dir, file := path.Split(o.Name)
		g, ok := store.ParseModelName(path.Base(dir))
		if !ok || !strings.HasSuffix(file, dataset.ShardExt) {
			continue
		}
		gs := gens[g]
		if gs == nil {
			gs = &GenerationStatus{Generation: g}
			gens[g] = gs
		}
		k, err := counts.games(ctx, r.wd.Store(), o)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // removed since the listing
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil && !isShardError(err):
			return nil, err
		case err != nil:
			r.log.Warn("skipping shard", "shard", r.wd.Store().Where(o.Name), "err", err)
			continue
		case k.Reanalysed: // no games, and not a worker's
			gs.Reanalysed++
			continue
		}
		gs.Shards++
		gs.Games += k.Games
		if g >= window {
			w := shardWorker(file)
			if workers[w] == nil {
				workers[w] = &WorkerStatus{Worker: w}
			}
			workers[w].Shards++
			workers[w].Games += k.Games
		}
	}
	for _, w := range workers {
		st.Workers = append(st.Workers, *w)
	}
	sort.Slice(st.Workers, func(i, j int) bool { return st.Workers[i].Worker < st.Workers[j].Worker })
	return gens, nil
}

// isShardError tells whether err, of readShardCount, is the shard's (not
// a shard, truncated, another format) rather than the store's.
func isShardError(err error) bool {
	var se storeError
	return !errors.As(err, &se)
}

// leaseState tells what can be told of a lease's holder at now: "expired"
// once the lease lapsed; "dead" when it ran on this host, boot and PID
// namespace and its process is gone; "possibly dead" when it has not
// renewed for two of its renewal intervals (a third of its time to live);
// else "live". why says how, for people.
func leaseState(info store.LeaseInfo, now time.Time) (state, why string) {
	ttl := info.Expires.Sub(info.Renewed)
	every := ttl / 3
	age := now.Sub(info.Renewed).Round(time.Second)
	switch {
	case now.After(info.Expires):
		return "expired", fmt.Sprintf("not renewed for %v, expired %v ago: the next trainer takes it", age, now.Sub(info.Expires).Round(time.Second))
	case store.HolderGone(info):
		return "dead", fmt.Sprintf("pid %d is gone from this host; the next trainer here takes the lease at once", info.PID)
	case every > 0 && now.Sub(info.Renewed) > 2*every:
		return "possibly dead", fmt.Sprintf("not renewed for %v though renewed every %v; it lapses in %v", age, every.Round(time.Second),
			info.Expires.Sub(now).Round(time.Second))
	}
	return "live", fmt.Sprintf("renewed %v ago, every %v", age, every.Round(time.Second))
}

// newestStrength is the rows of metrics/strength.csv's newest
// measurement: those of its last row's model and hours.
func (c *core) newestStrength() ([]StrengthStatus, error) {
	rows, err := c.str.Rows()
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	last := rows[len(rows)-1]
	var out []StrengthStatus
	for _, r := range rows {
		if r.Model != last.Model || r.Hours != last.Hours {
			continue
		}
		s := StrengthStatus{Model: r.Model, Hours: r.Hours, Opponent: r.Opponent, Games: r.Games, Score: r.Score}
		if !math.IsNaN(r.Elo) && !math.IsNaN(r.Low) && !math.IsNaN(r.High) {
			elo, low, high := r.Elo, r.Low, r.High
			s.Elo, s.Low, s.High = &elo, &low, &high
		}
		out = append(out, s)
	}
	return out, nil
}

// shardWorker is HOST/PID of the process that wrote a shard, from its name
// (dataset.NewShardWriter: TIME-HOST-PID-NONCE.parquet, HOST without "-").
func shardWorker(file string) string {
	f := strings.Split(strings.TrimSuffix(file, dataset.ShardExt), "-")
	if len(f) < 4 {
		return "unknown"
	}
	return f[1] + "/" + f[2]
}
