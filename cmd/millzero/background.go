package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// backgroundGrace is how long a command sent to the background is watched
// before it is left to itself: long enough for a bad config or a held lease
// to end it, whose error is then the command's own.
const backgroundGrace = 3 * time.Second

// detach runs this command again, as fs parsed it less --background, in the
// background: in a session of its own at the lowest priority
// (startDetached), its output appended to logPath. It returns once
// the command has run for backgroundGrace, with the process's ID printed on
// out, or with its error if it ended before.
func detach(fs *flag.FlagSet, logPath string, out io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--background: %w", err)
	}
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "background" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	args = append([]string{fs.Name()}, args...)
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("--background %s: %w", logPath, err)
	}
	defer log.Close()
	fmt.Fprintf(log, "%s: millzero %s, in the background\n", time.Now().Format(time.RFC3339), strings.Join(args, " "))
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = log, log
	done := make(chan error, 1)
	if err := startDetached(cmd); err != nil {
		return fmt.Errorf("--background: %w", err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			fmt.Fprintf(out, "done in the background already; its output is in %s\n", logPath)
			return nil
		}
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			return fmt.Errorf("--background: the command ended at once (%v): %s (all its output is in %s)", exit, lastLine(logPath), logPath)
		}
		return fmt.Errorf("--background: %w", err)
	case <-time.After(backgroundGrace):
	}
	fmt.Fprintf(out, "in the background as process %d, its output appended to %s; stop it with kill %d (it finishes nothing half-way) and run the same command to go on\n",
		cmd.Process.Pid, logPath, cmd.Process.Pid)
	return nil
}

// lastLine is the last line of the file at path, or "" if it cannot be read.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return lines[len(lines)-1]
}
