package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/millzero/millzero/selfplay"
)

// ExtraGames plays n games into the run's current generation with its
// current best model, for a self-play process beside the loop.
func (l *Loop) ExtraGames(ctx context.Context, n int) (selfplay.Stats, error) {
	if err := reloadSeries(l.gens); err != nil {
		return selfplay.Stats{}, err
	}
	g := len(l.gens.rows)
	best, err := l.dir.Best()
	if errors.Is(err, ErrNoModel) {
		best = 0
	} else if err != nil {
		return selfplay.Stats{}, err
	}
	l.forget(best)
	job, err := l.selfplayJob(g, best, n, seedNow())
	if err != nil {
		return selfplay.Stats{}, err
	}
	job.ProgressEvery = time.Second
	line := func(s selfplay.Stats) string {
		return fmt.Sprintf("selfplay into generation %d with %s: %d/%d games, %.0f positions/s, %.0f moves/s, mean length %.0f, wins %v, draws %d",
			g, ModelName(best), s.Games, n, s.PositionsPerSecond(), s.MovesPerSecond(), s.MeanLength(), s.Wins[:l.v.Players], s.Draws)
	}
	job.Progress = func(s selfplay.Stats) { l.prog.Update("%s", line(s)) }
	st, err := selfplay.Run(ctx, job)
	l.prog.Done("%s", line(st))
	return st, err
}

// reloadSeries rereads a table another process may have appended to.
func reloadSeries(s *series) error {
	fresh, err := openSeries(s.path, s.header...)
	if err != nil {
		return err
	}
	s.rows = fresh.rows
	return nil
}
