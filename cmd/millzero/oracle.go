package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/solve"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
)

func runOracle(args []string, out io.Writer) error {
	fs := newFlags("oracle", "--run DIR [--generation N] [--sims N] [--untrained]", []string{
		"millzero oracle --run runs/three",
		"millzero oracle --run runs/three --generation 4 --sims 16",
		"millzero oracle --run runs/three --untrained    # the same network shape, random weights",
	}, out)
	runPath := fs.String("run", "", "run directory of a 3x3 variant (three, three-nodiagonal, three-cross)")
	gen := fs.Int("generation", -1, "model generation to test (default: the run's best)")
	sims := fs.Int("sims", 16, "search visits per move (fresh each move, no tree reuse)")
	untrained := fs.Bool("untrained", false, "test a randomly initialised network of the run's shape instead")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *runPath == "" {
		fs.Usage()
		return fmt.Errorf("want --run DIR")
	}
	if *sims < 1 {
		return fmt.Errorf("--sims %d: want 1 or more", *sims)
	}
	dir := runDir(*runPath)
	cfg, _, err := loadRunConfig(dir.config())
	if err != nil {
		return fmt.Errorf("run %s: %w", *runPath, err)
	}
	v, err := cfg.variant()
	if err != nil {
		return err
	}
	var net *model.Network
	label := ""
	if *untrained {
		net, err = model.New(v.Name, model.NewArch(v, cfg.Model), rand.New(rand.NewPCG(7, 7)))
		label = "untrained"
	} else {
		g := *gen
		if g < 0 {
			if g, err = dir.best(); err != nil {
				return fmt.Errorf("run %s: %w (give --generation)", *runPath, err)
			}
		}
		var ck *model.Checkpoint
		ck, err = model.LoadCheckpointFor(dir.model(g), v)
		if ck != nil {
			net = ck.Net
		}
		label = modelName(g)
	}
	if err != nil {
		return err
	}
	table, err := solve.Solve(v)
	if err != nil {
		return err
	}
	games, err := againstPerfect(context.Background(), table, networkPlayer(label, net, *sims))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s with %d simulations a move against the perfect player (%s, %d positions solved):\n", label, *sims, v.Name, table.Positions())
	fmt.Fprintf(out, "%-8s %-6s %-14s %-14s %s\n", "opening", "seat", "perfect play", "result", "moves")
	right := 0
	for _, g := range games {
		mark := ""
		if g.Got == g.Want {
			right++
		} else {
			mark = "  <- worse"
		}
		fmt.Fprintf(out, "%-8s %-6d %-14s %-14s %s%s\n", g.Opening, g.Seat, g.Want, g.Got, g.Moves, mark)
	}
	fmt.Fprintf(out, "%s reaches the game-theoretic result in %d of %d games\n", label, right, len(games))
	return nil
}

// networkPlayer searches with net: exactly sims fresh visits a move, no
// noise, the most visited action.
func networkPlayer(label string, net *model.Network, sims int) arena.Player {
	set := arena.ArenaSettings(sims)
	set.ReuseTree = false
	set.BatchSize = 1
	return &arena.SearchPlayer{Label: label, Settings: set,
		NewEvaluator: func(v *engine.Variant, seed uint64) (mcts.Evaluator, error) {
			return model.NewEvaluator(v, net, 1, false, seed)
		}}
}

// oracleGame is one game of a player against the perfect player.
type oracleGame struct {
	Opening   string        // the first action, played before the players take over ("start": none)
	Seat      int           // the tested player's seat
	Want, Got engine.Result // the game-theoretic result after the opening, and the game's
	Moves     string
}

// againstPerfect plays p against perfect play from the start and from every
// one-ply opening, on both seats.
func againstPerfect(ctx context.Context, t *solve.Table, p arena.Player) ([]oracleGame, error) {
	v := t.Variant()
	start := v.Start()
	openings := append([]engine.Action{0}, v.Legal(&start, nil)...)
	var out []oracleGame
	var buf [engine.MaxActions]engine.Action
	for i, first := range openings {
		for seat := 0; seat < 2; seat++ {
			g := engine.NewGame(v)
			name := "start"
			if i > 0 {
				name = v.FormatAction(first)
				if err := g.Play(first); err != nil {
					return nil, err
				}
			}
			want, err := t.Value(&g.Pos)
			if err != nil {
				return nil, err
			}
			gp, err := p.NewGame(v, uint64(i*2+seat))
			if err != nil {
				return nil, err
			}
			for {
				r, _ := g.Outcome()
				if r != engine.Ongoing {
					break
				}
				var a engine.Action
				if int(g.Pos.Side) == seat {
					a, err = gp.Act(ctx, g)
				} else {
					var best []engine.Action
					best, err = t.Best(&g.Pos, buf[:0])
					if err == nil && len(best) == 0 {
						err = errors.New("perfect player has no action")
					}
					if err == nil {
						a = best[0]
					}
				}
				if err == nil {
					err = g.Play(a)
				}
				if err != nil {
					gp.Close()
					return nil, err
				}
			}
			gp.Close()
			got, _ := g.Outcome()
			moves := make([]string, len(g.Actions))
			for k, a := range g.Actions {
				moves[k] = v.FormatAction(a)
			}
			out = append(out, oracleGame{Opening: name, Seat: seat, Want: want.Result, Got: got, Moves: strings.Join(moves, " ")})
		}
	}
	return out, nil
}
