package runconfig

import (
	"fmt"

	"github.com/millzero/millzero/arena"
)

// StrengthConfig is the loop's strength benchmark: now and then the best
// model, searching at a fixed budget, meets the classical yardsticks (the
// classical engine at fixed depths, and the alpha-beta depths) in
// paired games from the same seeded openings (arena.Strength, as `millzero
// bench strength` plays it), and with endgame tables its share of right
// moves in a fixed sample of table positions. Unlike the gate's Elo it does not move with
// refits or with what the best happened to meet, so metrics/strength.csv
// and its plot show what the hours bought.
type StrengthConfig struct {
	EveryHours  float64  `yaml:"every_hours"` // measure the best every this many hours of the run (when it is new); 0 never
	Simulations int      `yaml:"simulations"` // visits a move of the model measured
	Depths      []int    `yaml:"depths"`      // alpha-beta depths met
	Classic     []string `yaml:"classic"`     // classical-engine players met: classic:N (N plies, the same on every machine) or classic@TIME
	Pairs       int      `yaml:"pairs"`       // pairs of games against each depth
	Seed        uint64   `yaml:"seed"`        // the openings' seed, the same for every measurement (and as bench strength's --seed)
}

func (c StrengthConfig) validate() error {
	switch {
	case c.EveryHours < 0:
		return fmt.Errorf("strength: every_hours %v: want 0 (never) or more", c.EveryHours)
	case c.EveryHours == 0:
		return nil
	case c.Pairs < 1 || len(c.Depths)+len(c.Classic) == 0:
		return fmt.Errorf("strength: pairs %d, depths %v, classic %v: want positive counts and a yardstick", c.Pairs, c.Depths, c.Classic)
	}
	if set := arena.ArenaSettings(c.Simulations); set.Validate() != nil {
		return fmt.Errorf("strength: %w", set.Validate())
	}
	if _, err := c.ClassicPlayers(); err != nil {
		return err
	}
	for _, d := range c.Depths {
		if d < 1 || d > arena.MaxAlphaBetaDepth {
			return fmt.Errorf("strength: depth %d: want 1..%d", d, arena.MaxAlphaBetaDepth)
		}
	}
	return nil
}

// ClassicPlayers is the classical-engine players of Classic.
func (c StrengthConfig) ClassicPlayers() ([]arena.Player, error) {
	var out []arena.Player
	for _, spec := range c.Classic {
		p, err := arena.ParsePlayer(spec, nil, arena.SpecSettings{})
		if err == nil {
			if _, ok := p.(arena.Classic); !ok {
				err = fmt.Errorf("player %q: want classic:N or classic@TIME", spec)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("strength: classic: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}
