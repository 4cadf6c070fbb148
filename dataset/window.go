package dataset

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/gen"
	"github.com/parquet-go/parquet-go"
)

// Split chooses which games of a window a reader returns.
type Split int

// The splits. A game is wholly in one of Train and Validation, chosen by a
// hash of its id (InValidation), so the choice is the same on every machine
// and every run.
const (
	All        Split = iota // every game
	Train                   // the games not in validation
	Validation              // the games InValidation picks
)

// WindowOptions says which samples of a games directory a Window returns and
// how.
type WindowOptions struct {
	Samples     int     // keep only the most recent this many recorded positions (rows); 0: no limit
	Generations int     // keep only the most recent this many generation directories present; 0: no limit
	Shuffle     int     // shuffle buffer, in samples (memory ~ 100 bytes + the policy each); 0 reads in order, oldest first
	Seed        uint64  // seeds the shard order, the shuffle and the symmetries
	Augment     bool    // map each sample by a random board symmetry (policy action ids with it)
	ValFraction float64 // fraction of games, 0..1, that form the Validation split
	Split       Split   // which games to return
	FullOnly    bool    // drop the samples of fast searches (Full false), which have no policy target
	Repeat      bool    // start a new pass, reshuffled, after the last shard instead of returning io.EOF

	// Keep holds the samples of each shard read whole (filtered and
	// checked, not yet augmented) in memory, and later passes take them
	// from there instead of reading and decoding the Parquet file again:
	// the same samples in the same order, and the same symmetries drawn,
	// for memory of about the window's samples (a few hundred bytes
	// each; Samples bounds them). For a repeating window read over many
	// passes, as a trainer's is.
	Keep bool

	// Cache, with Keep, carries kept shards from one window to the next
	// (a trainer opens a window a generation and most of its shards were
	// in the last one): a shard it holds is served from memory from the
	// first pass on, and the shards read whole are added. Opening a window
	// drops the shards no longer in it. nil: nothing outlives the window.
	Cache *ShardCache

	Logger *slog.Logger // where warnings about skipped files go; nil: slog.Default()

	// Variant, if set, is the only variant the window returns: a shard
	// of another variant, or whose recorded spec differs from this one's,
	// is skipped with a warning naming the difference. Shards without a
	// spec (written before specs travelled) are read by the name.
	Variant *engine.Variant

	// HoldoutNewest holds out the Validation games of the newest
	// generation in the window only: older generations' games are all in
	// Train (validated on when they were newest, they are training data
	// since), and none in Validation.
	HoldoutNewest bool
}

// ErrNoSamples is returned by a repeating Window whose whole pass yielded
// no sample, instead of spinning forever.
var ErrNoSamples = errors.New("dataset: window has no samples")

// shardRef is one shard of a window.
type shardRef struct {
	path string
	gen  int   // from the directory name
	rows int64 // rows the footer declares
	skip int64 // rows at the start that are older than the window
}

// Window streams the samples of the most recent shards of a games
// directory, as chosen when it was opened (reopen it to see newer shards).
// It holds at most one shard open and one batch of rows plus the shuffle
// buffer in memory (and with Keep the window's samples). It is not safe for
// concurrent use.
type Window struct {
	opts     WindowOptions
	log      *slog.Logger
	rng      *rand.Rand
	shards   []shardRef // oldest first
	bad      map[string]bool
	variants *variantSet
	curVars  map[string]*engine.Variant // the variants of cur, by name

	order     []int // shard indexes of the current pass
	next      int   // next position in order
	passCount int   // samples returned by the current pass

	cur    *shardReader
	curGen int // the generation of cur
	newest int // the newest generation in the window
	dec    decoder
	batch  []parquet.Row
	pos    int
	n      int
	rowNum int64 // rows of cur consumed, the skipped ones included

	buf     []Sample // the shuffle buffer
	drained bool     // the source has ended (never, when repeating)

	// With Keep: each shard's samples once it was read whole (nil
	// before), the shard being read and what it gave so far, and the
	// kept shard being served.
	kept     []keptShard
	curIdx   int
	keeping  keptShard
	serving  *keptShard
	servedAt int
}

// keptShard is the samples of one shard held by a Keep window, with the
// variants of its spec. Their policies share one array.
type keptShard struct {
	samples []Sample
	policy  []PolicyEntry
	offs    []int32 // sample i's policy is policy[offs[i]:offs[i+1]], set when the shard is whole
	vars    map[string]*engine.Variant
}

// add appends a copy of s, its policy in the shard's array.
func (k *keptShard) add(s *Sample) {
	if len(k.offs) == 0 {
		k.offs = append(k.offs, 0)
	}
	c := *s
	c.Policy = nil
	k.samples = append(k.samples, c)
	k.policy = append(k.policy, s.Policy...)
	k.offs = append(k.offs, int32(len(k.policy)))
}

