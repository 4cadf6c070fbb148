package progress

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/millzero/millzero/internal/syncbuf"
)

func TestProgress_OffATerminal_PlainLines(t *testing.T) {
	var out bytes.Buffer
	p := New(&out)
	if _, ok := p.(*lines); !ok {
		t.Fatalf("New on a buffer is %T, want plain lines", p)
	}
	p.Budget(Budget{Start: time.Now(), End: time.Now().Add(time.Hour), Total: 5, Unit: "generations"})
	p.Phase(3, 10)
	p.Update("generation 0 self-play: %d/%d games", 3, 10) // within the interval of the last line: not shown
	p.Done("generation 0: accepted")
	p.Writer().Write([]byte("a warning\n"))
	p.Close()
	if got, want := out.String(), "generation 0: accepted\na warning\n"; got != want {
		t.Fatalf("plain output %q, want %q", got, want)
	}
}

func TestProgress_LinesShowTheStateOnceItLasted(t *testing.T) {
	var out bytes.Buffer
	p := newLines(&out)
	p.last = time.Now().Add(-time.Minute)
	p.Update("step %d", 5)
	p.Update("step %d", 6) // just after the last line: not shown
	if got, want := out.String(), "step 5\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

func TestBars_OnAFakeTerminal_DrawBudgetAndPhaseWithETAs(t *testing.T) {
	var out syncbuf.Buffer
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(t0.UnixNano())
	b := newBars(&out, barOptions{forceTTY: true, width: 120, refresh: 5 * time.Millisecond})
	b.now = func() time.Time { return time.Unix(0, clock.Load()) }

	b.Budget(Budget{Start: t0, End: t0.Add(time.Hour), Done: 2, Total: 10, Unit: "generations"})
	b.Phase(0, 100)
	clock.Store(t0.Add(15 * time.Minute).UnixNano())
	b.Phase(25, 100)
	b.Update("generation 2 self-play: %d/%d games", 25, 100)
	b.Done("generation 1: accepted")

	b.Phase(0, 100)
	b.Update("generation 2 self-play: %d/%d games", 0, 100)
	clock.Store(t0.Add(15*time.Minute + 10*time.Second).UnixNano())
	b.Phase(25, 100)
	b.Update("generation 2 self-play: %d/%d games", 25, 100)
	// The phase: 25 of 100 games in 10s leave 30s; the budget: 15 of
	// 60 minutes spent, and no generation finished since it started.
	want := []string{"generation 1: accepted\n", "generation 2 self-play: 25/100 games", " 25% ETA 30s",
		"2 of 10 generations, 15m10s of 1h00m", " 25% ETA 44m50s", "[=====", "\x1b["}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := out.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(got, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bars never showed %q:\n%q", missing, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Close()
	b.Writer().Write([]byte("after\n"))
	if got := out.String(); !strings.HasSuffix(got, "after\n") {
		t.Fatalf("a line after Close does not go straight out: %q", got[max(0, len(got)-200):])
	}
}
