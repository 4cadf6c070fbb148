package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/millzero/millzero/internal/atomicfile"
)

// workDir is a run's store and the local directory the loop works in: the
// store's own directory when the run is a local path, else a cache that
// mirrors the store. Shards, checkpoints and arena records are written
// once under unique names, so "download what the cache lacks" and "upload
// what the store lacks" are always correct; the few mutable objects
// (mutable) are written only by the lease holder, and the store's copy wins
// when a process starts.
type workDir struct {
	store *Store
	dir   Dir
	local bool // dir is the store itself: nothing to copy
}

// DefaultCache is the cache directory of a run stored at loc:
// $XDG_CACHE_HOME/millzero/<hash of loc>/<role> (os.UserCacheDir). The
// trainer ("train") has its own, since it writes the mutable objects that
// the others ("follow": workers, status) only read.
func DefaultCache(loc, role string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("run %s: a cache directory (give --cache): %w", loc, err)
	}
	sum := sha256.Sum256([]byte(loc))
	return filepath.Join(base, "millzero", hex.EncodeToString(sum[:8]), role), nil
}

// newWorkDir is the directory the loop works in on store st (opened from
// loc): the store's own directory, or cache (DefaultCache(loc, role) when
// "") for a store that is not a local directory.
func newWorkDir(st *Store, loc, cache, role string) (*workDir, error) {
	if dir, ok := st.Local(); ok {
		return &workDir{store: st, dir: Dir(dir), local: true}, nil
	}
	if cache == "" {
		var err error
		if cache, err = DefaultCache(loc, role); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(cache, 0o777); err != nil {
		return nil, fmt.Errorf("run %s: cache %s: %w", loc, cache, err)
	}
	return &workDir{store: st, dir: Dir(cache)}, nil
}

// mutable reports whether the object name is one of the few the lease
// holder replaces (the best pointer, metrics, plots, ratings); every other
// object is written once.
func mutable(name string) bool {
	return name == "models/best" || strings.HasPrefix(name, "metrics/") || name == "arena/ratings.csv" ||
		name == "run.yaml" // train --config changes a run's settings between generations
}

// path is the cache path of the object name.
func (w *workDir) path(name string) string {
	return filepath.Join(string(w.dir), filepath.FromSlash(name))
}

// pull brings the object name into the cache: a write-once object when the
// cache lacks it, a mutable one always (a missing mutable object is removed
// from the cache). A missing write-once object is not an error.
func (w *workDir) pull(ctx context.Context, name string) error {
	if w.local {
		return nil
	}
	p := w.path(name)
	if !mutable(name) {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
	}
	ok, err := w.store.Exists(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		if mutable(name) {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	return w.store.Download(ctx, name, p)
}

// pullAll brings every object under prefix that the cache lacks (and every
// mutable one) into the cache, and returns the names.
func (w *workDir) pullAll(ctx context.Context, prefix string) ([]string, error) {
	objs, err := w.store.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(objs))
	for _, o := range objs {
		names = append(names, o.Name)
		if w.local {
			continue
		}
		if err := w.pull(ctx, o.Name); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// push puts the cached object name in the store: a mutable object
// replaces the store's; a write-once object the store already has is left
// as it is (its name is unique, so it is the same object).
func (w *workDir) push(ctx context.Context, name string) error {
	if w.local {
		return nil
	}
	p := w.path(name)
	if mutable(name) {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return w.store.PutReplace(ctx, name, data)
	}
	err := w.store.Upload(ctx, p, name)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// pushAll puts every complete cached file under the directory prefix that
// the store lacks: shards, checkpoints and records a process wrote before
// it was stopped, or played locally. Temporary files are skipped.
func (w *workDir) pushAll(ctx context.Context, prefix string) error {
	if w.local {
		return nil
	}
	have := map[string]bool{}
	objs, err := w.store.List(ctx, prefix)
	if err != nil {
		return err
	}
	for _, o := range objs {
		have[o.Name] = true
	}
	root := w.path(prefix)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) {
			if p == root {
				return filepath.SkipDir
			}
			return nil // removed meanwhile
		}
		if err != nil || d.IsDir() || atomicfile.IsTemp(d.Name()) || strings.HasSuffix(d.Name(), ".jsonl") {
			return err
		}
		rel, err := filepath.Rel(string(w.dir), p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if have[name] || mutable(name) {
			return nil
		}
		err = w.push(ctx, name)
		if errors.Is(err, fs.ErrNotExist) {
			// Another process sharing the cache uploaded and dropped it.
			if _, serr := os.Stat(p); errors.Is(serr, fs.ErrNotExist) {
				return nil
			}
		}
		return err
	})
	return err
}

// genPrefix is the store prefix of generation gen's shards.
func genPrefix(gen int) string { return path.Join("games", ModelName(gen)) + "/" }

// Records is a run's arena records for the arena command: a local
// directory the matches write to (the run's own, or its cache's) and the
// store they go up to. Each match's records are one write-once object
// under a unique name, so any process may add them.
type Records struct {
	wd *workDir
}

// OpenRecords opens the arena records of the run at loc (a path or URL;
// cache as in Options.Cache): a run, or a location that holds only arena
// records (or nothing yet). A location holding something else is an
// error, before any game is played.
func OpenRecords(ctx context.Context, loc, cache string) (*Records, error) {
	st, err := OpenStore(ctx, loc)
	if err != nil {
		return nil, err
	}
	if _, err := st.CheckRun(ctx); err != nil && !onlyLease(ctx, st, "arena/") {
		st.Close()
		return nil, err
	}
	wd, err := newWorkDir(st, loc, cache, "follow")
	if err != nil {
		st.Close()
		return nil, err
	}
	return &Records{wd: wd}, nil
}

// Dir is the local directory of the records.
func (r *Records) Dir() string { return r.wd.dir.Arena() }

// Pull brings every record of the run into Dir.
func (r *Records) Pull(ctx context.Context) error {
	_, err := r.wd.pullAll(ctx, "arena/")
	return err
}

// Push puts the records written in Dir that the store lacks.
func (r *Records) Push(ctx context.Context) error { return r.wd.pushAll(ctx, "arena/") }

// Close releases the store.
func (r *Records) Close() error { return r.wd.store.Close() }

// Fetch is the local directory of the run at loc for the commands that
// read a model from it (play, engine, export, oracle): a path is used as
// it is; for a URL, the run's config, best pointer and the checkpoints of
// its best and newest generations are brought into the cache (cache, or
// the default) first, and the objects named in more (missing ones are
// skipped).
func Fetch(ctx context.Context, loc, cache string, more ...string) (Dir, error) {
	if !strings.Contains(loc, "://") {
		return Dir(loc), nil
	}
	st, err := OpenStore(ctx, loc)
	if err != nil {
		return "", err
	}
	defer st.Close()
	exists, err := st.CheckRun(ctx)
	if err != nil {
		return "", err
	}
	if !exists {
		return "", fmt.Errorf("run %s: no run.yaml: start the run with millzero train first", loc)
	}
	wd, err := newWorkDir(st, loc, cache, "follow")
	if err != nil {
		return "", err
	}
	for _, name := range append([]string{"run.yaml", "models/best"}, more...) {
		if err := wd.pull(ctx, name); err != nil {
			return "", err
		}
	}
	models, err := st.List(ctx, "models/gen-")
	if err != nil {
		return "", err
	}
	if n := len(models); n > 0 {
		if err := wd.pull(ctx, models[n-1].Name); err != nil {
			return "", err
		}
	}
	if best, err := wd.dir.Best(); err == nil && best > 0 {
		if err := wd.pull(ctx, "models/"+ModelName(best)+".safetensors"); err != nil {
			return "", err
		}
	}
	return wd.dir, nil
}
