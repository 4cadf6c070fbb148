package model

import (
	"io"
	"os"

	"github.com/millzero/millzero/internal/atomicfile"
)

// WriteFileAtomic writes a file through a temporary file in the same
// directory, synced and renamed when write has succeeded, so path holds the
// old file or the whole new one, never half of it (atomicfile.Write).
// Checkpoints, exported models and the run's metrics are written with it.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}

// CreateTemp creates a new temporary file next to path for writing, with
// the mode the user's umask gives a new file (atomicfile.CreateTemp).
func CreateTemp(path string) (*os.File, error) { return atomicfile.CreateTemp(path) }
