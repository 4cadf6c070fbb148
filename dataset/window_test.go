package dataset

import (
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/gen"
	"github.com/parquet-go/parquet-go"
)

// run is a games directory written by the tests: shards of generations, in
// the order written, and every sample in that order.
type run struct {
	dir     string
	shards  [][]Sample
	samples []Sample
}

// writeRun writes shardsPerGen shards of games for every generation in gens.
func writeRun(t *testing.T, variant string, gens []int, shardsPerGen, gamesPerShard int) *run {
	t.Helper()
	r := &run{dir: t.TempDir()}
	for _, gen := range gens {
		for i := 0; i < shardsPerGen; i++ {
			s := playGames(t, variant, gamesPerShard, uint64(100*gen+i), gen, 40)
			writeShard(t, generationDir(r.dir, gen), s)
			r.shards = append(r.shards, s)
			r.samples = append(r.samples, s...)
		}
	}
	return r
}

func keys(samples []Sample) []key {
	out := make([]key, len(samples))
	for i := range samples {
		out[i] = keyOf(&samples[i])
	}
	return out
}

func sortedKeys(samples []Sample) []key {
	k := keys(samples)
	slices.SortFunc(k, func(a, b key) int {
		if c := strings.Compare(a.game, b.game); c != 0 {
			return c
		}
		return a.ply - b.ply
	})
	return k
}

