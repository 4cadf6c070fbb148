package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// TargetsBench is `millzero bench targets` on a local run: one
// generation's model, positions its games recorded, and the run's
// self-play search (selfplay.TargetSpread measures them).
type TargetsBench struct {
	Generation int
	Variant    *engine.Variant
	Net        *model.Network
	Samples    []dataset.Sample // full-search positions spread evenly over the generation's games
	Search     mcts.Settings    // the run's selfplay.search; a caller may change it before Run
}

// NewTargetsBench opens the run in dir at generation gen (-1: the best, or
// the newest generation before it with both a model and games, since a
// run stopped after training has no games of its best) with up to
// positions of its recorded positions.
func NewTargetsBench(dir string, gen, positions int) (*TargetsBench, error) {
	r := store.Dir(dir)
	cfg, _, err := runconfig.LoadRunConfig(r.Config())
	if err != nil {
		return nil, err
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		return nil, err
	}
	if gen < 0 {
		best, err := r.Best()
		if errors.Is(err, store.ErrNoModel) {
			return nil, fmt.Errorf("no model yet: the targets of a network need one")
		}
		if err != nil {
			return nil, err
		}
		for gen = best; gen >= 1; gen-- {
			shards, _ := generationShards(r, gen)
			if _, err := os.Stat(r.Model(gen)); err == nil && len(shards) > 0 {
				break
			}
		}
		if gen < 1 {
			return nil, fmt.Errorf("no generation up to the best (%d) has both a model and games", best)
		}
	}
	ck, err := model.LoadCheckpointFor(r.Model(gen), v)
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", gen, err)
	}
	samples, err := spreadPositions(r, gen, v, positions)
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", gen, err)
	}
	return &TargetsBench{Generation: gen, Variant: v, Net: ck.Net, Samples: samples, Search: cfg.SelfPlayAt(gen).Search}, nil
}

// Run searches every position searches times with b.Search, evaluating
// as self-play does (symmetry: a random turn of the board each time;
// orientations: the mean of that many turns), seeded by seed.
func (b *TargetsBench) Run(searches int, symmetry bool, orientations int, seed uint64) (selfplay.Spread, error) {
	eval, err := model.NewEvaluator(b.Variant, b.Net, 2*searches*b.Search.BatchSize, symmetry, seed)
	if err != nil {
		return selfplay.Spread{}, err
	}
	if err := eval.SetOrientations(orientations); err != nil {
		return selfplay.Spread{}, err
	}
	return selfplay.TargetSpread(b.Variant, eval, b.Search, b.Samples, searches, seed)
}

// TargetJudgement is how the classical engine judges the targets'
// choices at the measured positions, by the first search's completed Q
// spread: Rows[0] the positions whose spread is under
// selfplay.NarrowSpread (the values nearly tied), Rows[1] the rest.
type TargetJudgement struct {
	Depth int             `json:"depth"`
	Rows  [2]JudgedTarget `json:"rows"` // narrow, wide
}

// JudgedTarget is one row of a TargetJudgement: the share of positions
// whose first search's target puts the most on the engine's best action,
// and whose network puts the most there, and the pieces each of those
// two actions loses by the engine's measure (Diagnose's value lost).
type JudgedTarget struct {
	Positions    int     `json:"positions"`
	TargetAgree  float64 `json:"target_agree"`
	NetworkAgree float64 `json:"network_agree"`
	TargetLost   float64 `json:"target_lost"`
	NetworkLost  float64 `json:"network_lost"`
}

// RunJudged is Run, with every position's choices judged by the classical
// engine at depth plies (Diagnose's judge: the position at depth, the
// position after a choice at depth-1, scores capped at DiagnoseCap
// pieces, no contempt, a fresh table each position; the position's game
// history is not known, so repetitions before it are not). progress, if
// not nil, is called after each position.
func (b *TargetsBench) RunJudged(ctx context.Context, searches int, symmetry bool, orientations int, seed uint64, depth int, progress func(done, total int)) (selfplay.Spread, *TargetJudgement, error) {
	eval, err := model.NewEvaluator(b.Variant, b.Net, 2*searches*b.Search.BatchSize, symmetry, seed)
	if err != nil {
		return selfplay.Spread{}, nil, err
	}
	if err := eval.SetOrientations(orientations); err != nil {
		return selfplay.Spread{}, nil, err
	}
	j, err := (&Diagnose{}).newJudge(b.Variant, nil, nil, depth, DiagnoseCap)
	if err != nil {
		return selfplay.Spread{}, nil, err
	}
	out := &TargetJudgement{Depth: depth}
	done := 0
	each := func(tp *selfplay.TargetPosition) error {
		smp := &b.Samples[tp.Sample]
		row := &out.Rows[1]
		if tp.QSpread[0] < selfplay.NarrowSpread {
			row = &out.Rows[0]
		}
		j.s.NewGame()
		g := engine.NewGameFrom(b.Variant, smp.Position)
		target, err := j.action(ctx, g, tp.Actions[tp.Top[0]])
		if err != nil {
			return fmt.Errorf("judging position %d (ply %d of game %s): %w", tp.Sample, smp.Ply, smp.GameID, err)
		}
		network := target
		if tp.Prior != tp.Top[0] {
			if network, err = j.action(ctx, g, tp.Actions[tp.Prior]); err != nil {
				return fmt.Errorf("judging position %d (ply %d of game %s): %w", tp.Sample, smp.Ply, smp.GameID, err)
			}
		}
		row.Positions++
		row.TargetLost += target.lost
		row.NetworkLost += network.lost
		if target.agree {
			row.TargetAgree++
		}
		if network.agree {
			row.NetworkAgree++
		}
		done++
		if progress != nil {
			progress(done, len(b.Samples))
		}
		return nil
	}
	sp, err := selfplay.TargetSpreadEach(b.Variant, eval, b.Search, b.Samples, searches, seed, each)
	if err != nil {
		return sp, nil, err
	}
	for i := range out.Rows {
		r := &out.Rows[i]
		if n := float64(r.Positions); n > 0 {
			r.TargetAgree, r.NetworkAgree, r.TargetLost, r.NetworkLost = r.TargetAgree/n, r.NetworkAgree/n, r.TargetLost/n, r.NetworkLost/n
		}
	}
	return sp, out, nil
}

