package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/millzero/millzero/internal/atomicfile"
)

// Writes to a local run directory do not go through fileblob (whose
// write-once check is a stat then a rename under an in-process mutex, racy
// between processes, and which does not fsync). Instead:
//
//   - every write goes to a hidden temporary file in the target's directory
//     (".NAME.*.tmp": atomicfile.IsTemp, skipped by List), which is fsynced
//     and closed;
//   - a write-once object is then hard-linked to its name: link(2) fails
//     when the name exists, atomically, also between processes and over NFS;
//     on a file system without hard links it falls back to a check and a
//     rename, which two simultaneous writers of one name could both pass;
//   - a replaced object is renamed over its name (atomic);
//   - the directory is fsynced, so a finished write survives a crash.

// localError marks an error of the local file system (not of the store),
// which no retry fixes.
type localError struct{ err error }

func (e localError) Error() string { return e.err.Error() }
func (e localError) Unwrap() error { return e.err }

// writeLocal writes r to dir/name (name slash-separated) complete or not at
// all. With once, an existing name is an error matching fs.ErrExist and the
// file is left as it was.
func writeLocal(dir, name string, r io.Reader, once bool) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if once {
		if _, err := os.Lstat(p); err == nil {
			return fs.ErrExist
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	tmp, err := writeTemp(p, r)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	if once {
		err = os.Link(tmp, p)
		if err != nil && !errors.Is(err, fs.ErrExist) && linkUnsupported(err) {
			err = renameIfAbsent(tmp, p)
		}
		if errors.Is(err, fs.ErrExist) {
			return fs.ErrExist
		}
	} else {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(p))
}

// writeFileAtomic writes r to the file path through a temporary file renamed
// when complete. Errors of the local file system are localError; r's errors
// are returned as they are.
func writeFileAtomic(path string, r io.Reader) error {
	tmp, err := writeTemp(path, r)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Rename(tmp, path); err != nil {
		return localError{err}
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return localError{err}
	}
	return nil
}

// writeTemp copies r into a new fsynced temporary file next to path and
// returns its name. On error the file is removed. Local file system errors
// are localError.
func writeTemp(path string, r io.Reader) (string, error) {
	f, err := atomicfile.CreateTemp(path) // the umask's mode, as a new file
	if err != nil {
		return "", localError{err}
	}
	_, err = io.Copy(localWriter{f}, r)
	if err == nil {
		if err = f.Sync(); err != nil {
			err = localError{err}
		}
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = localError{cerr}
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// localWriter marks its write errors as localError.
type localWriter struct{ f *os.File }

func (w localWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = localError{err}
	}
	return n, err
}

// linkUnsupported tells whether a link(2) error means the file system has no
// hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}

// renameIfAbsent renames tmp to p unless p exists (not atomic: the fallback
// for file systems without hard links).
func renameIfAbsent(tmp, p string) error {
	if _, err := os.Lstat(p); err == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, p)
}

// syncDir fsyncs a directory so that a rename or link in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// listLocal lists the files of the run directory dir whose slash-separated
// names start with prefix, as fileblob would, but tolerating what other
// processes do meanwhile: an entry removed or renamed between the reading
// of its directory and its stat (a worker renaming its finished shard, a
// cache dropping a generation) is left out, not an error, and writes in
// progress (atomicfile.IsTemp) are skipped. The order is unspecified.
func listLocal(dir, prefix string) ([]ObjectInfo, error) {
	// Walk from the deepest directory that every match lies under.
	start := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = prefix[:i]
	}
	var out []ObjectInfo
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil // removed meanwhile, or not a directory
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if rel != "" {
				name = rel + "/" + name
			}
			if atomicfile.IsTemp(name) {
				continue
			}
			// Only names that can still match the prefix.
			if !strings.HasPrefix(name, prefix) && !strings.HasPrefix(prefix, name+"/") {
				continue
			}
			if e.IsDir() {
				if err := walk(name); err != nil {
					return err
				}
				continue
			}
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // renamed or removed since the directory was read
			}
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() {
				continue
			}
			out = append(out, ObjectInfo{Name: name, Size: info.Size(), ModTime: info.ModTime()})
		}
		return nil
	}
	if err := walk(start); err != nil {
		return nil, err
	}
	return out, nil
}
