package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

func runEngine(args []string, out io.Writer) error {
	return engineMain(args, os.Stdin, out)
}

// engineMain is the engine command reading the protocol from in: the
// player of --model or --run served by arena.Server.
func engineMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("engine", "[--model FILE | --run DIR] [--variant V] [--sims N]",
		[]string{
			"millzero engine --variant three --sims 200",
			"millzero engine --run runs/nine",
			"millzero arena \"engine:bin/millzero engine --run runs/nine\" alphabeta:4 --movetime 500ms --games 10",
			"printf 'uci\\nisready\\nposition startpos moves d6 f4\\ngo movetime 500\\nquit\\n' | millzero engine",
		}, out)
	var pc playerConfig
	addPlayerFlags(fs, &pc)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", rest[0])
	}
	return engineServer(&pc).Serve(context.Background(), in, out)
}

// engineServer serves the player of pc; setoption changes pc.
func engineServer(pc *playerConfig) *arena.Server {
	empty := func(s string) string {
		if s == "" {
			return "<empty>"
		}
		return s
	}
	srv := &arena.Server{
		Name: "millzero", Seed: pc.Seed,
		// The defaults are the settings from the command line.
		Options: []string{
			"name variant type string default " + empty(pc.Variant),
			"name model type string default " + empty(pc.Model),
			"name run type string default " + empty(pc.Run),
			fmt.Sprintf("name sims type spin default %d min 1 max 100000000", pc.Sims), // the visits of a go without limits
			fmt.Sprintf("name seed type spin default %d min 0 max 9223372036854775807", pc.Seed),
		},
	}
	srv.SetOption = func(name, val string) error {
		switch name {
		case "variant":
			if _, err := engine.Load(val); err != nil {
				return fmt.Errorf("setoption variant: %w", err)
			}
			pc.Variant = val
		case "model":
			pc.Model = val
		case "run":
			pc.Run = val
		case "sims", "simulations", "visits":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return fmt.Errorf("setoption sims %q: want a whole number 1 or more", val)
			}
			pc.Sims = n
		case "seed":
			n, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return fmt.Errorf("setoption seed %q: want a whole number 0 or more", val)
			}
			pc.Seed, srv.Seed = n, n
		default:
			return fmt.Errorf("setoption: unknown option %q (the options: variant, model, run, sims, seed)", name)
		}
		return nil
	}
	srv.Load = func() (arena.Engine, error) {
		src, err := loadSource(*pc)
		if err != nil {
			return arena.Engine{}, err
		}
		v, err := src.variantFor(pc.Variant)
		if err != nil {
			return arena.Engine{}, err
		}
		if pc.Sims < 1 {
			return arena.Engine{}, fmt.Errorf("sims %d: want 1 or more", pc.Sims)
		}
		p := searchPlayer(src, pc.Sims)
		if p.Prover, err = tablesFor(v, pc.Tables); err != nil {
			return arena.Engine{}, err
		}
		return arena.Engine{Variant: v, Player: p, Desc: "model: " + p.Name()}, nil
	}
	return srv
}
