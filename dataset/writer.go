package dataset

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/gen"
	"github.com/parquet-go/parquet-go"
)

// ShardExt is the name ending of a complete shard. Readers take only files
// ending so; a shard being written has a hidden temporary name ending in
// TempExt (atomicfile.TempName).
const ShardExt = ".parquet"

// TempExt ends a shard's temporary name while it is written; the file is
// renamed to the shard's name once complete and synced. It is the run's one
// rule for writes in progress (atomicfile.TempSuffix), which every lister
// skips.
const TempExt = atomicfile.TempSuffix

// rowsPerGroup bounds the rows of a Parquet row group, so a reader holds at
// most one group's pages of a shard in memory.
const rowsPerGroup = 16384

// ShardFile is a shard in a generation directory, as ShardFiles lists it.
type ShardFile struct {
	Path string
	Size int64
}

// ShardFiles lists the shards of a generation directory (a run's
// store.Dir.ShardDir),
// in name order: the files named *.parquet, leaving out directories and a
// writer's hidden temporary files. A missing directory has none.
func ShardFiles(genDir string) ([]ShardFile, error) {
	entries, err := os.ReadDir(genDir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list shards: %w", err)
	}
	var out []ShardFile
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ShardExt) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the directory was read
		}
		if err != nil {
			return nil, fmt.Errorf("list shards: %w", err)
		}
		out = append(out, ShardFile{Path: filepath.Join(genDir, name), Size: info.Size()})
	}
	return out, nil
}

// ShardWriter collects samples in memory and writes them as one Parquet
// shard when closed: to a temporary name first, synced, then renamed, so a
// reader never sees a partial shard and a killed process leaves none. It is
// not safe for concurrent use; give each worker its own.
type ShardWriter struct {
	dir      string
	name     string // final file name, unique across processes and machines
	host     string
	meta     map[string]string
	rows     []row
	variants map[string]*engine.Variant
	used     map[string]bool // the variants of the rows, whose specs the shard records
	closed   bool
}

// ErrClosed is returned by a ShardWriter used after Close or Abort.
var ErrClosed = errors.New("dataset: shard writer closed")

