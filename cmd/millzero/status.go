package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/millzero/millzero/run"
)

// statusRows is how many of the newest generations status lists without
// --all.
const statusRows = 10

func runStatus(args []string, out io.Writer) error {
	fs := newFlags("status", "--run DIR|URL [--json] [--all] [--cache DIR] [--store-patience D]", []string{
		"millzero status --run runs/nine",
		"millzero status --run runs/nine --all      # a row for every generation, not only the last ten",
		"millzero status --run 's3://bucket/runs/nine?endpoint=http://127.0.0.1:9000' --json",
	}, out)
	runPath := fs.String("run", "", "run directory or store URL")
	asJSON := fs.Bool("json", false, "print the status as JSON (every generation)")
	all := fs.Bool("all", false, "list every generation (default: the last ten)")
	cache := cacheFlag(fs)
	patience := storePatienceFlag(fs, 30*time.Second, "30s")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR|URL")
	}
	ctx := context.Background()
	opts := run.Options{Cache: *cache, Existing: true, StorePatience: patience.d,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
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
	writeStatus(out, st, *all)
	return nil
}

// writeStatus prints st for people: every generation with all, else the
// last statusRows.
func writeStatus(out io.Writer, st run.Status, all bool) {
	best := st.Best
	if best == "" {
		best = "none yet (generation 0 plays with rollouts)"
	}
	fmt.Fprintf(out, "run %s: %s, %d generations finished in %.2f", st.Run, st.Variant, st.Generations, st.Hours)
	if st.RunHours > 0 {
		fmt.Fprintf(out, " of its %g", st.RunHours)
	}
	fmt.Fprint(out, " run hours")
	if st.Pace > 0 {
		fmt.Fprintf(out, " (lately %.1f s each)", st.Pace)
	}
	fmt.Fprintf(out, ", best model %s\n", best)
	writeFigures(out, st)
	if len(st.Strength) > 0 {
		fmt.Fprintf(out, "strength of %s at %.2f run hours (metrics/strength.csv):\n", st.Strength[0].Model, st.Strength[0].Hours)
		for _, r := range st.Strength {
			if r.Elo != nil {
				fmt.Fprintf(out, "  %-15s %4.0f%% of %d games, Elo %+.0f [%+.0f, %+.0f]\n", r.Opponent, 100*r.Score, r.Games, *r.Elo, *r.Low, *r.High)
			} else {
				fmt.Fprintf(out, "  %-15s %4.0f%% right of %d positions\n", r.Opponent, 100*r.Score, r.Games)
			}
		}
	}
	if st.Lease != nil {
		left := time.Until(st.Lease.Expires).Round(time.Second)
		fmt.Fprintf(out, "trainer: %q, pid %d on %s, %s (%s); lease renewed %s, expires in %s\n", st.Lease.Holder, st.Lease.PID, st.Lease.Host,
			st.LeaseState, st.LeaseWhy, st.Lease.Renewed.Format(time.RFC3339), left)
	} else {
		fmt.Fprintln(out, "trainer: none (no lease)")
	}
	if st.LastError != "" {
		fmt.Fprintf(out, "last error: %s\n", st.LastError)
	}
	fmt.Fprintf(out, "\n%-10s %7s %7s  %s\n", "generation", "shards", "games", "gate")
	gens := st.PerGen
	if n := len(gens) - statusRows; !all && n > 0 {
		fmt.Fprintf(out, "%-10s (%d earlier generations: --all lists them)\n", "...", n)
		gens = gens[n:]
	}
	for _, g := range gens {
		fmt.Fprintf(out, "%-10d %7d %7d  %s\n", g.Generation, g.Shards, g.Games, g.Decision)
	}
	fmt.Fprintf(out, "\n%-32s %7s %7s   (the training window's generations)\n", "worker (host/pid)", "shards", "games")
	for _, w := range st.Workers {
		fmt.Fprintf(out, "%-32s %7d %7d\n", w.Worker, w.Shards, w.Games)
	}
}
