// Package proc names this process the way the run's writers need: its
// host, the boot and PID namespace its process ids mean something in, and
// whether a process id names a live process there. The lease and the
// temporary files of a run carry these names, so that a process can tell
// a writer that died from one that still runs.
package proc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
)

// Host is the host name ("unknown" when it cannot be read).
func Host() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}

// BootID returns the Linux kernel's boot id ("" elsewhere): two machines
// that share a host name have different ones, and a rebooted machine a new
// one.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// PIDNamespace returns this process's PID namespace ("pid:[4026531836]" on
// Linux, "" where it cannot be read): process ids are only comparable
// within one.
func PIDNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// space is Space's value, read once: a process does not change boot or
// namespace.
var space = sync.OnceValue(func() string {
	boot, ns := BootID(), PIDNamespace()
	if boot == "" || ns == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(boot + "\x00" + ns))
	return hex.EncodeToString(sum[:4])
})

// Space is a short name (8 hex digits) of this process's boot and PID
// namespace, "" when either is unknown: two processes of one host with the
// same Space can look each other's process ids up.
func Space() string { return space() }

// Alive tells whether a process with id pid exists here and has not
// exited (a killed process that its parent has not reaped yet, a zombie,
// is gone).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill's answer
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
