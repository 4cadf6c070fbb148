package textline

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRead_ALongLineIsReadToItsEndAndRefused(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 200) + "\nnext\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	var got []string
	var errs []error
	for {
		line, err := Read(r, nil, 100)
		got, errs = append(got, string(line)), append(errs, err)
		if err == io.EOF {
			break
		}
	}
	if len(got) != 4 || got[0] != "short" || got[2] != "next" || got[3] != "last" {
		t.Fatalf("lines %q, want short, the long one, next, last", got)
	}
	if !errors.Is(errs[1], ErrTooLong) || len(got[1]) > 80 {
		t.Errorf("the long line: %d bytes, %v; want at most 80 and ErrTooLong", len(got[1]), errs[1])
	}
	if errs[0] != nil || errs[2] != nil || errs[3] != io.EOF {
		t.Errorf("errors %v, want nil, ErrTooLong, nil, io.EOF", errs)
	}
}

func TestClip_CutsOnARuneBoundary(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 3, "abc..."},
		{"aé", 2, "a..."}, // é is two bytes: the cut falls inside it
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
