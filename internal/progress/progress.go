// Package progress shows a long job's progress: bars on a terminal,
// plain lines elsewhere (Progress, the Meter of the commands), and what a
// long job tells it: Reporter, Meter, Budget.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// Progress shows a long job to people: on a terminal bars with an ETA,
// redrawn in place, with the job's lines above them; elsewhere (a pipe,
// a log file, CI) plain lines.
type Progress interface {
	Meter
	// Writer is where other lines go while the job runs (above the bars
	// on a terminal).
	Writer() io.Writer
	// Close takes the bars away; what is written after goes straight out.
	Close()
}

// New shows progress on out: bars when out is a terminal, lines
// otherwise.
func New(out io.Writer) Progress {
	if isTerminal(out) {
		return newBars(out, barOptions{})
	}
	return newLines(out)
}

// isTerminal says whether w is a terminal with room for a bar (a
// pseudo-terminal may have no size).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return err == nil && width >= 2*gaugeWidth
}

// lines is the progress off a terminal: a state line every interval, and
// every Done line.
type lines struct {
	mu    sync.Mutex
	out   io.Writer
	every time.Duration
	last  time.Time
}

func newLines(out io.Writer) *lines {
	return &lines{out: out, every: 10 * time.Second, last: time.Now()}
}

// Update prints the job's state once it has been a while since the last line.
func (p *lines) Update(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) >= p.every {
		fmt.Fprintf(p.out, format+"\n", args...)
		p.last = time.Now()
	}
}

// Done prints a line that stays.
func (p *lines) Done(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, format+"\n", args...)
	p.last = time.Now() // the next state shows once it has lasted a while
}

func (p *lines) Budget(Budget)     {}
func (p *lines) Phase(_, _ int64)  {}
func (p *lines) Writer() io.Writer { return p.out }
func (p *lines) Close()            {}

// barOptions are the test's hold on the bars: a terminal where there is
// none, its width, and the refresh rate.
type barOptions struct {
	forceTTY bool
	width    int
	refresh  time.Duration
}

// gaugeWidth is the width of a bar in columns; figureWidth that of the
// percentage and ETA after it.
const (
	gaugeWidth  = 24
	figureWidth = 16
)

// bars is the progress on a terminal: the job's budget (when it has one)
// and the current phase, each a line with a bar and an ETA.
type bars struct {
	p   *mpb.Progress
	out io.Writer
	now func() time.Time

	mu         sync.Mutex
	msg        string     // the latest Update
	phase      phaseState // how far the current phase has come
	budget     Budget
	base       int  // budget.Done when its Start was first seen
	haveBudget bool // a bounded budget was told: the job bar shows
	closed     bool

	line *mpb.Bar // the phase's
	job  *mpb.Bar // the budget's; nil until a bounded budget is told
}

// phaseState is how far a phase has come: done of total units since
// start, when base were already done.
type phaseState struct {
	start             time.Time
	base, done, total int64
}

func newBars(out io.Writer, o barOptions) *bars {
	refresh := o.refresh
	if refresh <= 0 {
		refresh = 200 * time.Millisecond
	}
	opts := []mpb.ContainerOption{mpb.WithOutput(out), mpb.WithRefreshRate(refresh)}
	if o.forceTTY {
		opts = append(opts, mpb.ForceTTY(), mpb.WithAutoRefresh())
	}
	if o.width > 0 {
		opts = append(opts, mpb.WithWidth(o.width))
	}
	b := &bars{p: mpb.New(opts...), out: out, now: time.Now}
	b.line, _ = b.p.Add(0, gauge(b.phaseFraction), mpb.BarPriority(2),
		mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string { return pad(b.message(), s.AvailableWidth-gaugeWidth-2-figureWidth) })),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return b.phaseFigures() })))
	return b
}

// gauge is a bar filler of gaugeWidth columns drawn at the fraction frac
// gives, blank while it gives none.
func gauge(frac func() (float64, bool)) mpb.BarFiller {
	inner := mpb.BarStyle().Build()
	return mpb.BarFillerFunc(func(w io.Writer, st decor.Statistics) error {
		width := min(st.AvailableWidth, gaugeWidth)
		f, ok := frac()
		if !ok || width < 3 {
			_, err := io.WriteString(w, strings.Repeat(" ", max(width, 0)))
			return err
		}
		st.AvailableWidth, st.RequestedWidth = width, width
		st.Total, st.Current = 1000, int64(math.Round(1000*min(max(f, 0), 1)))
		st.Completed = st.Current == st.Total
		return inner.Fill(w, st)
	})
}

