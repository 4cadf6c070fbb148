//go:build unix

package background

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// lowest is the nice level of a command in the background.
const lowest = 19

// startDetached starts cmd in a session of its own at nice 19: forked from a
// thread set to nice 19, so every thread of it starts there, and on Linux
// with autogroup scheduling its session's group set to nice 19 as well (the
// kernel shares the CPU first between sessions, so a process's own nice
// orders it only within its session).
func startDetached(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	started := make(chan error, 1)
	go func() {
		// The thread is never unlocked: it ends with the goroutine, its nice
		// with it.
		runtime.LockOSThread()
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, 0, lowest); err != nil {
			started <- fmt.Errorf("nice %d: %w", lowest, err)
			return
		}
		started <- cmd.Start()
	}()
	if err := <-started; err != nil {
		return err
	}
	err := os.WriteFile(fmt.Sprintf("/proc/%d/autogroup", cmd.Process.Pid), []byte(fmt.Sprint(lowest)), 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // no /proc/PID/autogroup: no autogroups
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("autogroup nice %d of process %d: %w", lowest, cmd.Process.Pid, err)
	}
	return nil
}