// seal points each sample's policy into the shard's array, now that it
// will not grow.
func (k *keptShard) seal() {
	for i := range k.samples {
		k.samples[i].Policy = k.policy[k.offs[i]:k.offs[i+1]:k.offs[i+1]]
	}
	k.offs = nil
}

// OpenWindow lists the shards of gamesDir (gen-NNNNNN/*.parquet), keeps the
// most recent ones allowed by opts and reads their footers. Files that are
// not shards of this format are skipped with a warning naming them; only a
// gamesDir that cannot be listed is an error.
func OpenWindow(gamesDir string, opts WindowOptions) (*Window, error) {
	if opts.ValFraction < 0 || opts.ValFraction > 1 {
		return nil, fmt.Errorf("open window %s: validation fraction %v outside 0..1", gamesDir, opts.ValFraction)
	}
	if opts.Samples < 0 || opts.Generations < 0 || opts.Shuffle < 0 {
		return nil, fmt.Errorf("open window %s: negative size in %+v", gamesDir, opts)
	}
	w := &Window{
		opts:     opts,
		log:      opts.Logger,
		rng:      rand.New(rand.NewPCG(opts.Seed, 0x6d696c6c7a65726f)),
		bad:      map[string]bool{},
		variants: newVariantSet(opts.Variant),
		batch:    make([]parquet.Row, 32),
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	candidates, err := listShards(gamesDir, opts.Generations)
	if err != nil {
		return nil, fmt.Errorf("open window %s: %w", gamesDir, err)
	}
	for _, c := range candidates {
		w.newest = max(w.newest, c.gen)
	}
	cache := opts.Cache
	if !opts.Keep {
		cache = nil
	}
	if cache != nil {
		cache.use(opts)
	}
	// Newest first, read footers until the window is full.
	var total int64
	for i := len(candidates) - 1; i >= 0; i-- {
		if opts.Samples > 0 && total >= int64(opts.Samples) {
			break
		}
		ref := candidates[i]
		if rows, ok := cache.rowsOf(ref.path); ok {
			ref.rows = rows
		} else if ref.rows, err = w.checkFooter(ref.path); err != nil {
			w.skip(ref.path, err)
			continue
		} else if cache != nil {
			cache.rows[ref.path] = ref.rows
		}
		if ref.rows == 0 {
			continue
		}
		if opts.Samples > 0 && total+ref.rows > int64(opts.Samples) {
			ref.skip = total + ref.rows - int64(opts.Samples)
		}
		total += ref.rows - ref.skip
		w.shards = append(w.shards, ref)
	}
	for i, j := 0, len(w.shards)-1; i < j; i, j = i+1, j-1 {
		w.shards[i], w.shards[j] = w.shards[j], w.shards[i]
	}
	if opts.Keep {
		w.kept = make([]keptShard, len(w.shards))
		if cache != nil {
			cache.lend(w)
		}
	}
	w.startPass()
	return w, nil
}

// checkFooter opens the shard at path, checks its format and variants
// and returns the number of rows its footer declares.
func (w *Window) checkFooter(path string) (int64, error) {
	sr, err := openShard(path)
	if err != nil {
		return 0, err
	}
	defer sr.close()
	if _, err := w.variants.forShard(sr); err != nil {
		return 0, err
	}
	return sr.rows(), nil
}

// listShards returns the shard files of gamesDir, oldest first: by
// generation, then by name (names begin with the time they were begun).
// maxGens > 0 keeps only the newest that many generation directories.
func listShards(gamesDir string, maxGens int) ([]shardRef, error) {
	entries, err := os.ReadDir(gamesDir)
	if err != nil {
		return nil, err
	}
	type genDir struct {
		name string
		gen  int
	}
	var gens []genDir
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if g, ok := gen.Parse(e.Name()); ok {
			gens = append(gens, genDir{e.Name(), g})
		}
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i].gen < gens[j].gen })
	if maxGens > 0 && len(gens) > maxGens {
		gens = gens[len(gens)-maxGens:]
	}
	var refs []shardRef
	for _, g := range gens {
		dir := filepath.Join(gamesDir, g.name)
		files, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, f := range files { // ReadDir sorts by name
			name := f.Name()
			if f.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ShardExt) {
				continue
			}
			refs = append(refs, shardRef{path: filepath.Join(dir, name), gen: g.gen})
		}
	}
	return refs, nil
}

