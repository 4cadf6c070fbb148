package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/internal/telemetry"
	"github.com/millzero/millzero/run"
)

// metricsFlag defines --metrics-addr, the Prometheus endpoint's address.
func metricsFlag(fs *flag.FlagSet) *string {
	return fs.String("metrics-addr", "", "serve Prometheus metrics at http://HOST:PORT/metrics (\":9090\" on every interface); default none")
}

// serveMetrics serves the loop's figures at addr ("" serves none) until
// ctx ends, as a process in role ("trainer", "selfplay"), and says where
// on prog.
func serveMetrics(ctx context.Context, addr, role string, l interface{ SetTelemetry(run.Telemetry) error }, prog progress.Progress) error {
	if addr == "" {
		return nil
	}
	m := telemetry.New(role)
	if err := l.SetTelemetry(m); err != nil {
		return err
	}
	at, err := telemetry.Serve(ctx, addr, m, func(err error) { fmt.Fprintln(prog.Writer(), err) })
	if err != nil {
		return fmt.Errorf("--metrics-addr: %w", err)
	}
	prog.Done("metrics: http://%s/metrics", at)
	return nil
}
