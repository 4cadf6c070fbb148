package run

import (
	"context"

	"github.com/millzero/millzero/internal/progress"
)

// phase tells l.prog, when it is a progress.Meter, that the current phase has
// done done of total units.
func (c *core) phase(done, total int) {
	if m, ok := c.prog.(progress.Meter); ok {
		m.Phase(int64(done), int64(total))
	}
}

// showBudget tells c.prog, when it is a progress.Meter, the invocation's budget
// as generation g starts: the deadline of ctx (loop.hours, loop.run_hours)
// and loop.generations.
func (t *Trainer) showBudget(ctx context.Context, g int) {
	m, ok := t.prog.(progress.Meter)
	if !ok {
		return
	}
	b := progress.Budget{Start: t.start, Done: g, Total: t.cfg.Loop.Generations, Unit: "generations"}
	if d, ok := ctx.Deadline(); ok {
		b.End = d
	}
	m.Budget(b)
}
