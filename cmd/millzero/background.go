package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/millzero/millzero/internal/background"
)

// detach runs this command again, as fs parsed it less --background, in the
// background (background.Start), its output appended to logPath, and prints
// the process's ID on out.
func detach(fs *flag.FlagSet, logPath string, out io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--background: %w", err)
	}
	args := []string{fs.Name()}
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "background" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	// Long enough for a bad config or a held lease to end it.
	pid, done, err := background.Start(self, args, logPath, 3*time.Second)
	switch {
	case err != nil:
		return fmt.Errorf("--background %s: %w", logPath, err)
	case done:
		fmt.Fprintf(out, "done in the background already; its output is in %s\n", logPath)
	default:
		fmt.Fprintf(out, "in the background as process %d, its output appended to %s; stop it with kill %d (it finishes nothing half-way) and run the same command to go on\n",
			pid, logPath, pid)
	}
	return nil
}
