package run

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/store"
)

// strengthHeader is the columns of metrics/strength.csv: one row per
// yardstick per measurement. thrown_endgames (arena.ThrownEndgames) is
// empty in a run without tables.
var strengthHeader = []string{"generation", "hours", "model", "opponent", "games", "score", "elo", "low", "high", "blockade_losses", "thrown_endgames"}

// strength measures the best model (generation best, after generation g)
// when strength.every_hours have passed since the last measurement, and
// appends its rows to metrics/strength.csv. Two-player variants only: the
// yardsticks are two-player searches.
func (l *Loop) strength(ctx context.Context, g, best int) error {
	c := l.cfg.Strength
	if c.EveryHours == 0 || best == 0 || l.v.Players != 2 {
		return nil
	}
	last := 0.0 // the first measurement after every_hours of the run
	before, err := l.str.load()
	if err != nil {
		return err
	}
	if h := before.column("hours"); len(h) > 0 {
		if before.rows[len(h)-1][2] == store.ModelName(best) {
			return nil
		}
		last = h[len(h)-1]
	}
	if l.hours()-last < c.EveryHours {
		return nil
	}
	net, err := l.network(best)
	if err != nil {
		return err
	}
	player := arena.NewSearchPlayer(store.ModelName(best), arena.ModelSettings(l.v, c.Simulations), arena.Evaluation{Net: net, RandomSymmetry: true})
	opponents, err := c.ClassicPlayers()
	if err != nil {
		return err
	}
	for _, d := range c.Depths {
		opponents = append(opponents, arena.AlphaBeta{Depth: d})
	}
	s := arena.Strength{Variant: l.v, Player: player, Opponents: opponents, Pairs: c.Pairs,
		OpeningPlies: l.cfg.Gate.OpeningPlies, Seed: c.Seed, Workers: l.cfg.SelfPlay.Workers, Tables: l.tables}
	done := 0
	rows, err := s.Run(ctx, nil, func(opp int, _ *arena.Record) {
		done++
		l.phase(done, 2*c.Pairs*len(opponents))
		l.prog.Update("strength of %s: %d of %d games (%s)", store.ModelName(best), done, 2*c.Pairs*len(opponents), opponents[opp].Name())
	})
	if err != nil {
		return fmt.Errorf("strength of %s: %w", store.ModelName(best), err)
	}
	hours := l.hours()
	l.telStrength(rows)
	err = l.commit(ctx, func(context.Context) error {
		for _, r := range rows {
			thrown := ""
			if r.ThrownEndgames >= 0 {
				thrown = strconv.Itoa(r.ThrownEndgames)
			}
			if err := l.str.add(g, hours, store.ModelName(best), r.Opponent, r.Games, r.Score, r.Elo, r.Low, r.High, r.BlockadeLosses, thrown); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.prog.Done("strength of %s at %d visits: %s", store.ModelName(best), c.Simulations, strengthSummary(rows))
	if err := l.tableAccuracy(ctx, g, hours, best); err != nil {
		return err
	}
	return l.commit(ctx, func(context.Context) error { return l.plotStrength() })
}

// oracleSample is the number of table positions of each material the
// loop's oracle measures.
const oracleSample = 100

// tableAccuracy measures, when the run has endgame tables, the best's
// share of right moves in a fixed sample of table positions: its
// network's first choice and its search at the self-play visits, as two
// rows of metrics/strength.csv (opponents tables:network and
// tables:search, games counting positions).
func (l *Loop) tableAccuracy(ctx context.Context, g int, hours float64, best int) error {
	set, ok := l.tables.(*tablebase.Set)
	if !ok {
		return nil
	}
	if l.oracle == nil {
		sample, err := arena.TableSample(set, oracleSample, l.cfg.Strength.Seed)
		if err != nil {
			return err
		}
		l.oracle = sample
	}
	net, err := l.network(best)
	if err != nil {
		return err
	}
	l.prog.Update("strength of %s: the tables' %d positions", store.ModelName(best), len(l.oracle))
	rows, err := arena.MeasureTables(ctx, l.v, l.oracle, net, l.cfg.SelfPlay.Search.Simulations)
	if err != nil {
		return fmt.Errorf("table accuracy of %s: %w", store.ModelName(best), err)
	}
	all := rows[len(rows)-1]
	n := float64(all.Positions)
	err = l.commit(ctx, func(context.Context) error {
		for _, r := range []struct {
			name  string
			right int
		}{{"tables:network", all.Policy}, {"tables:search", all.Search}} {
			if err := l.str.add(g, hours, store.ModelName(best), r.name, all.Positions, float64(r.right)/n, math.NaN(), math.NaN(), math.NaN(), 0, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.prog.Done("table accuracy of %s: network %.0f%%, search %.0f%% right of %d positions", store.ModelName(best),
		100*float64(all.Policy)/n, 100*float64(all.Search)/n, all.Positions)
	return nil
}

// strengthSummary is rows in one line: the score against each yardstick.
func strengthSummary(rows []arena.StrengthRow) string {
	s := ""
	for i, r := range rows {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.0f%% vs %s", 100*r.Score, r.Opponent)
	}
	return s
}

// plotStrength draws metrics/strength.png: the best model's score against
// each yardstick over the run's hours.
func (l *Loop) plotStrength() error {
	str, err := l.str.load()
	if err != nil {
		return err
	}
	h, score := str.column("hours"), str.column("score")
	byOpp := map[string]*line{}
	var order []string
	for i, r := range str.rows {
		ln, ok := byOpp[r[3]]
		if !ok {
			ln = &line{name: "vs " + r[3]}
			byOpp[r[3]] = ln
			order = append(order, r[3])
		}
		ln.x, ln.y = append(ln.x, h[i]), append(ln.y, 100*score[i])
	}
	var lines []line
	for _, o := range order {
		lines = append(lines, *byOpp[o])
	}
	return plotLines(l.dir.Path(store.StrengthPlot),
		"Strength of the best ("+l.v.Name+", "+strconv.Itoa(l.cfg.Strength.Simulations)+" visits)", "hours", "score %", lines...)
}
