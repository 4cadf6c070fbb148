// Package textline reads the lines of a line-based text protocol with a
// bound on their length, and cuts what an answer quotes of them: what the
// engine protocol's server and its client both need, so a peer's line of
// a megabyte is neither held whole nor sent back.
package textline

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// ErrTooLong is returned by Read for a line longer than its bound.
var ErrTooLong = errors.New("line too long")

// Read reads one line of r into buf, without its end. A line longer than
// max is read to its end and comes back cut to its first bytes, with
// ErrTooLong. At the end of r it returns the last line, if it has no end,
// with io.EOF.
func Read(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
	long := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			buf = append(buf, chunk...)
			if n := len(bytes.TrimSuffix(buf, []byte("\n"))); n > max {
				long, buf = true, buf[:min(len(buf), 80)]
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return buf, err
		}
		if long {
			return buf, ErrTooLong
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

// Clip is s cut to at most n bytes (on a rune boundary), with "..." after
// a cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
