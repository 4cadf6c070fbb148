package run

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkLoop_MemoryFlat runs 50 generations of three-test in one
// process and reads the resident size after each: a run lasts days, so
// once the training window is full (window_generations) the resident size
// must stop growing. It reports the resident size at the first full
// window and at the end, the growth of the resident size and of the Go
// heap in between, and logs both at every generation (-v).
//
//	go test -run '^$' -bench MemoryFlat -benchtime 1x -v ./run
func BenchmarkLoop_MemoryFlat(b *testing.B) {
	const gens = 50
	for range b.N {
		l, err := OpenTrainer(context.Background(), b.TempDir(), "three-test", TrainerOptions{})
		if err != nil {
			b.Fatal(err)
		}
		// A growing window (loop.window_growth, the default's) holds more
		// samples generation by generation until window_samples caps it;
		// with it off the window is full at window_generations, and what
		// is measured is that nothing else grows.
		l.Config().Loop.WindowGrowth = 0
		window := l.Config().Loop.WindowGenerations
		rss := make([]float64, 0, gens)
		heap := make([]float64, 0, gens)
		for g := 1; g <= gens; g++ {
			l.Config().Loop.Generations = g
			if _, err := l.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			debug.FreeOSMemory()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			rss = append(rss, procStatusMB(b, "VmRSS:"))
			heap = append(heap, float64(ms.HeapInuse)/(1<<20))
			b.Logf("generation %2d: resident %.1f MB, Go heap in use %.1f MB", g-1, rss[g-1], heap[g-1])
		}
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
		full := rss[window] // the first generation trained on a full window
		peakAfter := full
		for _, r := range rss[window:] {
			peakAfter = max(peakAfter, r)
		}
		b.ReportMetric(heap[gens-1]-heap[window], "MB-heap-growth-after-window")
		b.ReportMetric(full, "MB-at-full-window")
		b.ReportMetric(rss[gens-1], "MB-at-gen-50")
		b.ReportMetric(peakAfter-full, "MB-growth-after-window")
		b.ReportMetric(procStatusMB(b, "VmHWM:"), "MB-peak-RSS")
	}
}

// procStatusMB reads a size field of /proc/self/status, in MB.
func procStatusMB(b *testing.B, field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatalf("%s %q: %v", field, rest, err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}
