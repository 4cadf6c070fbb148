package main

import (
	"strings"
	"testing"
)

func TestArena_ThreeAndFourPlayerVariantsPlayEveryRotation(t *testing.T) {
	for _, c := range []struct {
		variant string
		seats   int
	}{{"moulin-rouge-3", 3}, {"moulin-rouge-4", 4}} {
		code, out, errOut := runCmd("arena", "alphabeta:1", "random", "--variant", c.variant, "--pairs", "2", "--workers", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s\n%s", c.variant, code, errOut, out)
		}
		// The first game of an opening seats alphabeta:1 first, then copies of random.
		lineup := "alphabeta:1" + strings.Repeat(" vs random", c.seats-1)
		for _, want := range []string{lineup, "1st", "alphabeta:1", "random"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", c.variant, want, out)
			}
		}
		if n := strings.Count(out, " plies\n"); n != 2*c.seats {
			t.Errorf("%s: %d games, want %d (2 openings, %d seatings each):\n%s", c.variant, n, 2*c.seats, c.seats, out)
		}
	}
}