func open(t *testing.T, dir string, opts WindowOptions) *Window {
	t.Helper()
	w, err := OpenWindow(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestWindow_InOrderReturnsEverySampleOldestFirst(t *testing.T) {
	r := writeRun(t, "nine", []int{0, 1, 2}, 2, 2)
	w := open(t, r.dir, WindowOptions{})
	got := readAll(t, w)
	if !reflect.DeepEqual(keys(got), keys(r.samples)) {
		t.Fatalf("read %d samples not in the written order of %d", len(got), len(r.samples))
	}
	if !reflect.DeepEqual(got, r.samples) {
		t.Fatal("samples differ from those written")
	}
	if w.Rows() != int64(len(r.samples)) {
		t.Errorf("Rows = %d, want %d", w.Rows(), len(r.samples))
	}
}

func TestWindow_SamplesKeepsExactlyTheMostRecentRows(t *testing.T) {
	r := writeRun(t, "nine", []int{0, 1, 2}, 2, 2)
	for _, n := range []int{1, 37, len(r.shards[5]), len(r.shards[5]) + 1, len(r.samples) - 1, len(r.samples), len(r.samples) + 50} {
		w := open(t, r.dir, WindowOptions{Samples: n})
		got := readAll(t, w)
		want := r.samples[max(0, len(r.samples)-n):]
		if !reflect.DeepEqual(keys(got), keys(want)) {
			t.Fatalf("Samples %d: read %d samples, want the last %d written", n, len(got), len(want))
		}
		if w.Rows() != int64(len(want)) {
			t.Errorf("Samples %d: Rows = %d, want %d", n, w.Rows(), len(want))
		}
	}
}

func TestWindow_GenerationsKeepsTheNewestDirectoriesPresent(t *testing.T) {
	r := writeRun(t, "three", []int{1, 4, 9}, 1, 3)
	w := open(t, r.dir, WindowOptions{Generations: 2})
	got := readAll(t, w)
	want := append(append([]Sample(nil), r.shards[1]...), r.shards[2]...)
	if !reflect.DeepEqual(keys(got), keys(want)) {
		t.Fatalf("read %d samples, want the %d of generations 4 and 9", len(got), len(want))
	}
	for _, s := range got {
		if s.Generation == 1 {
			t.Fatal("a sample of generation 1 is in a 2-generation window")
		}
	}
}

func TestWindow_ShuffleIsAPermutationFixedBySeed(t *testing.T) {
	r := writeRun(t, "nine", []int{0, 1}, 3, 2)
	first := readAll(t, open(t, r.dir, WindowOptions{Shuffle: 50, Seed: 1}))
	again := readAll(t, open(t, r.dir, WindowOptions{Shuffle: 50, Seed: 1}))
	other := readAll(t, open(t, r.dir, WindowOptions{Shuffle: 50, Seed: 2}))
	if !reflect.DeepEqual(sortedKeys(first), sortedKeys(r.samples)) {
		t.Fatal("shuffled samples are not the samples written")
	}
	if !reflect.DeepEqual(keys(first), keys(again)) {
		t.Fatal("the same seed gave another order")
	}
	if reflect.DeepEqual(keys(first), keys(other)) || reflect.DeepEqual(keys(first), keys(r.samples)) {
		t.Fatal("the shuffle did not change the order")
	}
	// Samples come out whole: the policy goes with its position.
	byKey := map[key]*Sample{}
	for i := range r.samples {
		byKey[keyOf(&r.samples[i])] = &r.samples[i]
	}
	for i := range first {
		if !reflect.DeepEqual(first[i], *byKey[keyOf(&first[i])]) {
			t.Fatalf("shuffled sample %v differs from the one written", keyOf(&first[i]))
		}
	}
}

func TestWindow_SplitPutsEachGameWhollyInOneSide(t *testing.T) {
	r := writeRun(t, "three", []int{0}, 4, 25)
	train := readAll(t, open(t, r.dir, WindowOptions{ValFraction: 0.3, Split: Train}))
	val := readAll(t, open(t, r.dir, WindowOptions{ValFraction: 0.3, Split: Validation}))
	side := map[string]string{}
	for _, s := range train {
		side[s.GameID] = "train"
	}
	for _, s := range val {
		if side[s.GameID] == "train" {
			t.Fatalf("game %s is in both splits", s.GameID)
		}
		side[s.GameID] = "val"
	}
	if !reflect.DeepEqual(sortedKeys(append(train, val...)), sortedKeys(r.samples)) {
		t.Fatal("train and validation together are not every sample")
	}
	nval := 0
	for _, s := range side {
		if s == "val" {
			nval++
		}
	}
	if nval < 15 || nval > 45 { // 100 games at 0.3: 30 +- 3.5 sigma
		t.Errorf("%d of %d games in validation at fraction 0.3", nval, len(side))
	}
	if none := readAll(t, open(t, r.dir, WindowOptions{Split: Validation})); len(none) != 0 {
		t.Errorf("fraction 0 gave %d validation samples", len(none))
	}
}

func TestWindow_FullOnlyDropsFastSearches(t *testing.T) {
	r := writeRun(t, "nine", []int{0}, 1, 4)
	got := readAll(t, open(t, r.dir, WindowOptions{FullOnly: true}))
	var want []Sample
	for _, s := range r.samples {
		if s.Full {
			want = append(want, s)
		}
	}
	if len(want) == len(r.samples) || len(want) == 0 {
		t.Fatal("test data needs both full and fast searches")
	}
	if !reflect.DeepEqual(keys(got), keys(want)) {
		t.Fatalf("FullOnly read %d samples, want %d", len(got), len(want))
	}
}

func TestWindow_AugmentMapsPositionAndPolicyTogether(t *testing.T) {
	for _, variant := range []string{"nine", "three", "moulin-rouge-3"} {
		t.Run(variant, func(t *testing.T) {
			v, err := engine.Load(variant)
			if err != nil {
				t.Fatal(err)
			}
			r := writeRun(t, variant, []int{0}, 1, 6)
			byKey := map[key]*Sample{}
			for i := range r.samples {
				byKey[keyOf(&r.samples[i])] = &r.samples[i]
			}
			got := readAll(t, open(t, r.dir, WindowOptions{Augment: true, Seed: 3}))
			moved := 0
			buf := make([]engine.Action, 0, engine.MaxActions)
			for i := range got {
				s, orig := &got[i], byKey[keyOf(&got[i])]
				if s.Position != orig.Position {
					moved++
				}
				if v.MapPosition(0, s.Position).Hash != s.Position.Hash {
					t.Fatalf("%v: hash not that of the mapped position", keyOf(s))
				}
				// The policy was over every legal action, so after mapping it
				// must be over every legal action of the mapped position,
				// with the same probabilities.
				var legal, policy []int
				for _, a := range v.Legal(&s.Position, buf) {
					legal = append(legal, v.ActionIndex(a))
				}
				probs := map[float32]int{}
				for j, e := range s.Policy {
					policy = append(policy, int(e.Action))
					probs[e.Prob]++
					probs[orig.Policy[j].Prob]--
				}
				slices.Sort(legal)
				slices.Sort(policy)
				if !slices.Equal(legal, policy) {
					t.Fatalf("%v: policy actions %v, legal actions of the mapped position %v", keyOf(s), policy, legal)
				}
				for p, n := range probs {
					if n != 0 {
						t.Fatalf("%v: probability %v appears %+d times more after mapping", keyOf(s), p, n)
					}
				}
			}
			if moved < len(got)/4 {
				t.Fatalf("only %d of %d samples were mapped to another position", moved, len(got))
			}
		})
	}
}

func TestWindow_RepeatStartsAgainAndFailsWhenEmpty(t *testing.T) {
	r := writeRun(t, "three", []int{0}, 2, 1)
	w := open(t, r.dir, WindowOptions{Repeat: true, Shuffle: 4, Seed: 9})
	counts := map[key]int{}
	var s Sample
	for i := 0; i < 3*len(r.samples); i++ {
		if err := w.Next(&s); err != nil {
			t.Fatalf("sample %d of a repeating window: %v", i, err)
		}
		counts[keyOf(&s)]++
	}
	for _, k := range keys(r.samples) {
		if counts[k] == 0 {
			t.Fatalf("three passes never returned %v", k)
		}
	}
	empty := open(t, t.TempDir(), WindowOptions{Repeat: true})
	if err := empty.Next(&s); !errors.Is(err, ErrNoSamples) {
		t.Fatalf("repeating empty window: %v, want ErrNoSamples", err)
	}
	once := open(t, t.TempDir(), WindowOptions{})
	if err := once.Next(&s); err != io.EOF {
		t.Fatalf("empty window: %v, want io.EOF", err)
	}
}

func TestWindow_SkipsEveryBadFileWithAWarningNamingIt(t *testing.T) {
	r := writeRun(t, "nine", []int{0}, 2, 2)
	dir := generationDir(r.dir, 0)
	good := writeShard(t, dir, playGames(t, "nine", 1, 77, 0, 30))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(good)

	bad := map[string]func(path string){
		"truncated.parquet": func(path string) { os.WriteFile(path, data[:len(data)/2], 0o644) },
		"random.parquet": func(path string) {
			junk := make([]byte, 4096)
			rand.Read(junk)
			os.WriteFile(path, junk, 0o644)
		},
		"empty.parquet": func(path string) { os.WriteFile(path, nil, 0o644) },
		"other-schema.parquet": func(path string) {
			type other struct {
				Variant string `parquet:"variant"`
				Score   int64  `parquet:"score"`
			}
			f, _ := os.Create(path)
			pw := parquet.NewGenericWriter[other](f, parquet.KeyValueMetadata(FormatKey, FormatVersion))
			pw.Write([]other{{"nine", 3}})
			pw.Close()
			f.Close()
		},
		"old-version.parquet": func(path string) {
			f, _ := os.Create(path)
			pw := parquet.NewGenericWriter[row](f, parquet.KeyValueMetadata(FormatKey, "0"))
			var rw row
			rw.fromSample(&r.samples[0])
			pw.Write([]row{rw})
			pw.Close()
			f.Close()
		},
		"bad-row.parquet": func(path string) {
			f, _ := os.Create(path)
			pw := parquet.NewGenericWriter[row](f, parquet.KeyValueMetadata(FormatKey, FormatVersion))
			var rw row
			rw.fromSample(&r.samples[0])
			rw.Variant = "chess"
			pw.Write([]row{rw})
			pw.Close()
			f.Close()
		},
	}
	for name, write := range bad {
		write(filepath.Join(dir, name))
	}
	// Not shards at all: ignored without a word.
	os.WriteFile(filepath.Join(dir, "half-written.parquet"+TempExt), data[:100], 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	os.Mkdir(filepath.Join(r.dir, "scratch"), 0o755)

	for _, opts := range []WindowOptions{{}, {Shuffle: 16, Augment: true}, {Samples: 1 << 20}} {
		logger, logs := captureLog()
		opts.Logger = logger
		got := readAll(t, open(t, r.dir, opts))
		if !reflect.DeepEqual(sortedKeys(got), sortedKeys(r.samples)) {
			t.Fatalf("%+v: read %d samples, want the %d of the good shards", opts, len(got), len(r.samples))
		}
		for name := range bad {
			if n := strings.Count(logs.String(), filepath.Join(dir, name)); n != 1 {
				t.Errorf("%+v: %d warnings name %s, want 1:\n%s", opts, n, name, logs)
			}
		}
		for _, quiet := range []string{TempExt, "notes.txt"} {
			if strings.Contains(logs.String(), quiet) {
				t.Errorf("a warning names %s:\n%s", quiet, logs)
			}
		}
	}
}

// A Keep window returns what a streaming one does, sample for sample and
// symmetry for symmetry, over many passes, and after its first pass it
// reads no file: the shards can be gone.
func TestWindow_KeepReturnsTheSameSamplesAndReadsEachShardOnce(t *testing.T) {
	r := writeRun(t, "nine", []int{0, 1, 2}, 3, 2)
	log, warnings := captureLog()
	opts := WindowOptions{Repeat: true, Shuffle: 64, Seed: 5, Augment: true, ValFraction: 0.2, Split: Train,
		HoldoutNewest: true, FullOnly: true, Samples: len(r.samples) - 7, Logger: log}
	stream := open(t, r.dir, opts)
	opts.Keep = true
	keep := open(t, r.dir, opts)
	var a, b Sample
	for i := 0; i < 4*len(r.samples); i++ {
		if err := keep.Next(&b); err != nil {
			t.Fatalf("sample %d of the keeping window: %v", i, err)
		}
		if err := stream.Next(&a); err != nil {
			t.Fatalf("sample %d of the streaming window: %v", i, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("sample %d: keeping %+v, streaming %+v", i, b, a)
		}
	}
	if err := os.RemoveAll(r.dir); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2*len(r.samples); i++ {
		if err := keep.Next(&b); err != nil {
			t.Fatalf("sample %d after the files are gone: %v", i, err)
		}
	}
	if warnings.Len() > 0 {
		t.Errorf("the keeping window read a file after its first pass: %s", warnings)
	}
}

// A window opened with the cache of the last one returns what a window
// without it does, sample for sample, serves the shards the last one read
// whole from memory (their files are gone before its first pass), and
// leaves in the cache only its own shards that every window reads alike.
func TestWindow_CacheCarriesKeptShardsToTheNextWindow(t *testing.T) {
	r := writeRun(t, "nine", []int{0, 1, 2}, 2, 2)
	cache := NewShardCache()
	opts := WindowOptions{Repeat: true, Shuffle: 64, Seed: 5, Augment: true, ValFraction: 0.2, Split: Train,
		HoldoutNewest: true, FullOnly: true, Keep: true, Cache: cache, Generations: 2}
	first := open(t, r.dir, opts) // generations 1 and 2, the newest holding out its validation games
	var s Sample
	for i := 0; i < 2*len(r.samples); i++ {
		if err := first.Next(&s); err != nil {
			t.Fatalf("sample %d of the first window: %v", i, err)
		}
	}
	first.Close()
	gen1 := generationDir(r.dir, 1)
	for _, f := range files(t, gen1) {
		if _, ok := cache.shards[filepath.Join(gen1, f)]; !ok {
			t.Errorf("generation 1's shard %s, read whole, is not in the cache", f)
		}
	}
	if len(cache.shards) != 2 {
		t.Errorf("the cache holds %d shards, want generation 1's 2 (generation 2 held out games)", len(cache.shards))
	}

	writeShard(t, generationDir(r.dir, 3), playGames(t, "nine", 2, 300, 3, 40))
	opts.Generations, opts.Seed = 3, 6 // generations 1, 2 and 3
	log, warnings := captureLog()
	opts.Logger = log
	cached := open(t, r.dir, opts)
	plain := opts
	plain.Cache = nil
	wantSamples := nextSamples(t, open(t, r.dir, plain), 3*len(r.samples), "the plain window")
	if err := os.RemoveAll(gen1); err != nil { // the cached window must serve generation 1 from memory
		t.Fatal(err)
	}
	expectSamples(t, cached, wantSamples, "the cached window")
	if warnings.Len() > 0 {
		t.Errorf("a window read a removed file: %s", warnings)
	}
	gens := map[int]int{}
	for path := range cache.shards {
		g, _ := gen.Parse(filepath.Base(filepath.Dir(path)))
		gens[g]++
	}
	if !reflect.DeepEqual(gens, map[int]int{1: 2, 2: 2}) {
		t.Errorf("the cache holds shards of generations %v, want generations 1 and 2's two each (3 is the newest)", gens)
	}
	if cache.Samples() == 0 {
		t.Error("the cache counts no samples")
	}

	opts.Generations = 1 // generation 3 alone: the others leave the cache
	open(t, r.dir, opts)
	if len(cache.shards) != 0 {
		t.Errorf("a window of generation 3 left %d shards of older ones in the cache", len(cache.shards))
	}
}

// A window opened with the cache takes the row counts of the shards the
// last one checked from the cache instead of opening their footers again:
// a shard spoilt after it was checked (which the rig never does: a shard is
// written once) is neither warned about nor skipped, and its kept samples
// are served as before, where a window without the cache skips it.
func TestWindow_CacheChecksEachFooterOnce(t *testing.T) {
	r := writeRun(t, "nine", []int{0, 1, 2}, 2, 2)
	cache := NewShardCache()
	opts := WindowOptions{Repeat: true, Seed: 5, Split: Train, Keep: true, Cache: cache}
	first := open(t, r.dir, opts)
	want := nextSamples(t, first, 2*len(r.samples), "the first window")
	first.Close()
	if len(cache.rows) != 6 {
		t.Fatalf("the cache holds the row counts of %d shards, want the window's 6", len(cache.rows))
	}
	gen1 := generationDir(r.dir, 1)
	for _, f := range files(t, gen1) {
		if err := os.WriteFile(filepath.Join(gen1, f), []byte("not parquet"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log, warnings := captureLog()
	opts.Logger = log
	expectSamples(t, open(t, r.dir, opts), want, "the cached window")
	if warnings.Len() > 0 {
		t.Errorf("the cached window opened a checked footer again: %s", warnings)
	}
	plain := opts
	plain.Cache = nil
	plainLog, plainWarnings := captureLog()
	plain.Logger = plainLog
	open(t, r.dir, plain)
	if !strings.Contains(plainWarnings.String(), "gen-000001") {
		t.Errorf("a window without the cache did not skip the spoilt shards: %q", plainWarnings)
	}
}

// nextSamples returns the next n samples of window w, named what.
func nextSamples(t *testing.T, w *Window, n int, what string) []Sample {
	t.Helper()
	out := make([]Sample, n)
	for i := range out {
		if err := w.Next(&out[i]); err != nil {
			t.Fatalf("sample %d of %s: %v", i, what, err)
		}
	}
	return out
}

// expectSamples fails t unless window w, named what, returns want next.
func expectSamples(t *testing.T, w *Window, want []Sample, what string) {
	t.Helper()
	var s Sample
	for i := range want {
		if err := w.Next(&s); err != nil {
			t.Fatalf("sample %d of %s: %v", i, what, err)
		}
		if !reflect.DeepEqual(want[i], s) {
			t.Fatalf("sample %d of %s: %+v, want %+v", i, what, s, want[i])
		}
	}
}
