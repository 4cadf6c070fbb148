package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/millzero/millzero/run"
)

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
	patience := storePatienceFlag(fs, 30*time.Second, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR|URL")
	}
	ctx := context.Background()
	opts := run.Options{Cache: *cache, StorePatience: patience.d,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	l, err := run.OpenReader(ctx, *runPath, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	st, err := l.Status(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(out, st)
	}
	st.Write(out, *all)
	return nil
}
