package progress

import (
	"fmt"
	"strings"
	"time"
)

// Reporter shows a long job's state to people: Update replaces the
// current state by the next, Done writes a line that stays.
type Reporter interface {
	Update(format string, args ...any) // the current state, replaced by the next
	Done(format string, args ...any)   // a line that stays
}

// Meter is a Reporter that also shows how far a job has come, such as a
// bar with an ETA on a terminal. A job tells it the whole job's budget
// and how far the current phase (the state of the latest Update) has
// come; Done ends the phase.
type Meter interface {
	Reporter
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

// Line is the state of budget b at now, when its count was at base when
// its Start was first seen: its label ("4 of 10 generations, 30m00s of
// 2h00m"), the fraction spent (the larger of the time's and the count's),
// and the time left (the earlier of the deadline and the count's estimate
// at its rate so far; ok false when neither is known).
func (b Budget) Line(base int, now time.Time) (label string, frac float64, eta time.Duration, ok bool) {
	var parts []string
	elapsed := now.Sub(b.Start)
	if b.Total > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s", b.Done, b.Total, b.Unit))
		frac = float64(b.Done) / float64(b.Total)
		if !b.Uneven {
			eta, ok = Estimate(elapsed, float64(b.Done-base), float64(b.Total-b.Done))
		}
	}
	if !b.End.IsZero() {
		all := b.End.Sub(b.Start)
		parts = append(parts, fmt.Sprintf("%s of %s", Clock(elapsed), Clock(all)))
		if all > 0 {
			frac = max(frac, float64(elapsed)/float64(all))
		}
		if left := max(b.End.Sub(now), 0); !ok || left < eta {
			eta, ok = left, true
		}
	}
	return strings.Join(parts, ", "), min(frac, 1), eta, ok
}

// Estimate is the time left for left more units when done took elapsed;
// ok false before the first unit.
func Estimate(elapsed time.Duration, done, left float64) (time.Duration, bool) {
	if done <= 0 || elapsed <= 0 {
		return 0, false
	}
	return time.Duration(float64(elapsed) / done * left), true
}

// Clock is d for people: "45s", "12m05s", "3h07m".
func Clock(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d/time.Hour), int(d/time.Minute)%60, int(d/time.Second)%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	default:
		return fmt.Sprintf("%ds", s)
	}
}
