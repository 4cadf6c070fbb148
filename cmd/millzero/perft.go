package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/engine"
)

func runPerft(args []string, out io.Writer) error {
	fs := newFlags("perft", "--variant V [--fen F | --position P] [--moves \"m1 m2 ...\"] [--divide] DEPTH",
		[]string{
			"millzero perft 6",
			"millzero perft --variant nine --moves \"d6 f4 d2\" --divide 3",
			"millzero perft --fen \"**@**@**/@@****@*/*O**OO** w m s 3 0 5 0 0 0 0 0 0 0 0 0 20\" 4",
			"millzero perft --variant moulin-rouge 4",
		}, out)
	variant := fs.String("variant", "nine", "variant name (millzero variants lists them)")
	fen := fs.String("fen", "", "start from this Sanmill FEN (24-point boards)")
	posStr := fs.String("position", "", "start from this position string (any board)")
	moves := fs.String("moves", "", "actions to play first, space separated (d6 f4 xd7 ...)")
	divide := fs.Bool("divide", false, "list each root action with its count at DEPTH")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one DEPTH argument, got %d", len(rest))
	}
	depth, err := strconv.Atoi(rest[0])
	if err != nil || depth < 1 || depth > 30 {
		return fmt.Errorf("depth %q: want a whole number 1..30", rest[0])
	}
	g, err := startGame(*variant, *fen, *posStr, *moves)
	if err != nil {
		return err
	}
	v := g.V
	if *divide {
		start := time.Now()
		actions, counts := v.PerftDivide(&g.Pos, depth, g.Hashes)
		var total uint64
		for i, a := range actions {
			fmt.Fprintf(out, "%s: %d\n", v.FormatAction(a), counts[i])
			total += counts[i]
		}
		el := time.Since(start)
		fmt.Fprintf(out, "perft(%d) = %d\n", depth, total)
		fmt.Fprintf(out, "time %.3fs, %.1f million nodes/s\n", el.Seconds(), float64(total)/el.Seconds()/1e6)
		return nil
	}
	var total uint64
	start := time.Now()
	for d := 1; d <= depth; d++ {
		n := v.Perft(&g.Pos, d, g.Hashes)
		total += n
		fmt.Fprintf(out, "perft(%d) = %d\n", d, n)
	}
	el := time.Since(start)
	fmt.Fprintf(out, "time %.3fs, %.1f million nodes/s (all depths)\n", el.Seconds(), float64(total)/el.Seconds()/1e6)
	return nil
}

// startGame builds a game of the named variant from a FEN or a position
// string (or the start), then plays the given actions.
func startGame(variant, fen, posStr, moves string) (*engine.Game, error) {
	v, err := engine.Load(variant)
	if err != nil {
		return nil, err
	}
	g := engine.NewGame(v)
	switch {
	case fen != "" && posStr != "":
		return nil, fmt.Errorf("give --fen or --position, not both")
	case fen != "":
		p, err := v.ParseFEN(fen)
		if err != nil {
			return nil, err
		}
		g = engine.NewGameFrom(v, p)
	case posStr != "":
		p, err := v.ParsePosition(posStr)
		if err != nil {
			return nil, err
		}
		g = engine.NewGameFrom(v, p)
	}
	for i, m := range strings.Fields(moves) {
		if err := g.PlayString(m); err != nil {
			return nil, fmt.Errorf("--moves, action %d: %w", i+1, err)
		}
	}
	return g, nil
}
