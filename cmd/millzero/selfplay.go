package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
)

func runSelfplay(args []string, out io.Writer) error {
	fs := newFlags("selfplay", "--run DIR [--games N] [--workers N]", []string{
		"millzero selfplay --run runs/nine                # until Ctrl-C, with the run's best model",
		"millzero selfplay --run runs/nine --games 500",
		"millzero selfplay --run /shared/runs/nine --workers 8   # another machine adding games to a run",
	}, out)
	runPath := fs.String("run", "", "run directory (made by millzero train)")
	games := fs.Int("games", 0, "games to play; 0 plays until interrupted")
	workers := fs.Int("workers", 0, "worker goroutines (0: the run's selfplay.workers, 0 there = one per core)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR")
	}
	if *games < 0 || *workers < 0 {
		return fmt.Errorf("--games %d, --workers %d: want 0 or more", *games, *workers)
	}
	dir := runDir(*runPath)
	if _, err := os.Stat(dir.config()); err != nil {
		return fmt.Errorf("run %s: no run.yaml: start the run with millzero train first (%w)", *runPath, err)
	}
	l, err := openLoop(*runPath, "", out)
	if err != nil {
		return err
	}
	if *workers > 0 {
		l.cfg.SelfPlay.Workers = *workers
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Play in rounds, so that the games follow the run: each round writes
	// into the run's current generation with its current best model.
	round := l.cfg.SelfPlay.GamesPerShard * max(1, l.cfg.SelfPlay.Workers)
	var total selfplay.Stats
	for *games == 0 || int(total.Games) < *games {
		n := round
		if *games > 0 {
			n = min(n, *games-int(total.Games))
		}
		st, err := l.extraGames(ctx, n)
		total.Games += st.Games
		total.Positions += st.Positions
		total.Moves += st.Moves
		total.Plies += st.Plies
		total.Draws += st.Draws
		for i := range st.Wins {
			total.Wins[i] += st.Wins[i]
		}
		total.Elapsed += st.Elapsed
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			return err
		}
	}
	l.prog.done("selfplay: %d games, %d positions recorded (%.0f/s), %.0f moves/s, mean length %.0f, wins %v, draws %d",
		total.Games, total.Positions, total.PositionsPerSecond(), total.MovesPerSecond(), total.MeanLength(), total.Wins[:l.v.Players], total.Draws)
	return nil
}

// extraGames plays n games into the run's current generation with its
// current best model, for a self-play process beside the loop.
func (l *loop) extraGames(ctx context.Context, n int) (selfplay.Stats, error) {
	if err := reloadSeries(l.gens); err != nil {
		return selfplay.Stats{}, err
	}
	g := len(l.gens.rows)
	best, err := l.dir.best()
	if errors.Is(err, errNoModel) {
		best = 0
	} else if err != nil {
		return selfplay.Stats{}, err
	}
	set := l.cfg.SelfPlay
	job := selfplay.Job{Variant: l.v, Settings: set, Games: n, Generation: g, GamesDir: l.dir.games(),
		Seed: seedNow(), ProgressEvery: 1e9}
	if best > 0 {
		net, err := l.network(best)
		if err != nil {
			return selfplay.Stats{}, err
		}
		maxBatch := set.GamesInFlight * set.Search.BatchSize
		job.NewEvaluator = func(i int) (mcts.Evaluator, error) {
			return model.NewEvaluator(l.v, net, maxBatch, true, job.Seed+uint64(i))
		}
	}
	line := func(s selfplay.Stats) string {
		return fmt.Sprintf("selfplay into generation %d with %s: %d/%d games, %.0f positions/s, %.0f moves/s, mean length %.0f, wins %v, draws %d",
			g, modelName(best), s.Games, n, s.PositionsPerSecond(), s.MovesPerSecond(), s.MeanLength(), s.Wins[:l.v.Players], s.Draws)
	}
	job.Progress = func(s selfplay.Stats) { l.prog.update("%s", line(s)) }
	st, err := selfplay.Run(ctx, job)
	l.prog.done("%s", line(st))
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
