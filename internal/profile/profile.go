// Package profile writes a CPU profile of the process (go tool pprof) to
// a file, complete or absent: under a temporary name while it runs,
// renamed when it stops.
package profile

import (
	"os"
	"runtime/pprof"

	"github.com/millzero/millzero/internal/atomicfile"
)

// StartCPU profiles the process into path ("": none) until stop is
// called, which writes the profile and renames it to path; on an error of
// stop the temporary file is removed and path is left as it was.
func StartCPU(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		err := f.Close()
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		return err
	}, nil
}
