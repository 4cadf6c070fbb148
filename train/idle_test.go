package train

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// A trainer waiting for its next batch takes no CPU: its assisting
// goroutines sleep until they are handed a phase.
func TestTrainer_IdleTakesNoCPU(t *testing.T) {
	if _, ok := cpuTime(); !ok {
		t.Skip("no CPU time on this system")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	v := mustVariant(t, "nine")
	c := plainConfig()
	c.BatchSize = 16
	tr := newTrainer(t, v, newNet(t, v, graphConfig(8, 1, 3), 1), c)
	if tr.Workers() != 2 {
		t.Fatalf("%d workers, want 2", tr.Workers())
	}
	batch := randomSamples(t, v, c.BatchSize, 1)
	for range 3 {
		if _, err := tr.Step(batch); err != nil {
			t.Fatal(err)
		}
	}
	const idle = 200 * time.Millisecond
	cpu0, _ := cpuTime()
	time.Sleep(idle)
	cpu1, _ := cpuTime()
	// The runtime's own threads' ticks are a few milliseconds; a goroutine
	// spinning on would take all 200.
	if used := cpu1 - cpu0; used > idle/10 {
		t.Errorf("the idle trainer took %v of CPU in %v", used, idle)
	}
}

// BenchmarkHandOff is the delay from a channel send that wakes a sleeping
// goroutine to the moment that goroutine runs, while the sender goes on
// with work of its own (a phase's share of a step, here 1 ms of it):
// with the sender yielding its core after the send (handedOff) and
// without. Run with -cpu 2.
func BenchmarkHandOff(b *testing.B) {
	for _, yield := range []bool{false, true} {
		b.Run(fmt.Sprintf("yield=%v", yield), func(b *testing.B) {
			jobs, done := make(chan time.Time), make(chan time.Duration, 1)
			go func() {
				for sent := range jobs {
					done <- time.Since(sent)
				}
			}()
			defer close(jobs)
			var delays []time.Duration
			for b.Loop() {
				time.Sleep(100 * time.Microsecond) // the goroutine falls asleep
				jobs <- time.Now()
				if yield {
					handedOff()
				}
				for end := time.Now().Add(time.Millisecond); time.Now().Before(end); {
				}
				delays = append(delays, <-done)
			}
			slices.Sort(delays)
			b.ReportMetric(float64(delays[len(delays)/2].Nanoseconds())/1e3, "µs-median")
			b.ReportMetric(float64(delays[len(delays)*9/10].Nanoseconds())/1e3, "µs-p90")
		})
	}
}
