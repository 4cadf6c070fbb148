package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/internal/version"
	"github.com/millzero/millzero/run"
)

func runEngine(args []string, out io.Writer) error {
	return engineMain(args, os.Stdin, out)
}

// engineMain is the engine command reading the protocol from in: the
// player of --model or --run served by arena.Server.
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
	var pc playerConfig
	addPlayerFlags(fs, &pc)
	classicFlag := fs.Bool("classic", false, "serve the classical engine (alpha-beta with a transposition table, no network) instead of a model: go depth N, movetime MS, nodes N or infinite; a go without a limit thinks a second")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", rest[0])
	}
	if pc.Sims < 1 || pc.Sims > arena.MaxVisits {
		return fmt.Errorf("--sims %d: want 1..%d (the most visits a move may take)", pc.Sims, arena.MaxVisits)
	}
	if pc.Views < 1 {
		return fmt.Errorf("--orientations %d: want 1 or more (up to the variant's symmetries)", pc.Views)
	}
	if *classicFlag {
		if pc.Model != "" || pc.Run != "" {
			return fmt.Errorf("--classic plays without a network: give no --model or --run")
		}
		return classicServer(&pc).Serve(context.Background(), in, out)
	}
	return engineServer(&pc).Serve(context.Background(), in, out)
}

// classicServer serves the classical engine in the variant of pc (or the
// Variant option's), with pc's endgame tables when that variant is pc's.
func classicServer(pc *playerConfig) *arena.Server {
	load := func(o arena.EngineOptions) (arena.Engine, error) {
		v, err := modelSource{}.variantFor(o.Variant)
		if err == nil {
			v, err = o.ApplyRules(v)
		}
		if err != nil {
			return arena.Engine{}, err
		}
		p := arena.Classic{MoveTime: time.Second}
		if pc.Tables != "" {
			set, err := openTablesFlag(v, pc.Tables)
			if err != nil {
				return arena.Engine{}, err
			}
			p.Tables = set
		}
		if o.Model != "" || o.Run != "" {
			return arena.Engine{}, fmt.Errorf("the classical engine takes no Model or Run")
		}
		return arena.Engine{Variant: v, Player: p, Desc: "the classical engine"}, nil
	}
	return &arena.Server{Name: "millzero classic", Load: load, Options: arena.EngineOptions{
		Variant: pc.Variant, Visits: pc.Sims, Threads: 1, Seed: pc.Seed}}
}

// engineServer serves the player of pc, whose settings are the options
// defaults.
func engineServer(pc *playerConfig) *arena.Server {
	var loaded struct { // the last model loaded, so that each setoption does not load it again
		model, run string
		src        *modelSource
	}
	load := func(o arena.EngineOptions) (arena.Engine, error) {
		c := *pc
		c.Variant, c.Model, c.Run, c.Sims, c.Seed = o.Variant, o.Model, o.Run, o.Visits, o.Seed
		if loaded.src == nil || loaded.model != c.Model || loaded.run != c.Run {
			src, err := loadSource(c)
			if err != nil {
				return arena.Engine{}, err
			}
			loaded.model, loaded.run, loaded.src = c.Model, c.Run, &src
		}
		src := *loaded.src
		if named, err := run.LoadVariant(c.Variant); c.Variant != "" && err == nil {
			src = src.withoutBuiltin(named)
		}
		v, err := src.variantFor(c.Variant)
		if err == nil {
			v, err = o.ApplyRules(v)
		}
		if err == nil {
			src = src.withoutBuiltin(v)
		}
		if err == nil && src.ck != nil {
			err = src.ck.CheckVariant(v)
		}
		if err != nil {
			return arena.Engine{}, err
		}
		if c.Sims < 1 {
			return arena.Engine{}, fmt.Errorf("sims %d: want 1 or more", c.Sims)
		}
		p, err := searchPlayer(v, src, c.Sims, c.Views)
		if err != nil {
			return arena.Engine{}, err
		}
		if p.Prover, err = tablesFor(v, c.Tables); err != nil {
			return arena.Engine{}, err
		}
		return arena.Engine{Variant: v, Player: p, Desc: "model: " + p.Name()}, nil
	}
	return &arena.Server{Name: "millzero " + version.Version(), Load: load, Options: arena.EngineOptions{
		Variant: pc.Variant, Model: pc.Model, Run: pc.Run, Visits: pc.Sims, Threads: 1, Seed: pc.Seed}}
}
