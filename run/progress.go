package run

import (
	"context"
	"time"
)

// Meter is a Progress that also shows how far a job has come, such as a
// bar with an ETA on a terminal. The loop tells it the whole job's budget
// and how far the current phase (the state of the latest Update) has
// come; Done ends the phase.
type Meter interface {
	Progress
	Budget(Budget)
	Phase(done, total int64) // the current phase: done of total units (total 0: unknown)
}

// Budget is what a job may spend in all: a deadline, a count of units,
// or both (the first reached ends it).
type Budget struct {
	Start time.Time // when the job (this invocation) started
	End   time.Time // the deadline; zero: none
	Done  int       // units done
	Total int       // units in all; 0: no count
	Unit  string    // "generations", "materials", "games"
	// Uneven says the units differ much in size, so their count gives no
	// ETA (a tablebase's materials grow with their pieces).
	Uneven bool
}

// phase tells l.prog, when it is a Meter, that the current phase has
// done done of total units.
func (l *Loop) phase(done, total int) {
	if m, ok := l.prog.(Meter); ok {
		m.Phase(int64(done), int64(total))
	}
}

// showBudget tells l.prog, when it is a Meter, the invocation's budget
// as generation g starts: the deadline of ctx (loop.hours, loop.run_hours)
// and loop.generations.
func (l *Loop) showBudget(ctx context.Context, g int) {
	m, ok := l.prog.(Meter)
	if !ok {
		return
	}
	b := Budget{Start: l.start, Done: g, Total: l.cfg.Loop.Generations, Unit: "generations"}
	if d, ok := ctx.Deadline(); ok {
		b.End = d
	}
	m.Budget(b)
}