// WriteJudgement prints j for people, after Write.
func WriteJudgement(out io.Writer, j *TargetJudgement) {
	fmt.Fprintf(out, "\njudged by the classical engine at depth %d (the first search of each position):\n", j.Depth)
	fmt.Fprintf(out, "  %-28s %9s %15s %15s %13s %14s\n", "completed Q spread", "positions", "target's top", "network's top", "target loses", "network loses")
	for i, name := range []string{fmt.Sprintf("under %.2f", selfplay.NarrowSpread), fmt.Sprintf("%.2f or more", selfplay.NarrowSpread)} {
		r := j.Rows[i]
		fmt.Fprintf(out, "  %-28s %9d %14.1f%% %14.1f%% %13.3f %14.3f\n", name, r.Positions, 100*r.TargetAgree, 100*r.NetworkAgree, r.TargetLost, r.NetworkLost)
	}
	fmt.Fprintln(out, "top: the share whose most probable action is the engine's best; loses: pieces lost a position by the engine's measure (capped at 4).")
}

// generationShards lists the shard files of generation g's games in r,
// leaving out the shards of older positions searched again
// (loop.reanalyse), which are not the generation's games.
func generationShards(r store.Dir, g int) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(r.ShardDir(g), "*"+dataset.ShardExt))
	if err != nil {
		return nil, err
	}
	files := all[:0]
	for _, f := range all {
		if info, err := dataset.Inspect(f); err == nil && selfplay.IsReanalysed(info) {
			continue
		}
		files = append(files, f)
	}
	return files, nil
}

// spreadPositions reads the full-search samples of generation g's games
// and keeps n of them spread evenly (all, if there are fewer).
func spreadPositions(r store.Dir, g int, v *engine.Variant, n int) ([]dataset.Sample, error) {
	dir := r.ShardDir(g)
	files, err := generationShards(r, g)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no games in %s", dir)
	}
	var full []dataset.Sample
	for _, f := range files {
		ss, err := dataset.ReadShardFor(f, v)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			if s.Full {
				full = append(full, s)
			}
		}
	}
	if len(full) == 0 {
		return nil, fmt.Errorf("no full-search positions in %s", dir)
	}
	if len(full) <= n {
		return full, nil
	}
	out := make([]dataset.Sample, n)
	for i := range out {
		out[i] = full[i*len(full)/n]
	}
	return out, nil
}

// Write prints sp, the spread Run measured in elapsed (with symmetry and
// orientations as given to it), for people.
func (b *TargetsBench) Write(out io.Writer, sp selfplay.Spread, symmetry bool, orientations int, elapsed time.Duration) {
	set, g := b.Search, b.Generation
	turned := fmt.Sprintf("board turned: %v, views a position: %d", symmetry, orientations)
	if b.Net.Arch.Canonical {
		turned = "every board in its canonical turn (model.orientation)"
	}
	fmt.Fprintf(out, "generation %d, %d positions, %d searches each (%d visits, root %s, c_scale %v, min_q_spread %v, %s), %.0fs\n",
		g, sp.Positions, sp.Searches, set.Simulations, set.Root, set.CScale, set.MinQSpread, turned, elapsed.Seconds())
	fmt.Fprintf(out, "  entropy of one search's target      %s nats (self-play recorded %s there)\n", sp.Entropy, sp.Recorded)
	fmt.Fprintf(out, "  entropy of the searches' mean       %s nats: the least policy loss on such targets\n", sp.MeanEntropy)
	fmt.Fprintf(out, "  cross-entropy under the network     %s nats: its policy loss on them\n", sp.CrossEntropy)
	fmt.Fprintf(out, "    beyond the searches' disagreement %s nats: KL(mean target || network)\n", sp.Excess)
	fmt.Fprintf(out, "  two searches' top actions the same  %s\n", sp.Agreement)
	if set.Root == mcts.RootGumbel {
		fmt.Fprintf(out, "  spread of the root's completed Q    %s (max - min over the children, in wins)\n", sp.QSpread)
		fmt.Fprintf(out, "    searches with a spread under %.2f  %s\n", selfplay.NarrowSpread, sp.NarrowQ)
	}
	fmt.Fprintln(out, "\n± is the 95% half-width over the positions; the mean target's entropy, from a finite number of searches, is low.")
}
