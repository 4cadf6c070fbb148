package run

import (
	"context"
	"fmt"
	"math"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// strength measures the best model (generation best, after generation g)
// when strength.every_hours have passed since the last measurement, and
// appends its rows to metrics/strength.csv. Two-player variants only: the
// yardsticks are two-player searches.
func (t *Trainer) strength(ctx context.Context, g, best int) error {
	c := t.cfg.Strength
	if c.EveryHours == 0 || best == 0 || t.v.Players != 2 {
		return nil
	}
	last := 0.0 // the first measurement after every_hours of the run
	before, err := t.str.Rows()
	if err != nil {
		return err
	}
	if n := len(before); n > 0 {
		if before[n-1].Model == store.ModelName(best) {
			return nil
		}
		last = before[n-1].Hours
	}
	if t.hours()-last < c.EveryHours {
		return nil
	}
	net, err := t.network(best)
	if err != nil {
		return err
	}
	player := arena.NewSearchPlayer(store.ModelName(best), arena.ModelSettings(t.v, c.Simulations), arena.Evaluation{Net: net, RandomSymmetry: true})
	opponents, err := c.ClassicPlayers()
	if err != nil {
		return err
	}
	for _, d := range c.Depths {
		opponents = append(opponents, arena.AlphaBeta{Depth: d})
	}
	s := arena.Strength{Variant: t.v, Player: player, Opponents: opponents, Pairs: c.Pairs,
		OpeningPlies: t.cfg.Gate.OpeningPlies, Seed: c.Seed, Workers: t.cfg.SelfPlay.Workers, Tables: t.tables}
	done := 0
	rows, err := s.Run(ctx, nil, func(opp int, _ *arena.Record) {
		done++
		t.phase(done, 2*c.Pairs*len(opponents))
		t.prog.Update("strength of %s: %d of %d games (%s)", store.ModelName(best), done, 2*c.Pairs*len(opponents), opponents[opp].Name())
	})
	if err != nil {
		return fmt.Errorf("strength of %s: %w", store.ModelName(best), err)
	}
	hours := t.hours()
	t.telStrength(rows)
	measured := make([]runmetrics.StrengthRow, len(rows))
	for i, r := range rows {
		measured[i] = runmetrics.StrengthRow{Generation: g, Hours: hours, Model: store.ModelName(best), Opponent: r.Opponent, Games: r.Games,
			Score: r.Score, Elo: r.Elo, Low: r.Low, High: r.High, BlockadeLosses: r.BlockadeLosses, ThrownEndgames: r.ThrownEndgames}
	}
	err = t.commit(ctx, func(context.Context) error { return t.str.Add(measured...) })
	if err != nil {
		return err
	}
	t.prog.Done("strength of %s at %d visits: %s", store.ModelName(best), c.Simulations, strengthSummary(rows))
	if err := t.tableAccuracy(ctx, g, hours, best); err != nil {
		return err
	}
	return t.commit(ctx, func(context.Context) error { return t.plotStrength() })
}

// oracleSample is the number of table positions of each material the
// loop's oracle measures.
const oracleSample = 100

// tableAccuracy measures, when the run has endgame tables, the best's
// share of right moves in a fixed sample of table positions: its
// network's first choice and its search at the self-play visits, as two
// rows of metrics/strength.csv (opponents tables:network and
// tables:search, games counting positions).
func (t *Trainer) tableAccuracy(ctx context.Context, g int, hours float64, best int) error {
	set, ok := t.tables.(*tablebase.Set)
	if !ok {
		return nil
	}
	if t.oracle == nil {
		sample, err := arena.TableSample(set, oracleSample, t.cfg.Strength.Seed)
		if err != nil {
			return err
		}
		t.oracle = sample
	}
	net, err := t.network(best)
	if err != nil {
		return err
	}
	t.prog.Update("strength of %s: the tables' %d positions", store.ModelName(best), len(t.oracle))
	rows, err := arena.MeasureTables(ctx, t.v, t.oracle, net, t.cfg.SelfPlay.Search.Simulations)
	if err != nil {
		return fmt.Errorf("table accuracy of %s: %w", store.ModelName(best), err)
	}
	all := rows[len(rows)-1]
	n := float64(all.Positions)
	var measured []runmetrics.StrengthRow
	for _, r := range []struct {
		name  string
		right int
	}{{"tables:network", all.Policy}, {"tables:search", all.Search}} {
		measured = append(measured, runmetrics.StrengthRow{Generation: g, Hours: hours, Model: store.ModelName(best), Opponent: r.name,
			Games: all.Positions, Score: float64(r.right) / n, Elo: math.NaN(), Low: math.NaN(), High: math.NaN(), ThrownEndgames: -1})
	}
	err = t.commit(ctx, func(context.Context) error { return t.str.Add(measured...) })
	if err != nil {
		return err
	}
	t.prog.Done("table accuracy of %s: network %.0f%%, search %.0f%% right of %d positions", store.ModelName(best),
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
