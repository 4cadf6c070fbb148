// Package background starts a command that outlives the one that started
// it: in a session of its own at the lowest priority, its output appended
// to a log, watched for a moment so that a command that cannot start says
// why.
package background

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Start runs the program at path with args in the background (startDetached),
// its output appended to logPath, and watches it for grace. It returns the
// process's ID and done=false if it still runs then, done=true if it ended
// well before, or an error naming the log if it ended badly.
func Start(path string, args []string, logPath string, grace time.Duration) (pid int, done bool, err error) {
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, false, err
	}
	defer log.Close()
	fmt.Fprintf(log, "%s: %s %s, in the background\n", time.Now().Format(time.RFC3339), path, strings.Join(args, " "))
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := startDetached(cmd); err != nil {
		return 0, false, err
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case err := <-ended:
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			return 0, false, fmt.Errorf("the command ended at once (%v): %s (all its output is in %s)", exit, lastLine(logPath), logPath)
		}
		return cmd.Process.Pid, err == nil, err
	case <-time.After(grace):
		return cmd.Process.Pid, false, nil
	}
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
