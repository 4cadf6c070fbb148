package main

import (
	"fmt"
	"io"
	"time"

	"github.com/millzero/millzero/run"
)

func runSelfplay(args []string, out io.Writer) error {
	fs := newFlags("selfplay", "--run DIR|URL [--games N | --follow] [--workers N] [--cache DIR] [--store-patience D] [--metrics-addr HOST:PORT]", []string{
		"millzero selfplay --run runs/nine                # until Ctrl-C, with the run's best model",
		"millzero selfplay --run runs/nine --games 500",
		"millzero selfplay --run /shared/runs/nine --workers 8   # another machine adding games to a run",
		"millzero selfplay --run 's3://bucket/runs/nine?endpoint=http://127.0.0.1:9000' --follow   # a worker until stopped",
		"millzero selfplay --run runs/nine --follow --metrics-addr :9091   # with Prometheus metrics",
	}, out)
	runPath := fs.String("run", "", "run directory or store URL (made by millzero train)")
	games := fs.Int("games", 0, "games to play; 0 plays until interrupted")
	follow := fs.Bool("follow", false, "a worker until stopped: waits for a run not started yet and for its store, and retries a best model that cannot be loaded yet")
	workers := fs.Int("workers", 0, "worker goroutines (0: the run's selfplay.workers, 0 there = one per core)")
	cache := cacheFlag(fs)
	patience := storePatienceFlag(fs, 10*time.Minute, "forever with --follow unless given")
	metricsAddr := metricsFlag(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR|URL")
	}
	if *games < 0 || *workers < 0 {
		return fmt.Errorf("--games %d, --workers %d: want 0 or more", *games, *workers)
	}
	if *follow && *games > 0 {
		return fmt.Errorf("--follow plays until stopped: leave out --games %d", *games)
	}
	ctx, stop := stopContext()
	defer stop()
	opts, prog := loopOptions(out, *cache)
	defer prog.Close()
	opts.StorePatience = patience.d
	if *follow && !patience.set {
		opts.StorePatience = -1 // forever
	}
	l, err := run.OpenWorker(ctx, *runPath, run.WorkerOptions{Options: opts, WaitForRun: *follow})
	if err != nil {
		return err
	}
	defer l.Close()
	if *workers > 0 {
		l.Config().SelfPlay.Workers = *workers
	}
	if err := serveMetrics(ctx, *metricsAddr, "selfplay", l, prog); err != nil {
		return err
	}
	total, err := l.Selfplay(ctx, *games, *follow)
	prog.Close()
	fmt.Fprintf(out, "selfplay: %d games, %d positions recorded (%.0f/s), %.0f moves/s, mean length %.0f, wins %v, draws %d\n",
		total.Games, total.Positions, total.PositionsPerSecond(), total.MovesPerSecond(), total.MeanLength(), total.Wins[:l.Variant().Players], total.Draws)
	return err
}
