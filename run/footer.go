package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// storeError marks an error of the store (or the file system of a local
// run) rather than of the data read.
type storeError struct{ err error }

func (e storeError) Error() string { return e.err.Error() }
func (e storeError) Unwrap() error { return e.err }

// footerTail is how many bytes at a shard's end one ranged read brings:
// the Parquet footer of a shard (its schema, row groups and key/value
// metadata) is a few kilobytes.
const footerTail = 64 << 10

// readShardCount is the games of the shard object o, and whether it is
// of reanalysed positions (selfplay.IsReanalysed: no games, the trainer's
// searches), from its Parquet footer: the file itself in a local run
// directory, a ranged read of its last bytes in an object store (the shard
// is not downloaded). An error of the store is returned as such (a shard
// removed meanwhile matches fs.ErrNotExist); any other error is the
// shard's.
func readShardCount(ctx context.Context, s *store.Store, o store.ObjectInfo) (shardCount, error) {
	info, err := shardFooter(ctx, s, o)
	if err != nil {
		return shardCount{}, err
	}
	n, err := selfplay.GamesIn(info)
	return shardCount{Size: o.Size, Games: n, Reanalysed: selfplay.IsReanalysed(info)}, err
}

// shardFooter reads the footer of the shard object o, as readShardCount.
func shardFooter(ctx context.Context, s *store.Store, o store.ObjectInfo) (dataset.ShardInfo, error) {
	if _, ok := s.Local(); ok {
		if _, err := os.Stat(s.Where(o.Name)); err != nil {
			return dataset.ShardInfo{}, storeError{err}
		}
		return dataset.Inspect(s.Where(o.Name))
	}
	r := &objectReaderAt{ctx: ctx, s: s, name: o.Name, size: o.Size}
	info, err := dataset.InspectAt(r, o.Size, s.Where(o.Name))
	if r.err != nil {
		return dataset.ShardInfo{}, storeError{r.err} // the store's failure, not the shard's
	}
	return info, err
}

// objectReaderAt reads an object by ranged reads, the last footerTail
// bytes once.
type objectReaderAt struct {
	ctx  context.Context
	s    *store.Store
	name string
	size int64

	tail    []byte
	tailOff int64
	err     error // the store's last error
}

func (r *objectReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > r.size {
		return 0, fmt.Errorf("read %s at %d: outside its %d bytes", r.name, off, r.size)
	}
	if r.tail == nil {
		r.tailOff = max(0, r.size-footerTail)
		data, err := r.readRange(r.tailOff, r.size-r.tailOff)
		if err != nil {
			return 0, err
		}
		r.tail = data
	}
	end := min(off+int64(len(p)), r.size)
	var n int
	if off >= r.tailOff {
		n = copy(p, r.tail[off-r.tailOff:end-r.tailOff])
	} else {
		data, err := r.readRange(off, end-off)
		if err != nil {
			return 0, err
		}
		n = copy(p, data)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// readRange reads n bytes of the object from off, retried as any store
// operation.
func (r *objectReaderAt) readRange(off, n int64) ([]byte, error) {
	data, err := r.s.ReadRange(r.ctx, r.name, off, n)
	if err != nil {
		r.err = err
	}
	return data, err
}

// gameCountsObject is the file in the cache of a run in an object store
// that keeps the games of each shard status has read, and whether it is of
// reanalysed positions (shards are written once, so a name and size read
// once need not be read again).
const gameCountsObject = "status-shards.json"

// gameCounts is the games of the shards already read, by name and size;
// nil for a local run (its footers are read from the files).
type gameCounts struct {
	path    string
	counts  map[string]shardCount
	changed bool
}

type shardCount struct {
	Size       int64 `json:"size"`
	Games      int   `json:"games"`
	Reanalysed bool  `json:"reanalysed,omitempty"`
}

// loadGameCounts reads the cache's counts (none, or unreadable: empty).
func (r *Reader) loadGameCounts() *gameCounts {
	if r.wd.Local() {
		return nil
	}
	c := &gameCounts{path: r.wd.Path(gameCountsObject), counts: map[string]shardCount{}}
	if data, err := os.ReadFile(c.path); err == nil {
		if json.Unmarshal(data, &c.counts) != nil {
			c.counts = map[string]shardCount{}
		}
	}
	return c
}

// games is the games of shard o and whether it is of reanalysed
// positions: remembered, or read from its footer.
func (c *gameCounts) games(ctx context.Context, s *store.Store, o store.ObjectInfo) (shardCount, error) {
	if c == nil {
		return readShardCount(ctx, s, o)
	}
	if k, ok := c.counts[o.Name]; ok && k.Size == o.Size {
		return k, nil
	}
	k, err := readShardCount(ctx, s, o)
	if err == nil {
		c.counts[o.Name] = k
		c.changed = true
	}
	return k, err
}

// save writes the counts when they changed; a failure is only logged.
func (c *gameCounts) save(log *slog.Logger) {
	if c == nil || !c.changed {
		return
	}
	data, err := json.Marshal(c.counts)
	if err == nil {
		err = atomicfile.WriteFile(c.path, data)
	}
	if err != nil {
		log.Warn("keep the shards' game counts", "err", err)
	}
}
