package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/millzero/millzero/run"
)

func runStatus(args []string, out io.Writer) error {
	fs := newFlags("status", "--run DIR|URL [--json] [--cache DIR]", []string{
		"millzero status --run runs/nine",
		"millzero status --run 's3://bucket/runs/nine?endpoint=http://127.0.0.1:9000' --json",
	}, out)
	runPath := fs.String("run", "", "run directory or store URL")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	cache := cacheFlag(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR|URL")
	}
	ctx := context.Background()
	opts := run.Options{Cache: *cache, Existing: true}
	l, err := run.Open(ctx, *runPath, "", opts)
	if err != nil {
		return err
	}
	defer l.Close()
	st, err := l.Status(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	best := st.Best
	if best == "" {
		best = "none yet (generation 0 plays with rollouts)"
	}
	fmt.Fprintf(out, "run %s: %s, %d generations finished, best model %s\n", st.Run, st.Variant, st.Generations, best)
	if st.Lease != nil {
		left := time.Until(st.Lease.Expires).Round(time.Second)
		fmt.Fprintf(out, "trainer: %q, pid %d on %s, lease renewed %s, expires in %s\n", st.Lease.Holder, st.Lease.PID, st.Lease.Host,
			st.Lease.Renewed.Format(time.RFC3339), left)
	} else {
		fmt.Fprintln(out, "trainer: none (no lease)")
	}
	if st.LastError != "" {
		fmt.Fprintf(out, "last error: %s\n", st.LastError)
	}
	fmt.Fprintf(out, "\n%-10s %7s %7s  %s\n", "generation", "shards", "games", "gate")
	for _, g := range st.PerGen {
		fmt.Fprintf(out, "%-10d %7d %7d  %s\n", g.Generation, g.Shards, g.Games, g.Decision)
	}
	fmt.Fprintf(out, "\n%-32s %7s %7s   (the training window's generations)\n", "worker (host/pid)", "shards", "games")
	for _, w := range st.Workers {
		fmt.Fprintf(out, "%-32s %7d %7d\n", w.Worker, w.Shards, w.Games)
	}
	return nil
}
