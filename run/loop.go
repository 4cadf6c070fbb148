package run

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// A generation g: the ladder of the best (when it is new), self-play's
// games of generation g by the best, reanalyse, training the candidate
// g+1, the gate between the two, the ladder of a new best, the strength
// benchmark now and then, and the commit of the generation's row. Each
// step skips what is done, so a stopped generation resumes where it
// stopped.

// generationResult is what a generation's work gives its row.
type generationResult struct {
	trainLoss, valLoss float64
	gate               arena.GateResult
}

// generation runs the phases of generation g; each skips what is done.
func (t *Trainer) generation(ctx context.Context, g int) error {
	best, err := t.dir.Best()
	if errors.Is(err, store.ErrNoModel) {
		best = 0
	} else if err != nil {
		return err
	}
	res, err := t.playAndTrain(ctx, g, best)
	if err != nil {
		return err
	}
	decision := t.cfg.Gate.Decision(res.gate)
	t.telGate(decision, res.gate)
	if decision != "rejected" {
		if err := t.commit(ctx, func(context.Context) error { return t.dir.SetBest(g + 1) }); err != nil {
			return err
		}
		best = g + 1
		if err := t.timed(ctx, g, "ladder", func() error { return t.ladder(ctx, best) }); err != nil {
			return err
		}
	}
	if err := t.strength(ctx, g, best); err != nil {
		return err
	}
	row, err := t.generationRow(ctx, g, best, decision, res)
	if err != nil {
		return err
	}
	if err := t.commit(ctx, func(ctx context.Context) error { return t.commitGeneration(ctx, &row) }); err != nil {
		return err
	}
	t.prog.Done("generation %d: %s %s: %s, %s %s; best %s, Elo %.0f", g, store.ModelName(g+1), decision, t.cfg.Gate.Why(res.gate),
		res.gate.Unit(), res.gate.Counts(), store.ModelName(best), row.BestElo)
	t.forget(best)
	return t.trimCache(g)
}

