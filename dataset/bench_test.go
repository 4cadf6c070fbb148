package dataset

import (
	"os"
	"runtime"
	"testing"
)

// benchSamples is a few thousand positions of random Nine Men's Morris
// games, each with a policy over all its legal actions.
func benchSamples(b *testing.B) []Sample {
	return playGames(b, "nine", 40, 1, 0, 150)
}

func BenchmarkShardWriter(b *testing.B) {
	samples := benchSamples(b)
	dir := b.TempDir()
	b.ResetTimer()
	var size int64
	for i := 0; i < b.N; i++ {
		w, err := NewShardWriter(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(samples...); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st, err := os.Stat(w.Path())
		if err != nil {
			b.Fatal(err)
		}
		size = st.Size()
		os.Remove(w.Path())
		b.StartTimer()
	}
	b.ReportMetric(float64(len(samples)*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/float64(len(samples)), "bytes/row")
}

// benchmarkWindow reads a repeating window row by row: an op is one sample.
func benchmarkWindow(b *testing.B, opts WindowOptions) {
	dir := b.TempDir()
	samples := benchSamples(b)
	for i := 0; i < 4; i++ {
		writeShard(b, generationDir(dir, i), samples)
	}
	opts.Repeat = true
	w, err := OpenWindow(dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	var s Sample
	for i := 0; i < 2*len(samples); i++ { // fill the shuffle buffer and the slots' storage
		if err := w.Next(&s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Next(&s); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "allocs/row")
}

func BenchmarkWindow_InOrder(b *testing.B) { benchmarkWindow(b, WindowOptions{}) }

func BenchmarkWindow_ShuffledAugmented(b *testing.B) {
	benchmarkWindow(b, WindowOptions{Shuffle: 4096, Augment: true, Seed: 1})
}

func BenchmarkWindow_TrainSplit(b *testing.B) {
	benchmarkWindow(b, WindowOptions{Shuffle: 4096, Augment: true, ValFraction: 0.05, Split: Train, FullOnly: true})
}

// BenchmarkOpenWindow opens a window over 64 shards: an op is one shard's
// footer read and checked.
func BenchmarkOpenWindow(b *testing.B) { benchmarkOpenWindow(b, WindowOptions{}) }

// BenchmarkOpenWindow_Cached opens it as the trainer does a generation
// after the last window (Keep, with its ShardCache): an op is one shard's
// row count taken from the cache.
func BenchmarkOpenWindow_Cached(b *testing.B) {
	benchmarkOpenWindow(b, WindowOptions{Keep: true, Cache: NewShardCache()})
}

func benchmarkOpenWindow(b *testing.B, opts WindowOptions) {
	dir := b.TempDir()
	samples := playGames(b, "nine", 4, 1, 0, 150)
	const shards = 64
	for i := 0; i < shards; i++ {
		writeShard(b, generationDir(dir, i/8), samples)
	}
	if opts.Cache != nil {
		w, err := OpenWindow(dir, opts) // the last generation's window
		if err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += shards {
		w, err := OpenWindow(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(w.Shards()) != shards {
			b.Fatalf("%d shards in the window", len(w.Shards()))
		}
		w.Close()
	}
}
