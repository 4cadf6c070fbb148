package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// The judge: the classical engine searching each of a player's actions,
// for Diagnose (every action of recorded games) and for the policy
// targets (TargetsBench.RunJudged). What a judgement holds and how the
// engine is asked is here; how Diagnose sums judgements up is in
// diagnose.go.

// judgement is the classical engine's judgement of one of the player's
// actions: the groups it counts in, the value it lost, whether it was a
// blunder and whether it was the engine's (and the network's) choice.
type judgement struct {
	phase, action, material, ply int     // the groups' indices
	lost, above                  float64 // pieces: the value lost; the played action's score above the best's
	best                         int     // the engine's score of the position, hundredths of a piece for the mover (beyond ±classic.Decisive a win or loss)
	blunder, agree, modelAgree   bool
}

// judgedGame is a game to judge: the player's seat, the actions and the
// player's material at the end (its pieces on the board and in hand less
// the opponent's).
type judgedGame struct {
	rec     *arena.Record
	seat    int
	actions []engine.Action
	endLead int
}

// judgeAll judges the games on workers, each with its own engine, and
// returns each game's judged actions in the games' order.
func (d *Diagnose) judgeAll(ctx context.Context, v *engine.Variant, net *model.Network, wt *classic.Weights, games []judgedGame, depth int, capPieces float64, onGame func(done, total int)) ([][]judgement, error) {
	workers := d.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	judges := make([]*judge, max(min(workers, len(games)), 1))
	for w := range judges {
		var err error
		if judges[w], err = d.newJudge(v, net, wt, depth, capPieces); err != nil {
			return nil, err
		}
	}
	free := make(chan *judge, len(judges)) // the judges not judging a game
	for _, j := range judges {
		free <- j
	}
	grp, gctx := errgroup.WithContext(ctx)
	grp.SetLimit(len(judges))
	out := make([][]judgement, len(games))
	var mu sync.Mutex // serializes onGame
	done := 0
	for i := range games {
		grp.Go(func() error {
			if gctx.Err() != nil {
				return nil // stopping: the error that stops it is the group's
			}
			j := <-free
			defer func() { free <- j }()
			moves, err := j.game(gctx, &games[i])
			if err != nil {
				r := games[i].rec
				return fmt.Errorf("diagnose match %s, pair %d, game %d: %w", r.Match, r.Pair, r.Game, err)
			}
			out[i] = moves
			if onGame != nil {
				mu.Lock()
				done++
				onGame(done, len(games))
				mu.Unlock()
			}
			return nil
		})
	}
	err := grp.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("diagnose: %w", ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// judge is one worker's engine and network.
type judge struct {
	v     *engine.Variant
	s     *classic.Searcher
	first *arena.FirstChoice // nil without a model
	depth int
	cap   int // hundredths of a piece
}

func (d *Diagnose) newJudge(v *engine.Variant, net *model.Network, w *classic.Weights, depth int, capPieces float64) (*judge, error) {
	s, err := classic.New(v, classic.Options{HashMB: d.HashMB, NoContempt: true, Weights: w})
	if err != nil {
		return nil, err
	}
	j := &judge{v: v, s: s, depth: depth, cap: int(capPieces*100 + 0.5)}
	if net != nil {
		if j.first, err = arena.NewFirstChoice(v, net); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// game judges the player's actions after the opening of one game, with a
// fresh engine table.
func (j *judge) game(ctx context.Context, dg *judgedGame) ([]judgement, error) {
	j.s.NewGame()
	g := engine.NewGame(j.v)
	var moves []judgement
	for i, a := range dg.actions {
		if i >= int(dg.rec.Opening) && int(g.Pos.Side) == dg.seat {
			m, err := j.action(ctx, g, a)
			if err != nil {
				return nil, fmt.Errorf("action %d: %w", i+1, err)
			}
			moves = append(moves, m)
		}
		if err := g.Play(a); err != nil {
			return nil, fmt.Errorf("action %d: %w", i+1, err)
		}
	}
	return moves, nil
}

// action judges a, played in g's position.
func (j *judge) action(ctx context.Context, g *engine.Game, a engine.Action) (judgement, error) {
	p := g.Pos
	side := int(p.Side)
	m := judgement{phase: phaseOf(j.v, &p), action: int(a.Kind()), // actionGroups is in the order of the kinds
		material: materialOf(&p), ply: min(int(p.Ply)/20, len(plyGroups)-1)}
	res, err := j.s.Search(ctx, g, classic.Limits{Depth: j.depth}, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return m, err
	}
	if j.first != nil {
		choice, err := j.first.Choose(&p, j.v.Repetitions(&p, g.Hashes))
		if err != nil {
			return m, err
		}
		m.modelAgree = choice == res.Best
	}
	best, played := res.Score, res.Score
	m.best = best
	m.agree = a == res.Best
	if !m.agree {
		if err := g.Play(a); err != nil {
			return m, err
		}
		played, err = j.after(ctx, g, side)
		g.Undo()
		if err != nil {
			return m, err
		}
	}
	m.blunder = best >= -classic.Decisive && played < -classic.Decisive
	b, pl := min(max(best, -j.cap), j.cap), min(max(played, -j.cap), j.cap)
	m.lost, m.above = float64(max(b-pl, 0))/100, float64(max(pl-b, 0))/100
	return m, nil
}

// after is the score of g's position for side, who has just acted: the
// result of a finished game, else the search's at a ply less than the
// position before.
func (j *judge) after(ctx context.Context, g *engine.Game, side int) (int, error) {
	if r, _ := g.Outcome(); r != engine.Ongoing {
		if seat, ok := r.Winner(); ok && seat == side {
			return classic.Decisive + 1, nil
		} else if ok {
			return -classic.Decisive - 1, nil
		}
		return 0, nil
	}
	res, err := j.s.Search(ctx, g, classic.Limits{Depth: max(j.depth-1, 1)}, nil)
	if err == nil {
		err = ctx.Err()
	}
	if int(g.Pos.Side) != side {
		res.Score = -res.Score
	}
	return res.Score, err
}

// phaseOf is the phase of p's side to move: placing while it has
// pieces in hand (0), then moving (1), flying when the variant lets it
// (2).
func phaseOf(v *engine.Variant, p *engine.Position) int {
	switch side := int(p.Side); {
	case p.Hand[side] > 0:
		return 0
	case v.CanFly(p, side):
		return 2
	}
	return 1
}

// materialOf is the bucket of p's material for its side to move: its
// pieces on the board and in hand less the opponent's, -3 or less to 3 or
// more.
func materialOf(p *engine.Position) int {
	side := int(p.Side)
	diff := p.PiecesLeft(side) - p.PiecesLeft(1-side)
	return min(max(diff, -3), 3) + 3
}
