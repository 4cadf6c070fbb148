package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/millzero/millzero/play"
)

func runEngine(args []string, out io.Writer) error {
	return engineMain(args, os.Stdin, out)
}

// engineMain is the engine command reading the protocol from in: the
// player of --model or --run served by uci.Server.
func engineMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("engine", "[--model FILE | --run DIR | --classic] [--variant V] [--sims N]",
		[]string{
			"millzero engine --variant three --sims 200",
			"millzero engine --run runs/nine",
			"millzero arena \"engine:bin/millzero engine --run runs/nine\" alphabeta:4 --movetime 500ms --games 10",
			"printf 'uci\\nisready\\nposition startpos moves d6 f4\\ngo movetime 500\\nquit\\n' | millzero engine",
			"printf 'setoption name PiecesCount value 12\\nsetoption name HasDiagonalLines value true\\ngo nodes 800\\nquit\\n' | millzero engine",
			"printf 'uci\\nisready\\nposition startpos\\ngo movetime 1000\\nquit\\n' | millzero engine --classic",
			"printf 'position startpos moves d6 f4\\ngo depth 12\\nquit\\n' | millzero engine --classic --tablebase auto",
		}, out)
	var pc play.PlayerConfig
	addPlayerFlags(fs, &pc)
	classicFlag := fs.Bool("classic", false, "serve the classical engine (alpha-beta with a transposition table, no network) instead of a model: go depth N, movetime MS, nodes N or infinite; a go without a limit thinks a second")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", rest[0])
	}
	if err := checkVisits("sims", pc.Sims); err != nil {
		return err
	}
	if pc.Views < 1 {
		return fmt.Errorf("--orientations %d: want 1 or more (up to the variant's symmetries)", pc.Views)
	}
	if *classicFlag {
		if pc.Model != "" || pc.Run != "" {
			return fmt.Errorf("--classic plays without a network: give no --model or --run")
		}
		return play.ClassicServer(&pc).Serve(context.Background(), in, out)
	}
	return play.EngineServer(&pc).Serve(context.Background(), in, out)
}