// NewShardWriter returns a writer of one shard into dir (created if
// missing), typically a generation's directory in a run's games directory
// (store.Dir.ShardDir). meta adds key/value
// pairs to the shard's file metadata (the millzero.* keys are reserved).
// variants are the variants of the samples to come (a sample names its
// variant; one not given is looked up by name among the named variants);
// the shard records the spec of each variant it holds samples of
// (VariantSpecKey), so a variant that exists only as a file is rebuilt by
// its readers.
func NewShardWriter(dir string, meta map[string]string, variants ...*engine.Variant) (*ShardWriter, error) {
	for k := range meta {
		if strings.HasPrefix(k, "millzero.") {
			return nil, fmt.Errorf("shard metadata key %q: the millzero. prefix is reserved", k)
		}
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("create shard directory: %w", err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	var nonce [6]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("shard name nonce: %w", err)
	}
	// The time leads, zero-padded, so names sort by when they were begun.
	name := fmt.Sprintf("%020d-%s-%d-%s%s", time.Now().UnixNano(), sanitize(host), os.Getpid(),
		hex.EncodeToString(nonce[:]), ShardExt)
	m := make(map[string]string, len(meta))
	for k, v := range meta {
		m[k] = v
	}
	w := &ShardWriter{dir: dir, name: name, host: host, meta: m, variants: map[string]*engine.Variant{}, used: map[string]bool{}}
	for _, v := range variants {
		if prev, ok := w.variants[v.Name]; ok && prev != v {
			if err := engine.CheckSame(v, "a second variant given", prev, "the first"); err != nil {
				return nil, fmt.Errorf("shard writer: two variants named %s: %w", v.Name, err)
			}
		}
		w.variants[v.Name] = v
	}
	return w, nil
}

// sanitize keeps a host name to characters safe in a file name on any file
// system or object store.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// Path is where the shard will be once Close succeeds.
func (w *ShardWriter) Path() string { return filepath.Join(w.dir, w.name) }

// Len is the number of samples written so far.
func (w *ShardWriter) Len() int { return len(w.rows) }

// Write adds samples to the shard. Each is checked against its variant's
// rules (Validate); the first invalid one is an error and nothing of that
// call is kept.
func (w *ShardWriter) Write(samples ...Sample) error {
	if w.closed {
		return ErrClosed
	}
	for i := range samples {
		s := &samples[i]
		v, ok := w.variants[s.Variant]
		if !ok {
			var err error
			if v, err = engine.Load(s.Variant); err != nil {
				return fmt.Errorf("write sample of game %q ply %d: %w", s.GameID, s.Ply, err)
			}
			w.variants[s.Variant] = v
		}
		if err := Validate(v, s); err != nil {
			return fmt.Errorf("write sample of game %q ply %d: %w", s.GameID, s.Ply, err)
		}
	}
	for i := range samples {
		w.used[samples[i].Variant] = true
	}
	// One block holds the policies of the whole call, not one per row.
	entries := 0
	for i := range samples {
		entries += len(samples[i].Policy)
	}
	block := make([]policyRow, 0, entries)
	w.rows = slices.Grow(w.rows, len(samples))
	for i := range samples {
		w.rows = append(w.rows, row{rowV1: rowV1{Policy: block[len(block) : len(block) : len(block)+len(samples[i].Policy)]}})
		w.rows[len(w.rows)-1].fromSample(&samples[i])
		block = block[:len(block)+len(samples[i].Policy)]
	}
	return nil
}

// Close writes the shard: encodes the samples to a temporary file, syncs it,
// renames it to Path() and syncs the directory. A writer with no samples
// writes nothing. On error no shard appears, and the temporary file is
// removed.
func (w *ShardWriter) Close() (err error) {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	rows := w.rows
	w.rows = nil
	if len(rows) == 0 {
		return nil
	}
	final := w.Path()
	tmp := atomicfile.TempName(final) // unique to this process: a killed writer's is swept (RemoveStaleTemp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("create shard: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	opts := []parquet.WriterOption{
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(rowsPerGroup),
		parquet.CreatedBy("millzero", FormatVersion, ""),
		parquet.KeyValueMetadata(FormatKey, FormatVersion),
		parquet.KeyValueMetadata(CreatedKey, time.Now().UTC().Format(time.RFC3339)),
		parquet.KeyValueMetadata(HostKey, w.host),
	}
	for name := range w.used {
		opts = append(opts, parquet.KeyValueMetadata(VariantSpecKey+name, w.variants[name].Spec.Canonical()))
	}
	for k, v := range w.meta {
		opts = append(opts, parquet.KeyValueMetadata(k, v))
	}
	pw := parquet.NewGenericWriter[row](f, opts...)
	if _, err = pw.Write(rows); err != nil {
		return fmt.Errorf("write shard %s: %w", tmp, err)
	}
	if err = pw.Close(); err != nil {
		return fmt.Errorf("write shard %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync shard %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close shard %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, final); err != nil {
		return fmt.Errorf("publish shard: %w", err)
	}
	// The rename is durable once the directory is synced; a failure here
	// leaves a complete shard, so it is not reported as a lost write.
	if d, derr := os.Open(w.dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort drops the samples without writing a shard.
func (w *ShardWriter) Abort() {
	w.closed = true
	w.rows = nil
}

// RemoveStaleTemp deletes the temporary files under gamesDir's generation
// directories that their writers abandoned (atomicfile.Abandoned): a
// process of this host that no longer runs wrote them, or they were last
// modified more than age ago. It returns how many it removed. Readers
// ignore such files, so this only frees space; an age well above a shard's
// write time keeps it off files still being written on other hosts.
func RemoveStaleTemp(gamesDir string, age time.Duration) (int, error) {
	entries, err := os.ReadDir(gamesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("remove stale temporary shards in %s: %w", gamesDir, err)
	}
	removed := 0
	for _, e := range entries {
		if _, ok := gen.Parse(e.Name()); !ok || !e.IsDir() {
			continue
		}
		n, err := atomicfile.Sweep(filepath.Join(gamesDir, e.Name()), age)
		removed += n
		if err != nil {
			return removed, fmt.Errorf("remove stale temporary shards: %w", err)
		}
	}
	return removed, nil
}