// Update shows the job's current state on the phase's line.
func (b *bars) Update(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	b.mu.Lock()
	b.msg = msg
	b.mu.Unlock()
}

// Done prints a line that stays, above the bars, and ends the phase.
func (b *bars) Done(format string, args ...any) {
	b.mu.Lock()
	b.msg, b.phase = "", phaseState{}
	b.mu.Unlock()
	fmt.Fprintf(b.Writer(), format+"\n", args...)
}

// Phase says the current phase has done done of total units.
func (b *bars) Phase(done, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p := b.phase; total != p.total || done < p.done || p.start.IsZero() {
		b.phase = phaseState{start: b.now(), base: done, total: total}
	}
	b.phase.done = done
}

// Budget shows the job's budget on a line of its own, when it has a
// deadline or a count.
func (b *bars) Budget(bu Budget) {
	b.mu.Lock()
	if !bu.Start.Equal(b.budget.Start) || !b.haveBudget {
		b.base = bu.Done
	}
	b.budget = bu
	add := !b.haveBudget && (!bu.End.IsZero() || bu.Total > 0) && !b.closed
	if add {
		b.haveBudget = true
	}
	b.mu.Unlock()
	if add {
		b.job, _ = b.p.Add(0, gauge(b.budgetFraction), mpb.BarPriority(1),
			mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string {
				label, _, _, _ := b.budgetState()
				return pad(label, s.AvailableWidth-gaugeWidth-2-figureWidth)
			})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
				_, f, eta, ok := b.budgetState()
				return figures(f, eta, ok)
			})))
	}
}

// Writer writes lines above the bars, and once they are closed, straight out.
func (b *bars) Writer() io.Writer { return barWriter{b} }

type barWriter struct{ b *bars }

func (w barWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	closed := w.b.closed
	w.b.mu.Unlock()
	if !closed {
		if n, err := w.b.p.Write(p); err == nil {
			return n, nil
		}
	}
	return w.b.out.Write(p)
}

// Close takes the bars off the terminal, after the lines written above them.
func (b *bars) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.mu.Unlock()
	// Dropping the bars renders once more (the lines written above them
	// too) and ends their goroutines; Wait then ends the container's.
	for _, bar := range []*mpb.Bar{b.job, b.line} {
		if bar != nil {
			bar.Abort(true)
		}
	}
	b.p.Wait()
}

func (b *bars) message() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.msg
}

func (b *bars) phaseFraction() (float64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.phase.total <= 0 {
		return 0, false
	}
	return float64(b.phase.done) / float64(b.phase.total), true
}

func (b *bars) phaseFigures() string {
	b.mu.Lock()
	p, now := b.phase, b.now()
	b.mu.Unlock()
	if p.total <= 0 {
		return pad("", figureWidth)
	}
	eta, ok := Estimate(now.Sub(p.start), float64(p.done-p.base), float64(p.total-p.done))
	return figures(float64(p.done)/float64(p.total), eta, ok)
}

func (b *bars) budgetFraction() (float64, bool) {
	_, f, _, _ := b.budgetState()
	return f, true
}

// budgetState is the budget's line: its label, the fraction spent, and
// the time left (ok false when unknown).
func (b *bars) budgetState() (label string, frac float64, eta time.Duration, ok bool) {
	b.mu.Lock()
	bu, base, now := b.budget, b.base, b.now()
	b.mu.Unlock()
	return bu.Line(base, now)
}

// figures is the percentage and the ETA after a bar.
func figures(frac float64, eta time.Duration, ok bool) string {
	s := fmt.Sprintf("%3.0f%%", 100*frac)
	if ok {
		s += " ETA " + Clock(eta)
	} else {
		s += " ETA ?"
	}
	return pad(s, figureWidth)
}

// pad is s cut or padded to width columns (s is plain text).
func pad(s string, width int) string {
	if width <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) > width {
		return string(r[:width-1]) + "…"
	}
	return s + strings.Repeat(" ", width-len(r))
}