// Rows is the number of recorded positions in the window, before the split
// and FullOnly filters.
func (w *Window) Rows() int64 {
	var n int64
	for _, s := range w.shards {
		if !w.bad[s.path] {
			n += s.rows - s.skip
		}
	}
	return n
}

// Shards lists the window's shard files, oldest first.
func (w *Window) Shards() []string {
	out := make([]string, 0, len(w.shards))
	for _, s := range w.shards {
		out = append(out, s.path)
	}
	return out
}

// Next fills s with the next sample, reusing s.Policy's storage. It returns
// io.EOF after the last sample (never, when Repeat is set), and an error only
// when no sample can ever come (ErrNoSamples); a bad shard is skipped with a
// warning.
func (w *Window) Next(s *Sample) error {
	if w.opts.Shuffle == 0 {
		return w.pull(s)
	}
	for !w.drained && len(w.buf) < w.opts.Shuffle {
		n := len(w.buf)
		if n < cap(w.buf) {
			w.buf = w.buf[:n+1] // a slot emptied earlier: reuse its Policy storage
		} else {
			w.buf = append(w.buf, Sample{})
		}
		if err := w.pull(&w.buf[n]); err != nil {
			w.buf = w.buf[:n]
			if err != io.EOF {
				return err
			}
			w.drained = true
		}
	}
	if len(w.buf) == 0 {
		return io.EOF
	}
	i := w.rng.IntN(len(w.buf))
	copySample(s, &w.buf[i])
	if !w.drained {
		err := w.pull(&w.buf[i])
		if err == nil {
			return nil
		}
		if err != io.EOF {
			return err
		}
		w.drained = true
	}
	last := len(w.buf) - 1
	w.buf[i], w.buf[last] = w.buf[last], w.buf[i]
	w.buf = w.buf[:last]
	return nil
}

// copySample copies src into dst, reusing dst.Policy's storage.
func copySample(dst, src *Sample) {
	policy := append(dst.Policy[:0], src.Policy...)
	*dst = *src
	dst.Policy = policy
}

// pull reads the next sample that passes the filters, in shard order.
func (w *Window) pull(s *Sample) error {
	for {
		if k := w.serving; k != nil {
			if w.servedAt == len(k.samples) {
				w.serving = nil
				continue
			}
			copySample(s, &k.samples[w.servedAt])
			w.servedAt++
			if w.opts.Augment {
				v, err := w.variants.of(k.vars, s.Variant)
				if err != nil { // checked when kept
					return err
				}
				augment(v, s, w.rng.IntN(v.NumSymmetries()))
			}
			w.passCount++
			return nil
		}
		if w.cur == nil {
			if w.next >= len(w.order) {
				if !w.opts.Repeat {
					return io.EOF
				}
				if w.passCount == 0 {
					return fmt.Errorf("%w: %d shards, none with a sample for this split", ErrNoSamples, len(w.shards))
				}
				w.startPass()
			}
			idx := w.order[w.next]
			ref := &w.shards[idx]
			w.next++
			if w.bad[ref.path] {
				continue
			}
			if w.kept != nil && w.kept[idx].samples != nil {
				w.serving, w.servedAt = &w.kept[idx], 0
				continue
			}
			sr, err := openShard(ref.path)
			var vars map[string]*engine.Variant
			if err == nil {
				if vars, err = w.variants.forShard(sr); err != nil {
					sr.close()
				}
			}
			if err == nil && ref.skip > 0 {
				if err = sr.seek(ref.skip); err != nil {
					sr.close()
				}
			}
			if err != nil {
				w.skip(ref.path, err)
				continue
			}
			w.cur, w.curVars, w.curGen, w.pos, w.n, w.rowNum = sr, vars, ref.gen, 0, 0, ref.skip
			if w.kept != nil {
				w.curIdx, w.keeping = idx, keptShard{vars: vars}
			}
		}
		if w.pos == w.n {
			n, err := w.cur.read(w.batch)
			if err == io.EOF {
				if w.kept != nil {
					w.keeping.seal()
					if w.keeping.samples == nil {
						w.keeping.samples = []Sample{} // read whole, with no sample of this split
					}
					w.kept[w.curIdx] = w.keeping
					if c := w.opts.Cache; c != nil && w.cacheable(&w.shards[w.curIdx]) {
						c.shards[w.shards[w.curIdx].path] = w.keeping
					}
				}
				w.closeShard()
				continue
			}
			if err != nil {
				w.skip(w.cur.path, err)
				w.closeShard()
				continue
			}
			w.pos, w.n = 0, n
		}
		r := w.batch[w.pos]
		w.pos++
		w.rowNum++
		err := w.dec.decode(r, s)
		if err == nil {
			if w.opts.FullOnly && !s.Full {
				continue
			}
			inVal := InValidation(s.GameID, w.opts.ValFraction) && (!w.opts.HoldoutNewest || w.curGen == w.newest)
			if w.opts.Split != All && inVal != (w.opts.Split == Validation) {
				continue
			}
		}
		var v *engine.Variant
		if err == nil {
			v, err = w.variants.of(w.curVars, s.Variant)
		}
		if err == nil {
			err = Validate(v, s)
		}
		if err != nil {
			w.skip(w.cur.path, fmt.Errorf("row %d: %w", w.rowNum-1, err))
			w.closeShard()
			continue
		}
		if w.kept != nil {
			w.keeping.add(s)
		}
		if w.opts.Augment {
			augment(v, s, w.rng.IntN(v.NumSymmetries()))
		}
		w.passCount++
		return nil
	}
}

