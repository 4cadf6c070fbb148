package main

import (
	"fmt"
	"io"

	"github.com/millzero/millzero/run"
)

// writeFigures prints the run's newest losses and the best model's newest
// rating, when the run has them.
func writeFigures(out io.Writer, st run.Status) {
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
