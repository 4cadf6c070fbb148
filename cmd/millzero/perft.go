package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/millzero/millzero/engine"
)

func runPerft(args []string, out io.Writer) error {
	fs := newFlags("perft", "[--variant V] [--fen F | --position P] [--moves \"m1 m2 ...\"] [--divide] DEPTH",
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
	if *fen != "" && *posStr != "" {
		return fmt.Errorf("give --fen or --position, not both")
	}
	v, err := engine.Load(*variant)
	if err != nil {
		return err
	}
	g, err := engine.NewGameAt(v, *fen, *posStr)
	if err != nil {
		return err
	}
	if err := g.PlayAll(*moves); err != nil {
		return fmt.Errorf("--moves, %w", err)
	}
	if *divide {
		g.WritePerftDivide(out, depth)
	} else {
		g.WritePerft(out, depth)
	}
	return nil
}
