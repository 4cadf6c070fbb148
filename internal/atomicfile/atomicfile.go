// Package atomicfile writes files whole or not at all: through a temporary
// file next to the target, synced and renamed, created with the mode the
// user's umask gives. Checkpoints, metrics and endgame tables are written
// with it.
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
)

// TempSuffix ends the name of every file being written, in every writer of
// a run (CreateTemp's ".BASE.RANDOM.tmp", a shard's NAME.parquet.tmp, an
// arena record's NAME.tmp): the one rule by which every lister of a run
// (a local store, an object store, the shards of a generation, status)
// leaves out writes in progress. A file whose name ends so is never
// complete data.
const TempSuffix = ".tmp"

// IsTemp tells whether name (a path, slash- or OS-separated, or a base
// name) is a write in progress: its base name ends in TempSuffix.
func IsTemp(name string) bool {
	return strings.HasSuffix(path.Base(filepath.ToSlash(name)), TempSuffix)
}

// Write writes a file through a temporary file in the same
// directory, synced and renamed when write has succeeded, so path holds the
// old file or the whole new one, never half of it.
func Write(path string, write func(io.Writer) error) error {
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
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// CreateTemp creates a new temporary file next to path, named
// ".BASE.RANDOM.tmp", for writing. Unlike os.CreateTemp (mode 0600) it
// asks for mode 0666, so the file, once renamed to path, has the mode the
// user's umask gives a new file (0644 under the usual 022): a second user
// or a container with another uid can read the run.
func CreateTemp(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), "."+filepath.Base(path)+"."
	for range 100 {
		name := filepath.Join(dir, base+strconv.FormatUint(rand.Uint64(), 36)+TempSuffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file for %s: 100 names taken", path)
}
