package selfplay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/mcts"
)

// ReanalysedKey is the shard metadata key of a shard of reanalysed
// positions (Reanalyse): its value is the generation of the model whose
// searches gave the targets. Such a shard holds no games (its GamesKey is
// 0), so counting a generation's games leaves it out.
const ReanalysedKey = "reanalysed_by"

// IsReanalysed reports whether a shard whose footer says info holds
// reanalysed positions rather than games.
func IsReanalysed(info dataset.ShardInfo) bool {
	_, ok := info.Metadata[ReanalysedKey]
	return ok
}

// ReanalyseJob is positions of earlier games searched again by a newer
// model: fresh policy targets and root values for old positions.
type ReanalyseJob struct {
	Variant *engine.Variant
	// Settings are self-play's: the positions are searched as its full
	// searches are (Search), on Workers goroutines of GamesInFlight
	// searches each.
	Settings   Settings
	Samples    []dataset.Sample // the positions; each keeps its game id, ply and outcome
	Generation int              // the run's generation the new samples are for
	Model      int              // the model generation that searches (1 or more)
	ShardDir   string           // where the shard of the new samples goes
	Seed       uint64

	// NewEvaluator makes worker i's evaluator, as Job's.
	NewEvaluator func(worker int) (mcts.Evaluator, error)
}

// ReanalyseStats are the totals of one Reanalyse.
type ReanalyseStats struct {
	Positions int64 // positions searched again and written
	Skipped   int64 // positions over by the rules (never searched)
	Changed   int64 // positions whose new target puts the most on another action than the old
	Elapsed   time.Duration
}

// Reanalyse searches every sample's position again with the job's model
// and writes the new samples, one shard: the same position, game, ply and
// outcome, the policy target and root value of the new search. A position
// is searched from a history of its ply positions with its earlier
// occurrences restored (as TargetSpread does), so the repetition draws of
// the root are self-play's. A sample whose position the rules end is
// skipped. When ctx is cancelled nothing is written.
func Reanalyse(ctx context.Context, job ReanalyseJob) (ReanalyseStats, error) {
	start := time.Now()
	if job.Variant == nil {
		return ReanalyseStats{}, errors.New("reanalyse: no variant")
	}
	if job.NewEvaluator == nil || job.Model < 1 {
		return ReanalyseStats{}, errors.New("reanalyse: no model to search with")
	}
	if err := job.Settings.Validate(); err != nil {
		return ReanalyseStats{}, fmt.Errorf("reanalyse: %w", err)
	}
	n := min(job.Settings.workers(), max(1, len(job.Samples)))
	out := make([]dataset.Sample, len(job.Samples))
	done := make([]bool, len(job.Samples))
	stats := make([]ReanalyseStats, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		lo, hi := i*len(job.Samples)/n, (i+1)*len(job.Samples)/n
		wg.Go(func() {
			stats[i], errs[i] = reanalyseRange(ctx, &job, i, job.Samples[lo:hi], out[lo:hi], done[lo:hi])
		})
	}
	wg.Wait()
	var st ReanalyseStats
	for i := range n {
		if errs[i] != nil {
			return st, errs[i]
		}
		st.Positions += stats[i].Positions
		st.Skipped += stats[i].Skipped
		st.Changed += stats[i].Changed
	}
	kept := out[:0]
	for k := range out {
		if done[k] {
			kept = append(kept, out[k])
		}
	}
	if len(kept) > 0 {
		sw, err := dataset.NewShardWriter(job.ShardDir, map[string]string{
			GamesKey:      "0",
			"generation":  strconv.Itoa(job.Generation),
			ModelKey:      strconv.Itoa(job.Model),
			ReanalysedKey: strconv.Itoa(job.Model),
		}, job.Variant)
		if err != nil {
			return st, fmt.Errorf("reanalyse: %w", err)
		}
		if err := sw.Write(kept...); err != nil {
			sw.Abort()
			return st, fmt.Errorf("reanalyse: %w", err)
		}
		if err := sw.Close(); err != nil {
			return st, fmt.Errorf("reanalyse: %w", err)
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// reanalyseRange is worker w's share of a Reanalyse: the samples in
// batches of GamesInFlight searches run together, so the evaluator sees
// batches as self-play's do. out[k] is set, and done[k], for every
// sample searched.
func reanalyseRange(ctx context.Context, job *ReanalyseJob, w int, samples, out []dataset.Sample, done []bool) (ReanalyseStats, error) {
	var st ReanalyseStats
	if len(samples) == 0 {
		return st, nil
	}
	v := job.Variant
	eval, err := job.NewEvaluator(w)
	if err == nil {
		err = mcts.CheckEvaluator(job.Settings.Search, eval)
	}
	if err != nil {
		return st, fmt.Errorf("reanalyse: worker %d: %w", w, err)
	}
	pool := mcts.NewPool(v, eval)
	searches := make([]*mcts.Search, min(job.Settings.GamesInFlight, len(samples)))
	for k := range searches {
		if searches[k], err = mcts.NewSearch(v, job.Settings.Search, seedpkg.Derive(job.Seed, "reanalyse", uint64(w), uint64(k))); err != nil {
			return st, fmt.Errorf("reanalyse: %w", err)
		}
	}
	histories := make([][]uint64, len(searches))
	which := make([]int, 0, len(searches)) // the sample of each search in the batch
	for next := 0; next < len(samples); {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		which = which[:0]
		for ; next < len(samples) && len(which) < len(searches); next++ {
			smp := &samples[next]
			if over(v, smp) {
				st.Skipped++
				continue
			}
			k := len(which)
			histories[k] = placeholderHistory(histories[k][:0], &smp.Position, smp.Ply, smp.Repetitions)
			searches[k].SetRoot(smp.Position, histories[k])
			which = append(which, next)
		}
		if len(which) == 0 {
			continue
		}
		if err := pool.RunContext(ctx, searches[:len(which)]); err != nil {
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			return st, fmt.Errorf("reanalyse: %w", err)
		}
		for k, i := range which {
			old := &samples[i]
			res := searches[k].Result()
			smp := dataset.Sample{
				Variant:     old.Variant,
				GameID:      old.GameID,
				Ply:         old.Ply,
				Generation:  job.Generation,
				Position:    old.Position,
				Repetitions: old.Repetitions,
				RootValue:   res.Value[old.Position.Side],
				Outcome:     old.Outcome,
				Simulations: res.Visited,
				Full:        true,
				Reply:       old.Reply,
				End:         old.End,
			}
			for a, act := range res.Actions {
				if res.Policy[a] > 0 {
					smp.Policy = append(smp.Policy, dataset.PolicyEntry{Action: uint16(v.ActionIndex(act)), Prob: res.Policy[a]})
				}
			}
			if topAction(old.Policy) != topAction(smp.Policy) {
				st.Changed++
			}
			out[i], done[i] = smp, true
			st.Positions++
		}
	}
	return st, nil
}

// over reports whether the rules end the game at the sample's position,
// where there is nothing to search.
func over(v *engine.Variant, smp *dataset.Sample) bool {
	if r, _ := v.Outcome(&smp.Position); r != engine.Ongoing {
		return true
	}
	return v.RepetitionDraw > 0 && smp.Repetitions+1 >= v.RepetitionDraw
}

// topAction is the action a policy target puts the most on (-1: none).
func topAction(p []dataset.PolicyEntry) int {
	best, top := -1, float32(-1)
	for _, e := range p {
		if e.Prob > top {
			best, top = int(e.Action), e.Prob
		}
	}
	return best
}
