package main

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"time"

	"github.com/millzero/millzero/engine"
)

func runBench(args []string, out io.Writer) error {
	fs := newFlags("bench", "WHAT [--repeat N]", []string{
		"millzero bench engine",
		"millzero bench engine --repeat 5",
	}, out)
	repeat := fs.Int("repeat", 3, "measure this many times and report the best and the median")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one of: engine")
	}
	if *repeat < 1 {
		return fmt.Errorf("--repeat %d: want 1 or more", *repeat)
	}
	switch rest[0] {
	case "engine":
		return benchEngine(out, *repeat)
	}
	return fmt.Errorf("bench %q: want one of: engine", rest[0])
}

// benchEngine measures full-make perft of the nine start position at
// depth 6 on one core.
func benchEngine(out io.Writer, repeat int) error {
	runtime.GOMAXPROCS(1)
	v, err := engine.Load("nine")
	if err != nil {
		return err
	}
	p := v.Start()
	const depth = 6
	var rates []float64
	for i := 0; i < repeat; i++ {
		start := time.Now()
		n := v.Perft(&p, depth, nil)
		el := time.Since(start)
		rate := float64(n) / el.Seconds()
		rates = append(rates, rate)
		fmt.Fprintf(out, "run %d: perft(%d) = %d in %.3fs: %.1f million nodes/s\n", i+1, depth, n, el.Seconds(), rate/1e6)
	}
	sort.Float64s(rates)
	fmt.Fprintf(out, "engine: full-make perft, nine start, depth %d, one core: best %.1f, median %.1f million nodes/s\n",
		depth, rates[len(rates)-1]/1e6, rates[len(rates)/2]/1e6)
	return nil
}
