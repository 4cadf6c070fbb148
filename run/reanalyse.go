package run

import (
	"context"
	"math/rand/v2"

	"github.com/millzero/millzero/dataset"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// reanalyse searches older positions again after generation g's
// self-play (loop.reanalyse): as many as that share of the positions
// generation g's games recorded, drawn from the training games of the
// window's earlier generations, searched by model best as self-play's
// full searches are, their fresh targets written as a shard of generation
// g beside its games. A generation that holds a reanalysed shard already
// (a resumed one) is not reanalysed again.
func (t *Trainer) reanalyse(ctx context.Context, g, best int) error {
	share := t.cfg.Loop.Reanalyse
	if share <= 0 || best < 1 {
		return nil
	}
	dir := t.dir.ShardDir(g)
	files, err := dataset.ShardFiles(dir)
	if err != nil {
		return err
	}
	recorded := int64(0)
	for _, f := range files {
		info, err := dataset.Inspect(f.Path)
		if err != nil {
			continue // a bad shard: counting the games reports it
		}
		if selfplay.IsReanalysed(info) {
			return nil
		}
		recorded += info.Rows
	}
	first := max(0, g+1-t.cfg.Loop.WindowAt(g+1))
	rng := rand.New(rand.NewPCG(seedpkg.Derive(t.cfg.Loop.Seed, "reanalyse", uint64(g)), 0))
	samples := t.reanalyseSamples(first, g, int(share*float64(recorded)+0.5), rng)
	if len(samples) == 0 {
		return nil
	}
	net, err := t.network(best)
	if err != nil {
		return err
	}
	set := t.cfg.SelfPlayAt(g)
	seed := seedpkg.Derive(t.cfg.Loop.Seed, "reanalyse searches", uint64(g))
	st, err := selfplay.Reanalyse(ctx, selfplay.ReanalyseJob{Variant: t.v, Settings: set, Samples: samples,
		Generation: g, Model: best, ShardDir: dir, Seed: seed,
		NewEvaluator: model.WorkerEvaluators(t.v, net, set.MaxBatch(), set.Orientations, seed)})
	if err != nil {
		return err
	}
	if err := t.wd.PushAll(ctx, store.ShardsPrefix(g)); err != nil {
		return err
	}
	t.prog.Done("generation %d reanalysis (%s): %d positions of generations %d-%d searched again, %d of them with another most probable action, %.0f positions/s",
		g, store.ModelName(best), st.Positions, first, g-1, st.Changed, float64(st.Positions)/st.Elapsed.Seconds())
	return nil
}

// reanalyseSamples draws up to n full-search positions of the training
// games (not the validation split) of generations first to last-1, from
// shards taken in random order, at most a thirty-second of n from any
// one, so they spread over many games. Reanalysed shards and shards that
// cannot be read are passed over.
func (t *Trainer) reanalyseSamples(first, last, n int, rng *rand.Rand) []dataset.Sample {
	if n <= 0 {
		return nil
	}
	var files []dataset.ShardFile
	for k := first; k < last; k++ {
		fs, err := dataset.ShardFiles(t.dir.ShardDir(k))
		if err != nil {
			t.log.Warn("reanalysis: list shards", "generation", k, "err", err)
			continue
		}
		files = append(files, fs...)
	}
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	quota := max(16, n/32)
	var out []dataset.Sample
	for _, f := range files {
		if len(out) >= n {
			break
		}
		info, err := dataset.Inspect(f.Path)
		if err != nil || selfplay.IsReanalysed(info) {
			continue
		}
		all, err := dataset.ReadShardFor(f.Path, t.v)
		if err != nil {
			t.log.Warn("reanalysis: skipping shard", "path", f.Path, "err", err)
			continue
		}
		kept := all[:0]
		for _, s := range all {
			if s.Full && !dataset.InValidation(s.GameID, t.cfg.Loop.ValFraction) {
				kept = append(kept, s)
			}
		}
		rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
		out = append(out, kept[:min(len(kept), quota, n-len(out))]...)
	}
	return out
}
