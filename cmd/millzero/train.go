package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/millzero/millzero/configs"
	"github.com/millzero/millzero/internal/profile"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/store"
)

func runTrain(args []string, out io.Writer) (err error) {
	fs := newFlags("train", "[--config FILE] [--run DIR|URL] [--generations N] [--hours H] [--run-hours H] [--local-selfplay=false] [--cache DIR] [--store-patience D] [--break-lease] [--background FILE] [--metrics-addr HOST:PORT] [--cpuprofile FILE]", []string{
		"millzero train                                  # Nine Men's Morris, embedded config, run in runs/nine",
		"millzero train --run runs/nine                  # the same command again resumes where it stopped",
		"millzero train --config three-test --run runs/three --generations 5",
		"millzero train --config my.yaml --run runs/mine --hours 8",
		"millzero train --config nine-long --run runs/night --run-hours 8   # stop at 8 hours in all, however often it was resumed",
		"millzero train --run 's3://bucket/runs/nine?endpoint=http://127.0.0.1:9000' --local-selfplay=false   # workers play",
		"millzero train --run runs/nine --store-patience 1h   # ride out store outages of up to an hour",
		"millzero train --run runs/nine --break-lease         # the trainer holding the run is gone for sure: take it now",
		"millzero train --config nine-long --run ~/millzero-runs/night --run-hours 0 --background ~/millzero-runs/night.log   # a long run beside other work",
		"millzero train --run runs/nine --metrics-addr :9090   # Prometheus metrics at http://localhost:9090/metrics",
		"millzero train --run runs/p --hours 0.05 --cpuprofile cpu.pprof && go tool pprof -top bin/millzero cpu.pprof",
	}, out)
	cfgPath := fs.String("config", "", "run config: a YAML file, or an embedded one ("+strings.Join(configs.RunNames(), ", ")+"); default: the embedded nine config")
	runPath := fs.String("run", "", "run directory or store URL (s3://, gs://, azblob://, file://), created if new and resumed if not (default runs/VARIANT)")
	local := fs.Bool("local-selfplay", true, "play the generation's games here too; false waits for millzero selfplay --follow workers")
	cache := cacheFlag(fs)
	gens := fs.Int("generations", -1, "stop after this many generations in all (overrides loop.generations; 0 = no limit; -1 keeps the config's)")
	hours := fs.Float64("hours", -1, "stop after this many hours of this invocation (overrides loop.hours; 0 = no limit; -1 keeps the config's)")
	runHours := fs.Float64("run-hours", -1, "stop once the run has this many hours in all, every invocation's (overrides loop.run_hours; 0 = no limit; -1 keeps the config's)")
	metricsAddr := metricsFlag(fs)
	profile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to FILE (go tool pprof), on exit")
	patience := storePatienceFlag(fs, 10*time.Minute, "")
	background := fs.String("background", "", "go on in the background, appending the progress to FILE: a session of its own at the lowest priority (nice 19, and its autogroup's where the kernel groups sessions), so it takes only the CPU nothing else wants; prints the process ID")
	breakLease := fs.Bool("break-lease", false, "take the run's lease even from a live trainer, which then commits nothing more and stops (within a second); for a holder known to be gone")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	if *background != "" {
		return detach(fs, *background, out)
	}
	endProfile, err := cpuProfile(*profile)
	if err != nil {
		return err
	}
	defer endProfile(&err)
	if *gens < -1 || *hours < 0 && *hours != -1 || *runHours < 0 && *runHours != -1 {
		return fmt.Errorf("--generations %d, --hours %g, --run-hours %g: want -1 (the config's), 0 (no limit) or more", *gens, *hours, *runHours)
	}
	ctx, stop := stopContext()
	defer stop()
	opts, prog := loopOptions(out, *cache)
	defer prog.Close()
	opts.StorePatience = patience.d
	l, err := run.OpenTrainer(ctx, *runPath, *cfgPath, run.TrainerOptions{Options: opts, NoLocalSelfplay: !*local, BreakLease: *breakLease})
	if errors.Is(err, store.ErrLeaseHeld) {
		return fmt.Errorf("%w; to take it now, run train with --break-lease", err)
	}
	if err != nil {
		return err
	}
	defer l.Close()
	if *gens >= 0 {
		l.Config().Loop.Generations = *gens
	}
	if *hours >= 0 {
		l.Config().Loop.Hours = *hours
	}
	if *runHours >= 0 {
		l.Config().Loop.RunHours = *runHours
	}
	if err := serveMetrics(ctx, *metricsAddr, "trainer", l, prog); err != nil {
		return err
	}
	why, err := l.Run(ctx)
	prog.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "stopped: %s\n", why)
	if ctx.Err() != nil {
		return exitStatus(130) // interrupted (SIGINT or SIGTERM), after saving
	}
	return nil
}

// loopOptions shows the loop's progress on out, and its warnings; the
// caller closes the progress before it prints more.
func loopOptions(out io.Writer, cache string) (run.Options, progress.Progress) {
	prog := progress.New(out)
	return run.Options{Progress: prog, Cache: cache,
		Log: slog.New(slog.NewTextHandler(prog.Writer(), &slog.HandlerOptions{Level: slog.LevelWarn}))}, prog
}

// cacheFlag defines --cache, the local copy of a run in an object store.
func cacheFlag(fs *flag.FlagSet) *string {
	return fs.String("cache", "", "with a store URL: the local cache directory (default $XDG_CACHE_HOME/millzero/HASH/ROLE)")
}

// cpuProfile profiles the process into path ("" none) until the function
// it returns is called (deferred, with the command's error), which writes
// the profile and sets *err to its failure when the command had none.
func cpuProfile(path string) (stop func(err *error), err error) {
	end, err := profile.StartCPU(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func(cmdErr *error) {
		if err := end(); err != nil && *cmdErr == nil {
			*cmdErr = fmt.Errorf("--cpuprofile %s: %w", path, err)
		}
	}, nil
}
