// Package atomicfile writes files whole or not at all: through a temporary
// file next to the target, synced, then renamed over the target (Write)
// or hard-linked to it only if it does not exist (WriteOnce), created with
// the mode the user's umask gives. Every file of a run is written with it.
//
// A temporary file's name is unique to its writer and says who that is
// (TempName): so two processes never write one temporary file, and a
// process that resumes a run tells the leftovers of a writer that died
// (Abandoned, Sweep) from the files a live writer is still writing.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/millzero/millzero/internal/proc"
)

// TempSuffix ends the name of every file being written, in every writer of
// a run: the one rule by which every lister of a run (a local store, an
// object store, the shards of a generation, status) leaves out writes in
// progress. A file whose name ends so is never complete data.
const TempSuffix = ".tmp"

// IsTemp tells whether name (a path, slash- or OS-separated, or a base
// name) is a write in progress: its base name ends in TempSuffix.
func IsTemp(name string) bool {
	return strings.HasSuffix(path.Base(filepath.ToSlash(name)), TempSuffix)
}

// sep separates the fields of a temporary name; sanitised host names
// never hold it.
const sep = "~"

// TempName is a new temporary name next to path, unique to this process:
// ".BASE~RANDOM~PID~SPACE~HOST.tmp" (proc.Space, proc.Host), hidden, and
// ending in TempSuffix.
func TempName(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+sep+strconv.FormatUint(rand.Uint64(), 36)+sep+
		strconv.Itoa(os.Getpid())+sep+proc.Space()+sep+sanitize(proc.Host())+TempSuffix)
}

// sanitize keeps a host name to letters, digits, dots and dashes.
func sanitize(host string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, host)
}

// Writer is who writes a temporary file, as its name says.
type Writer struct {
	Host  string // sanitised host name
	Space string // proc.Space of the writer ("" unknown)
	PID   int
}

// WriterOf is the writer a temporary name (TempName's form) names, and
// whether name is of that form.
func WriterOf(name string) (Writer, bool) {
	base, ok := strings.CutSuffix(filepath.Base(name), TempSuffix)
	if !ok {
		return Writer{}, false
	}
	f := strings.Split(base, sep)
	if len(f) < 5 {
		return Writer{}, false
	}
	f = f[len(f)-4:] // RANDOM, PID, SPACE, HOST
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return Writer{}, false
	}
	return Writer{Host: f[3], Space: f[2], PID: pid}, true
}

// Abandoned tells whether the temporary file path, last modified at mod,
// is a dead writer's: its name says it was written by a process of this
// host, boot and PID namespace that no longer runs, or (whoever wrote it,
// and for names of another form) it was last modified more than age ago.
func Abandoned(path string, mod time.Time, age time.Duration) bool {
	if w, ok := WriterOf(path); ok && w.Space != "" && w.Space == proc.Space() && w.Host == sanitize(proc.Host()) {
		if w.PID != os.Getpid() && !proc.Alive(w.PID) {
			return true
		}
	}
	return time.Since(mod) > age
}

// Sweep removes the abandoned temporary files (Abandoned) directly in dir
// and returns how many; a missing dir has none.
func Sweep(dir string, age time.Duration) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !Abandoned(e.Name(), info.ModTime(), age) {
			continue // gone meanwhile, or still being written
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}

// CreateTemp creates a new temporary file next to path (TempName) for
// writing. Unlike os.CreateTemp (mode 0600) it asks for mode 0666, so the
// file, once renamed to path, has the mode the user's umask gives a new
// file (0644 under the usual 022): a second user or a container with
// another uid can read the run.
func CreateTemp(path string) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(TempName(path), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file for %s: 100 names taken", path)
}

// Write writes the file path whole: write fills a temporary file next to
// it, which is synced and renamed over path, and the directory synced; so
// path holds the old file or the whole new one, never half of it. The
// directory must exist.
func Write(path string, write func(io.Writer) error) error {
	return writeFile(path, write, false)
}

// WriteFile is Write of data.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteOnce is Write for a file that is written once: when path exists it
// is left as it is and the error matches fs.ErrExist. The temporary file
// is hard-linked to path, which fails atomically when path exists, also
// between processes; on a file system without hard links it falls back to
// a check and a rename, which two writers of one name at once could both
// pass.
func WriteOnce(path string, write func(io.Writer) error) error {
	if _, err := os.Lstat(path); err == nil {
		return &fs.PathError{Op: "write once", Path: path, Err: fs.ErrExist}
	}
	return writeFile(path, write, true)
}

// writeFile is Write, or WriteOnce with once. Errors are the file
// system's, which name the file.
func writeFile(path string, write func(io.Writer) error, once bool) error {
	tmp, err := CreateTemp(path)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	w := bufio.NewWriterSize(tmp, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return Publish(tmp.Name(), path, once)
}

// Publish moves the finished temporary file tmp to path: renamed over it,
// or with once hard-linked to it unless path exists (an error matching
// fs.ErrExist, path left as it was). The directory is synced.
func Publish(tmp, path string, once bool) error {
	var err error
	if once {
		err = publishOnce(tmp, path)
		if err == nil {
			os.Remove(tmp)
		}
	} else {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// publishOnce links tmp to path unless path exists.
func publishOnce(tmp, path string) error {
	err := os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) && linkUnsupported(err) {
		if _, serr := os.Lstat(path); serr == nil {
			return &fs.PathError{Op: "write once", Path: path, Err: fs.ErrExist}
		}
		return os.Rename(tmp, path)
	}
	return err
}

// linkUnsupported tells whether a link(2) error means the file system has no
// hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}

// SyncDir fsyncs a directory so that a rename or link in it is durable.
func SyncDir(dir string) error {
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
