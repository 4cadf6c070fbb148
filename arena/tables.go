package arena

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/model"
)

// TablePosition is a position the endgame tables solve, with the moves
// that keep its value's outcome (a win stays a win, however slower; a
// draw stays a draw).
type TablePosition struct {
	Material tablebase.Material
	Pos      engine.Position
	Right    []engine.Action
}

// TableSample draws up to perMaterial positions of every material of s,
// the same for the same seed: random placements of the material, the
// first seat to move, no counters, kept when some legal move gives up the
// best outcome (where every move keeps it, no choice is measured).
func TableSample(s *tablebase.Set, perMaterial int, seed uint64) ([]TablePosition, error) {
	v := s.Variant()
	rng := rand.New(rand.NewPCG(seed, 0x7ab1e5))
	var out []TablePosition
	var moves []tablebase.Move
	for _, m := range s.Materials() {
		got := 0
		for try := 0; try < 200*perMaterial && got < perMaterial; try++ {
			p := engine.Position{LastRotation: engine.NoRotation}
			free := rng.Perm(v.Board.Points)
			for i := 0; i < m.Mover+m.Opponent; i++ {
				seat := 0
				if i >= m.Mover {
					seat = 1
				}
				p.Pieces[seat] |= 1 << free[i]
			}
			fen, err := v.FEN(&p)
			if err != nil {
				continue
			}
			if p, err = v.ParseFEN(fen); err != nil || p.Result != engine.Ongoing {
				continue
			}
			if moves, err = s.Moves(&p, moves); err != nil || len(moves) == 0 {
				continue
			}
			tp := TablePosition{Material: m, Pos: p}
			for _, mv := range moves {
				if mv.Value.Outcome == moves[0].Value.Outcome {
					tp.Right = append(tp.Right, mv.Action)
				}
			}
			if len(tp.Right) == len(moves) {
				continue
			}
			out = append(out, tp)
			got++
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tablebase %s: no position with a wrong move found in its materials %v", s.Dir(), s.Materials())
	}
	return out, nil
}

// TableAccuracy is a model's share of right moves in a material's sample:
// the network's first choice (the highest prior) and its search's choice.
type TableAccuracy struct {
	Material  string // "4v3": pieces of the side to move, then of the other
	Positions int
	Policy    int // positions whose highest prior is a right move
	Search    int // positions whose searched move is right
}

// MeasureTables plays net's first choice and its search at sims visits (a
// fresh tree each position, no noise) in every position of sample, and
// counts the right moves by material, in the sample's order, with the
// total last (material "all").
func MeasureTables(ctx context.Context, v *engine.Variant, sample []TablePosition, net *model.Network, sims int) ([]TableAccuracy, error) {
	fc, err := NewFirstChoice(v, net)
	if err != nil {
		return nil, err
	}
	player := NewSearchPlayer("oracle", ArenaSettings(sims), Evaluation{Net: net})
	var rows []TableAccuracy
	all := TableAccuracy{Material: "all"}
	for i := range sample {
		tp := &sample[i]
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := tp.Material.String()
		if len(rows) == 0 || rows[len(rows)-1].Material != name {
			rows = append(rows, TableAccuracy{Material: name})
		}
		row := &rows[len(rows)-1]
		first, err := fc.Choose(&tp.Pos, 0)
		if err != nil {
			return nil, err
		}
		gp, err := player.NewGame(v, uint64(i))
		if err != nil {
			return nil, err
		}
		searched, err := gp.Act(ctx, engine.NewGameFrom(v, tp.Pos))
		gp.Close()
		if err != nil {
			return nil, err
		}
		row.Positions++
		all.Positions++
		for _, a := range tp.Right {
			if a == first {
				row.Policy++
				all.Policy++
			}
			if a == searched {
				row.Search++
				all.Search++
			}
		}
	}
	return append(rows, all), nil
}

// WriteTableAccuracy prints rows as a table.
func WriteTableAccuracy(w io.Writer, sims int, rows []TableAccuracy) {
	fmt.Fprintf(w, "%-9s %9s %14s %20s\n", "material", "positions", "network right", fmt.Sprintf("search@%d right", sims))
	for _, r := range rows {
		fmt.Fprintf(w, "%-9s %9d %13.1f%% %19.1f%%\n", r.Material, r.Positions,
			100*float64(r.Policy)/float64(r.Positions), 100*float64(r.Search)/float64(r.Positions))
	}
}

// TableOracle measures net's move accuracy on perMaterial positions of
// each material of the tables s (TableSample's first seed) and prints it
// for player label.
func TableOracle(ctx context.Context, w io.Writer, s *tablebase.Set, label string, net *model.Network, sims, perMaterial int) error {
	sample, err := TableSample(s, perMaterial, 1)
	if err != nil {
		return err
	}
	rows, err := MeasureTables(ctx, s.Variant(), sample, net, sims)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s against the tables in %s (%d positions where some move gives up the best outcome):\n", label, s.Dir(), len(sample))
	WriteTableAccuracy(w, sims, rows)
	return nil
}