// startPass orders the shards for a new pass: shuffled when the window
// shuffles, oldest first otherwise.
func (w *Window) startPass() {
	w.order = w.order[:0]
	for i := range w.shards {
		w.order = append(w.order, i)
	}
	if w.opts.Shuffle > 0 {
		w.rng.Shuffle(len(w.order), func(i, j int) { w.order[i], w.order[j] = w.order[j], w.order[i] })
	}
	w.next, w.passCount = 0, 0
}

// skip warns about a bad file once and keeps it out of later passes.
func (w *Window) skip(path string, err error) {
	if w.bad[path] {
		return
	}
	w.bad[path] = true
	w.log.Warn("dataset: skipping shard", "path", path, "err", err)
}

func (w *Window) closeShard() {
	if w.cur != nil {
		w.cur.close()
		w.cur = nil
	}
	w.pos, w.n = 0, 0
	w.keeping = keptShard{}
}

// Close releases the open shard, if any, and the kept samples.
func (w *Window) Close() error {
	w.closeShard()
	w.buf, w.kept, w.serving = nil, nil, nil
	return nil
}

// ShardCache holds the kept samples of shards across the windows opened
// with it (WindowOptions.Cache), one window at a time: the same samples a
// window would read from the file, in the same order, so a window served
// from it returns what it would have read, symmetries and all. It holds at
// most the last window's samples. It also holds the row counts of the
// shards whose footers the last window checked, so the next does not open
// them again (a shard file is written once and never changed). Not safe
// for concurrent use.
type ShardCache struct {
	filters cacheFilters // those its samples passed (a change empties it)
	shards  map[string]keptShard
	rows    map[string]int64 // checked shards' row counts
}

// cacheFilters are the window options that decide which of a shard's
// samples a window keeps.
type cacheFilters struct {
	split         Split
	fullOnly      bool
	valFraction   float64
	holdoutNewest bool
	variant       *engine.Variant
}

// NewShardCache returns an empty cache.
func NewShardCache() *ShardCache {
	return &ShardCache{shards: map[string]keptShard{}, rows: map[string]int64{}}
}

// use empties the cache when a window's options filter samples otherwise
// than those it holds passed.
func (c *ShardCache) use(o WindowOptions) {
	f := cacheFilters{o.Split, o.FullOnly, o.ValFraction, o.HoldoutNewest, o.Variant}
	if f != c.filters {
		c.filters, c.shards, c.rows = f, map[string]keptShard{}, map[string]int64{}
	}
}

// rowsOf is the row count of the checked shard at path; false when the
// cache (which may be nil) has not checked it.
func (c *ShardCache) rowsOf(path string) (int64, bool) {
	if c == nil {
		return 0, false
	}
	n, ok := c.rows[path]
	return n, ok
}

// Samples is the number of samples the cache holds.
func (c *ShardCache) Samples() int {
	n := 0
	for _, k := range c.shards {
		n += len(k.samples)
	}
	return n
}

// lend gives w the cached shards of its window and drops the rest, and
// the row counts of shards no longer in it.
func (c *ShardCache) lend(w *Window) {
	held := make(map[string]keptShard, len(w.shards))
	rows := make(map[string]int64, len(w.shards))
	for i := range w.shards {
		ref := &w.shards[i]
		rows[ref.path] = ref.rows
		if k, ok := c.shards[ref.path]; ok && w.cacheable(ref) {
			w.kept[i] = k
			held[ref.path] = k
		}
	}
	c.shards, c.rows = held, rows
}

// cacheable says whether a shard's kept samples are the same in any window:
// read from its first row (the window's oldest shard may start later), and
// not the newest generation of a window that holds out its validation games
// (in the next window those games are training games).
func (w *Window) cacheable(ref *shardRef) bool {
	return ref.skip == 0 && !(w.opts.HoldoutNewest && ref.gen == w.newest)
}
