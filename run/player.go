package run

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// network loads generation gen's network, once: the cache holds the
// best's and the candidate's (forget drops the others after each
// generation, so a long run does not keep every network it loaded).
func (p *player) network(gen int) (*model.Network, error) {
	if n, ok := p.nets[gen]; ok {
		return n, nil
	}
	ck, err := model.LoadCheckpointFor(p.dir.Model(gen), p.v)
	if err != nil {
		return nil, err
	}
	p.nets[gen] = ck.Net
	return ck.Net, nil
}

// forget drops the cached networks of every generation but keep.
func (p *player) forget(keep int) {
	for gen := range p.nets {
		if gen != keep {
			delete(p.nets, gen)
		}
	}
}

// countGames is the number of games of generation g, from every self-play
// process: the shards in the store, brought into the cache.
func (p *player) countGames(ctx context.Context, g int) (int, error) {
	if _, err := p.wd.PullAll(ctx, store.ShardsPrefix(g)); err != nil {
		return 0, err
	}
	return p.shards.count(p.dir.ShardDir(g), p.v.Name, p.log)
}

// selfplayJob is the job of n games of generation g played by model
// generation best (0: rollouts).
func (p *player) selfplayJob(g, best, n int, seed uint64) (selfplay.Job, error) {
	set := p.cfg.SelfPlayAt(g)
	job := selfplay.Job{Variant: p.v, Settings: set, Games: n, Generation: g, Model: best, ShardDir: p.dir.ShardDir(g), Seed: seed,
		Prover: p.tables}
	if best > 0 {
		net, err := p.network(best)
		if err != nil {
			return job, err
		}
		job.NewEvaluator = model.WorkerEvaluators(p.v, net, set.MaxBatch(), set.Orientations, seed)
	}
	return job, nil
}

// endgameSummary says how many games began from a random endgame or
// opened with random plies, when any did.
func endgameSummary(st selfplay.Stats) string {
	s := ""
	if st.EndgameStarts > 0 {
		s += fmt.Sprintf(", %d started from a random endgame", st.EndgameStarts)
	}
	if st.OpeningStarts > 0 {
		s += fmt.Sprintf(", %d opened with random plies", st.OpeningStarts)
	}
	return s
}
