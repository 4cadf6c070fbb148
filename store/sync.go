package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/millzero/millzero/internal/atomicfile"
)

// WorkDir is a run's store and the local directory the loop works in: the
// store's own directory when the run is a local path, else a cache that
// mirrors the store. Shards, checkpoints and arena records are written
// once under unique names, so "download what the cache lacks" and "upload
// what the store lacks" are always correct; the few mutable objects
// (mutable) are written only by the lease holder, and the store's copy wins
// when a process starts.
type WorkDir struct {
	store *Store
	dir   Dir
	local bool // dir is the store itself: nothing to copy
}

// Store is the run's store.
func (w *WorkDir) Store() *Store { return w.store }

// Dir is the local directory: the store's own, or its cache.
func (w *WorkDir) Dir() Dir { return w.dir }

// Local tells whether Dir is the store itself (a run on a local path), so
// that nothing is copied between them.
func (w *WorkDir) Local() bool { return w.local }

// DefaultCache is the cache directory of a run stored at loc:
// $XDG_CACHE_HOME/millzero/<hash of loc>/<role> (os.UserCacheDir). The
// trainer ("train") has its own, since it writes the mutable objects that
// the others ("follow": workers, status) only read.
func DefaultCache(loc, role string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("run %s: no cache directory to mirror it in: %w", loc, err)
	}
	sum := sha256.Sum256([]byte(loc))
	return filepath.Join(base, "millzero", hex.EncodeToString(sum[:8]), role), nil
}

// NewWorkDir is the directory the loop works in on store st (opened from
// loc): the store's own directory, or cache (DefaultCache(loc, role) when
// "") for a store that is not a local directory.
func NewWorkDir(st *Store, loc, cache, role string) (*WorkDir, error) {
	if dir, ok := st.Local(); ok {
		return &WorkDir{store: st, dir: Dir(dir), local: true}, nil
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
	return &WorkDir{store: st, dir: Dir(cache)}, nil
}

// mutable reports whether the object name is one of the few the lease
// holder replaces (the best pointer, metrics, plots, ratings); every other
// object is written once.
func mutable(name string) bool {
	return name == BestObject || strings.HasPrefix(name, MetricsPrefix) || name == RatingsObject ||
		name == ConfigObject // train --config changes a run's settings between generations
}

// Path is the cache path of the object name.
func (w *WorkDir) Path(name string) string {
	return w.dir.Path(name)
}

// Pull brings the object name into the cache: a write-once object when the
// cache lacks it, a mutable one always (a missing mutable object is removed
// from the cache). A missing write-once object is not an error.
func (w *WorkDir) Pull(ctx context.Context, name string) error {
	if w.local {
		return nil
	}
	p := w.Path(name)
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

// PullAll brings every object under prefix that the cache lacks (and every
// mutable one) into the cache, and returns the names.
func (w *WorkDir) PullAll(ctx context.Context, prefix string) ([]string, error) {
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
		if err := w.Pull(ctx, o.Name); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// Push puts the cached object name in the store: a mutable object
// replaces the store's; a write-once object the store already has is left
// as it is (its name is unique, so it is the same object).
func (w *WorkDir) Push(ctx context.Context, name string) error {
	if w.local {
		return nil
	}
	p := w.Path(name)
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

// PushAll puts every complete cached file under the directory prefix that
// the store lacks: shards, checkpoints and records a process wrote before
// it was stopped, or played locally. Temporary files are skipped.
func (w *WorkDir) PushAll(ctx context.Context, prefix string) error {
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
	root := w.Path(prefix)
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
		err = w.Push(ctx, name)
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

// Fetch is the local directory of the run at loc for the commands that
// read a model from it (play, engine, export, oracle): a path is used as
// it is; for a URL, the run's config, best pointer and the checkpoints of
// its best and newest generations are brought into the cache (cache, or
// the default) first, and the objects named in more (missing ones are
// skipped).
func Fetch(ctx context.Context, loc, cache string, more ...string) (Dir, error) {
	if !IsURL(loc) {
		return Dir(loc), nil
	}
	st, err := Open(ctx, loc)
	if err != nil {
		return "", err
	}
	defer st.Close()
	exists, err := st.CheckRun(ctx)
	if err != nil {
		return "", err
	}
	if !exists {
		return "", fmt.Errorf("run %s: no "+ConfigObject+": start the run with millzero train first", loc)
	}
	wd, err := NewWorkDir(st, loc, cache, "follow")
	if err != nil {
		return "", err
	}
	for _, name := range append([]string{ConfigObject, BestObject}, more...) {
		if err := wd.Pull(ctx, name); err != nil {
			return "", err
		}
	}
	models, err := st.List(ctx, CheckpointsPrefix)
	if err != nil {
		return "", err
	}
	if n := len(models); n > 0 {
		if err := wd.Pull(ctx, models[n-1].Name); err != nil {
			return "", err
		}
	}
	if best, err := wd.dir.Best(); err == nil && best > 0 {
		if err := wd.Pull(ctx, CheckpointObject(best)); err != nil {
			return "", err
		}
	}
	return wd.dir, nil
}
