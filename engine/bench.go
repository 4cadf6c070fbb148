package engine

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"
)

// BenchMovingPhase is the moving-phase position of BenchPerft: nine
// after 18 placements that formed no mill (the second perft table of issue
// 2), played as a game so that perft has its history.
const BenchMovingPhase = "d6 f4 d2 b4 g4 d7 a4 d1 e4 d5 c4 d3 f6 b6 b2 f2 g7 g1"

// BenchPerft measures full-make perft of nine on one core (GOMAXPROCS 1
// while it runs), repeat times each: the start position at startDepth
// (placing, with its removals) and BenchMovingPhase at movingDepth, and
// prints every run and the best and median rates to out.
func BenchPerft(out io.Writer, repeat, startDepth, movingDepth int) error {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	v, err := Load("nine")
	if err != nil {
		return err
	}
	moving := NewGame(v)
	for _, m := range strings.Fields(BenchMovingPhase) {
		if err := moving.PlayString(m); err != nil {
			return fmt.Errorf("bench engine: moving-phase position: %w", err)
		}
	}
	start := v.Start()
	for _, c := range []struct {
		what    string
		p       *Position
		history []uint64
		depth   int
	}{
		{"nine start", &start, nil, startDepth},
		{"nine moving phase (18 placements played)", &moving.Pos, moving.Hashes, movingDepth},
	} {
		var rates []float64
		for i := 0; i < repeat; i++ {
			t0 := time.Now()
			n := v.Perft(c.p, c.depth, c.history)
			el := time.Since(t0)
			rate := float64(n) / el.Seconds()
			rates = append(rates, rate)
			fmt.Fprintf(out, "run %d: perft(%d) = %d in %.3fs: %.1f million nodes/s\n", i+1, c.depth, n, el.Seconds(), rate/1e6)
		}
		sort.Float64s(rates)
		fmt.Fprintf(out, "engine: full-make perft, %s, depth %d, one core: best %.1f, median %.1f million nodes/s\n",
			c.what, c.depth, rates[len(rates)-1]/1e6, rates[len(rates)/2]/1e6)
	}
	return nil
}
