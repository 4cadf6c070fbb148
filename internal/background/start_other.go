//go:build !unix

package background

import (
	"errors"
	"os/exec"
)

// startDetached has no session to start cmd in on this system.
func startDetached(*exec.Cmd) error {
	return errors.New("not on this system: start the command in the background with the system's own tools")
}
