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
	"github.com/millzero/millzero/store"
)

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

// Status reads the run's state from its store: every generation's games
// are counted from its shards' Parquet footers (in an object store by
// ranged reads of their ends: no shard is downloaded), so they are the
// games the store holds, also those added after the generation finished.
func (l *Loop) Status(ctx context.Context) (Status, error) {
	gt, err := l.gens.load()
	if err != nil {
		return Status{}, err
	}
	st := Status{Run: l.loc, Variant: l.v.Name, Generations: len(gt.rows), RunHours: l.cfg.Loop.RunHours}
	if h := gt.column("hours"); len(h) > 0 {
		st.Hours = h[len(h)-1]
		if k := min(paceGenerations, len(h)-1); k > 0 {
			st.Pace = 3600 * (h[len(h)-1] - h[len(h)-1-k]) / float64(k)
		}
	}
	if st.Strength, err = l.newestStrength(); err != nil {
		return st, err
	}
	if err := l.newestFigures(&st); err != nil {
		return st, err
	}
	if best, err := l.dir.Best(); err == nil {
		st.Best = store.ModelName(best)
	} else if !errors.Is(err, store.ErrNoModel) {
		return st, err
	}
	if info, err := store.ReadLease(ctx, l.wd.Store()); err == nil {
		st.Lease = &info
		st.LeaseState, st.LeaseWhy = leaseState(info, time.Now())
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	if err := l.wd.Pull(ctx, store.LastErrorObject); err != nil {
		return st, err
	}
	if data, err := os.ReadFile(l.wd.Path(store.LastErrorObject)); err == nil {
		st.LastError = strings.TrimSpace(string(data))
	}
	objs, err := l.wd.Store().List(ctx, store.GamesPrefix)
	if err != nil {
		return st, err
	}
	counts := l.loadGameCounts()
	defer counts.save(l.log)
	gens := map[int]*GenerationStatus{}
	workers := map[string]*WorkerStatus{}
	window := st.Generations - l.cfg.Loop.WindowAt(st.Generations) + 1
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
		k, err := counts.games(ctx, l.wd.Store(), o)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if err != nil && !isShardError(err) {
			return st, err
		}
		if err != nil { // the trainer skips it too
			l.log.Warn("skipping shard", "shard", l.wd.Store().Where(o.Name), "err", err)
			continue
		}
		if k.Reanalysed { // no games, and not a worker's
			gs.Reanalysed++
			continue
		}
		gs.Shards++
		gs.Games += k.Games
		if g < window {
			continue
		}
		w := shardWorker(file)
		if workers[w] == nil {
			workers[w] = &WorkerStatus{Worker: w}
		}
		workers[w].Shards++
		workers[w].Games += k.Games
	}
	decision := gt.text("decision")
	for g := range st.Generations {
		gs := gens[g]
		if gs == nil {
			gs = &GenerationStatus{Generation: g}
			gens[g] = gs
		}
		gs.Decision = decision[g]
	}
	for _, gs := range gens {
		st.PerGen = append(st.PerGen, *gs)
	}
	sort.Slice(st.PerGen, func(i, j int) bool { return st.PerGen[i].Generation < st.PerGen[j].Generation })
	for _, w := range workers {
		st.Workers = append(st.Workers, *w)
	}
	sort.Slice(st.Workers, func(i, j int) bool { return st.Workers[i].Worker < st.Workers[j].Worker })
	return st, nil
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
func (l *Loop) newestStrength() ([]StrengthStatus, error) {
	t, err := l.str.load()
	if err != nil || len(t.rows) == 0 {
		return nil, err
	}
	hours, games, score := t.column("hours"), t.column("games"), t.column("score")
	elo, low, high := t.column("elo"), t.column("low"), t.column("high")
	models, opps := t.text("model"), t.text("opponent")
	last := len(t.rows) - 1
	var out []StrengthStatus
	for i := range t.rows {
		if models[i] != models[last] || hours[i] != hours[last] {
			continue
		}
		r := StrengthStatus{Model: models[i], Hours: hours[i], Opponent: opps[i], Games: int(games[i]), Score: score[i]}
		if !math.IsNaN(elo[i]) && !math.IsNaN(low[i]) && !math.IsNaN(high[i]) {
			r.Elo, r.Low, r.High = &elo[i], &low[i], &high[i]
		}
		out = append(out, r)
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
