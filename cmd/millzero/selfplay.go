package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/millzero/millzero/run"
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
	if _, err := os.Stat(run.Dir(*runPath).Config()); err != nil {
		return fmt.Errorf("run %s: no run.yaml: start the run with millzero train first (%w)", *runPath, err)
	}
	l, err := run.Open(*runPath, "", loopOptions(out))
	if err != nil {
		return err
	}
	cfg := l.Config()
	if *workers > 0 {
		cfg.SelfPlay.Workers = *workers
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Play in rounds, so that the games follow the run: each round writes
	// into the run's current generation with its current best model.
	round := cfg.SelfPlay.GamesPerShard * max(1, cfg.SelfPlay.Workers)
	var total selfplay.Stats
	for *games == 0 || int(total.Games) < *games {
		n := round
		if *games > 0 {
			n = min(n, *games-int(total.Games))
		}
		st, err := l.ExtraGames(ctx, n)
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
	fmt.Fprintf(out, "selfplay: %d games, %d positions recorded (%.0f/s), %.0f moves/s, mean length %.0f, wins %v, draws %d\n",
		total.Games, total.Positions, total.PositionsPerSecond(), total.MovesPerSecond(), total.MeanLength(), total.Wins[:l.Variant().Players], total.Draws)
	return nil
}