// playAndTrain is a generation's work up to the gate's verdict: the
// ladder of the best, self-play, reanalyse, training and the gate, each
// timed in metrics/phases.csv.
func (t *Trainer) playAndTrain(ctx context.Context, g, best int) (generationResult, error) {
	var res generationResult
	if err := t.timed(ctx, g, "ladder", func() error { return t.ladder(ctx, best) }); err != nil {
		return res, err
	}
	if err := t.selfplay(ctx, g, best); err != nil {
		return res, err
	}
	if t.cfg.Loop.Reanalyse > 0 && best > 0 {
		if err := t.timed(ctx, g, "reanalyse", func() error { return t.reanalyse(ctx, g, best) }); err != nil {
			return res, err
		}
	}
	err := t.timed(ctx, g, "train", func() (err error) { res.trainLoss, res.valLoss, err = t.train(ctx, g); return err })
	if err != nil {
		return res, err
	}
	if t.cfg.Gate.MaxGames > 0 {
		err := t.timed(ctx, g, "gate", func() (err error) { res.gate, err = t.gate(ctx, g+1, best); return err })
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// generationRow is generation g's row of generations.csv but its best's
// Elo (commitGeneration's): its games, the gate's verdict, and what every
// process spent in its phases.
func (t *Trainer) generationRow(ctx context.Context, g, best int, decision string, res generationResult) (runmetrics.GenRow, error) {
	games, err := t.countGames(ctx, g)
	if err != nil {
		return runmetrics.GenRow{}, err
	}
	p, err := t.phaseTotals(g)
	if err != nil {
		return runmetrics.GenRow{}, err
	}
	return runmetrics.GenRow{Generation: g, Hours: t.hours(), Games: games, MovesPerS: p.movesPerSecond(),
		TrainLoss: res.trainLoss, ValLoss: res.valLoss, Candidate: store.ModelName(g + 1), Decision: decision, LLR: res.gate.LLR,
		Pairs: res.gate.Counts(), Best: store.ModelName(best),
		SelfplayS: p.seconds["selfplay"], TrainS: p.seconds["train"], GateS: p.seconds["gate"], LadderS: p.seconds["ladder"],
		SearchKL: p.meanKL(), DrawShare: p.drawShare(), GamePlies: p.meanPlies(), TargetEntropy: p.meanEntropy(),
		Lease: leaseTag(t.lease), ReanalyseS: p.seconds["reanalyse"]}, nil
}

// commitGeneration ends generation row.Generation, under the lease: the
// ratings (its best's Elo in row), the row in generations.csv, the plots
// when due, and the uploads of the generation's mutable objects,
// generations.csv last: it is the commit point of a generation.
func (t *Trainer) commitGeneration(ctx context.Context, row *runmetrics.GenRow) error {
	g := row.Generation
	eloBest, err := t.ratings(g)
	if err != nil {
		return err
	}
	row.BestElo = eloBest
	if err := t.gens.Add(*row); err != nil {
		return err
	}
	t.stale = true
	if n := t.cfg.Loop.Generations; time.Since(t.plotted) >= plotEvery || n > 0 && g+1 >= n {
		if err := t.redraw(); err != nil {
			return err
		}
		for _, name := range plotFiles {
			if err := t.wd.Push(ctx, name); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{store.BestObject, store.RatingsObject, store.EloTable, store.PhasesTable,
		store.StrengthTable, store.StrengthPlot, store.GenerationsTable} {
		if _, err := os.Stat(t.wd.Path(name)); os.IsNotExist(err) {
			continue
		}
		if err := t.wd.Push(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// trimCache drops, from the cache of a run in an object store, the shards
// that the window after generation g no longer reads: the store keeps
// every shard, the cache only the window's (the next generation's window
// starts at g+2-W).
func (t *Trainer) trimCache(g int) error {
	if t.wd.Local() {
		return nil
	}
	for k := 0; k <= g+1-t.cfg.Loop.WindowAt(g+1); k++ {
		if err := os.RemoveAll(t.dir.ShardDir(k)); err != nil {
			return err
		}
	}
	return nil
}

// selfplay tops generation g's games up to loop.games, played by model
// generation best (0: rollouts), and records its time and figures in
// metrics/phases.csv, also when interrupted.
func (t *Trainer) selfplay(ctx context.Context, g, best int) error {
	have, err := t.countGames(ctx, g)
	if err != nil {
		return err
	}
	need := t.cfg.Loop.Games - have
	if need <= 0 {
		return nil
	}
	if t.noLocal {
		return t.timed(ctx, g, "selfplay", func() error { return t.awaitGames(ctx, g, best) })
	}
	job, err := t.selfplayJob(g, best, need, seedpkg.Derive(t.cfg.Loop.Seed, "selfplay", uint64(g), uint64(have)))
	if err != nil {
		return err
	}
	job.ProgressEvery = time.Second
	tell := t.selfplayTelemetry()
	job.Progress = func(s selfplay.Stats) {
		t.phase(have+int(s.Games), t.cfg.Loop.Games)
		tell(s)
		t.prog.Update("generation %d self-play (%s): %d/%d games, %.0f moves/s, mean length %.0f, wins %v draws %d",
			g, store.ModelName(best), have+int(s.Games), t.cfg.Loop.Games, s.MovesPerSecond(), s.MeanLength(), s.Wins[:t.v.Players], s.Draws)
	}
	start := time.Now()
	st, err := selfplay.Run(ctx, job)
	tell(st)
	pctx, pcancel := afterStop(ctx)
	defer pcancel()
	if perr := t.wd.PushAll(pctx, store.ShardsPrefix(g)); err == nil {
		err = perr // the finished shards, also of an interrupted process
	}
	row := runmetrics.PhaseRow{Generation: g, Phase: "selfplay", Seconds: time.Since(start).Seconds(), Moves: float64(st.Moves),
		Positions: float64(st.Positions), KLMicro: float64(st.KLMicro), Games: float64(st.Games), Plies: float64(st.Plies),
		Draws: float64(st.Draws), EntropyMicro: float64(st.EntropyMicro)}
	if rerr := t.commit(ctx, func(context.Context) error { return t.phases.Add(row) }); err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	t.prog.Done("generation %d self-play (%s): %d games, %.0f moves/s, %d positions, mean length %.0f, draws %d (ply cap %d), search KL from the prior %.3f nats (the target's entropy %.3f), %d adjudicated and %d positions rescored by the tables%s%s",
		g, store.ModelName(best), have+int(st.Games), st.MovesPerSecond(), st.Positions, st.MeanLength(), st.Draws, st.Reasons[engine.PlyCapDraw],
		st.MeanPolicyKL(), st.MeanTargetEntropy(), st.Adjudicated, st.Rescored, st.ResignSummary(), endgameSummary(st))
	return nil
}

// pollEvery is how often a trainer without local self-play looks for the
// workers' shards.
const pollEvery = 2 * time.Second

// awaitGames waits until self-play workers have played generation g's
// games.
func (t *Trainer) awaitGames(ctx context.Context, g, best int) error {
	for {
		have, err := t.countGames(ctx, g)
		if err != nil {
			return err
		}
		if have >= t.cfg.Loop.Games {
			t.prog.Done("generation %d self-play (%s): %d games from the workers", g, store.ModelName(best), have)
			return nil
		}
		t.phase(have, t.cfg.Loop.Games)
		t.prog.Update("generation %d: waiting for self-play workers (millzero selfplay --run %s --follow): %d/%d games",
			g, t.loc, have, t.cfg.Loop.Games)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}
