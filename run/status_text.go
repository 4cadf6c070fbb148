package run

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// StatusRows is how many of the newest generations Status.Write lists
// without all.
const StatusRows = 10

// Write prints st for people: every generation with all, else the last
// StatusRows.
func (st Status) Write(out io.Writer, all bool) {
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
	st.writeFigures(out)
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
	if n := len(gens) - StatusRows; !all && n > 0 {
		fmt.Fprintf(out, "%-10s (%d earlier generations: --all lists them)\n", "...", n)
		gens = gens[n:]
	}
	for _, g := range gens {
		gate := g.Decision
		if g.Reanalysed > 0 {
			gate = strings.TrimSpace(fmt.Sprintf("%s (reanalysed positions: %d shard)", gate, g.Reanalysed))
		}
		fmt.Fprintf(out, "%-10d %7d %7d  %s\n", g.Generation, g.Shards, g.Games, gate)
	}
	fmt.Fprintf(out, "\n%-32s %7s %7s   (the training window's generations)\n", "worker (host/pid)", "shards", "games")
	for _, w := range st.Workers {
		fmt.Fprintf(out, "%-32s %7d %7d\n", w.Worker, w.Shards, w.Games)
	}
}

// writeFigures prints the run's newest losses and the best model's newest
// rating, when the run has them.
func (st Status) writeFigures(out io.Writer) {
	if l := st.Losses; l != nil {
		fmt.Fprintf(out, "losses at generation %d, step %d: policy %.4f, value %.4f, total %.4f", l.Generation, l.Step, l.Policy, l.Value, l.Total)
		if l.Validation != 0 {
			fmt.Fprintf(out, " (validation %.4f)", l.Validation)
		}
		fmt.Fprintln(out)
	}
	if r := st.Rating; r != nil {
		fmt.Fprintf(out, "rating of the best after generation %d (%.2f run hours): Elo %.0f [%.0f, %.0f] over random (metrics/elo.csv)\n",
			r.Generation, r.Hours, r.Elo, r.Low, r.High)
	}
}
