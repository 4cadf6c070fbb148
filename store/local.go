package store

import (
	"errors"
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
// between processes, and which does not fsync). They go through
// atomicfile: a hidden temporary file in the target's directory, unique to
// the writer (atomicfile.TempName, skipped by List), fsynced and closed,
// then hard-linked to its name for a write-once object (link(2) fails when
// the name exists, atomically, also between processes and over NFS) or
// renamed over it for a replaced one, and the directory fsynced.

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
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	write := func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	}
	if once {
		return atomicfile.WriteOnce(p, write)
	}
	return atomicfile.Write(p, write)
}

// downloadTo writes r, an object being read from the store, to the file
// path whole (atomicfile.Write). r's errors are returned as they are (a
// retry may mend them); the local file system's are localError.
func downloadTo(path string, r io.Reader) error {
	var rerr error
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, readErrors{r, &rerr})
		return err
	})
	if err != nil && rerr != nil && errors.Is(err, rerr) {
		return err
	}
	if err != nil {
		return localError{err}
	}
	return nil
}

// readErrors keeps its reader's last error in *err.
type readErrors struct {
	r   io.Reader
	err *error
}

func (r readErrors) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		*r.err = err
	}
	return n, err
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
