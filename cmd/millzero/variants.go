package main

import (
	"fmt"
	"io"

	"github.com/millzero/millzero/engine"
)

func runVariants(args []string, out io.Writer) error {
	fs := newFlags("variants", "", []string{"millzero variants"}, out)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(out, "%-18s %-7s %-6s %-7s %-4s %s\n", "variant", "players", "points", "pieces", "fly", "description")
	for _, name := range engine.Names() {
		v, err := engine.Load(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-18s %-7d %-6d %-7d %-4d %s\n", name, v.Players, v.Board.Points, v.Pieces, v.FlyAt, v.Description)
	}
	return nil
}
