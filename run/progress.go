package run

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// TerminalProgress shows a long job's state: on a terminal one line
// redrawn in place, elsewhere (a log file, CI) a line every interval.
type TerminalProgress struct {
	mu      sync.Mutex
	out     io.Writer
	tty     bool
	every   time.Duration
	last    time.Time
	lastLen int
	pending bool
}

// NewTerminalProgress shows progress on out, in place when out is a
// terminal.
func NewTerminalProgress(out io.Writer) *TerminalProgress {
	tty := false
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &TerminalProgress{out: out, tty: tty, every: 10 * time.Second, last: time.Now()}
}

// Update shows the job's current state.
func (p *TerminalProgress) Update(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf(format, args...)
	if p.tty {
		pad := ""
		if n := p.lastLen - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.out, "\r%s%s", line, pad)
		p.lastLen = len(line)
		p.pending = true
		return
	}
	if time.Since(p.last) >= p.every {
		fmt.Fprintln(p.out, line)
		p.last = time.Now()
	}
}

// Done ends the current state with a line that stays.
func (p *TerminalProgress) Done(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending {
		fmt.Fprint(p.out, "\r"+strings.Repeat(" ", p.lastLen)+"\r")
		p.pending, p.lastLen = false, 0
	}
	fmt.Fprintf(p.out, format+"\n", args...)
	p.last = time.Now() // off a terminal, the next state shows once it has lasted a while
}
