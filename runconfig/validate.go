package runconfig

import (
	"fmt"
	"os"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/model"
)

// validate says what is wrong with c, naming the key: each section's
// values, then what the sections must agree on.
func (c *Config) validate() error {
	v, err := c.LoadVariant()
	if err != nil {
		return fmt.Errorf("variant: %w", err)
	}
	for _, check := range []func() error{
		func() error { return c.checkVariant(v) },
		c.checkSections,
		c.Loop.check,
		c.Gate.check,
		c.checkSchedules,
		c.Strength.validate,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	if set := c.GateSearch(); set.Validate() != nil {
		return fmt.Errorf("gate: %w", set.Validate())
	}
	if err := c.Gate.SPRT().Validate(); err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	for _, spec := range c.Gate.Ladder {
		if _, err := ReferencePlayer(spec); err != nil {
			return fmt.Errorf("gate: ladder: %w", err)
		}
	}
	return nil
}

// checkVariant checks the settings that depend on the variant v.
func (c *Config) checkVariant(v *engine.Variant) error {
	if c.Gate.MaxGames >= 2 && c.Gate.MaxGames < v.Players {
		return fmt.Errorf("gate: max_games %d: want %d or more, one game per seat of %s (the candidate plays every opening in every seat)", c.Gate.MaxGames, v.Players, v.Name)
	}
	if key, w := c.SelfPlay.Search.TwoPlayersOnly(); key != "" && v.Players != 2 {
		return fmt.Errorf("selfplay: search: %s %v: for two players only, %s has %d (set selfplay.search.%s: 0)", key, w, v.Name, v.Players, key)
	}
	if n := v.NumSymmetries(); c.SelfPlay.Orientations > n {
		return fmt.Errorf("selfplay: orientations %d: want at most %d, the symmetries of %s", c.SelfPlay.Orientations, n, v.Name)
	}
	if c.SelfPlay.Orientations > 1 && c.Model.Orientation == model.OrientCanonical {
		return fmt.Errorf("selfplay: orientations %d with model.orientation %s: a canonical network sees one turn of each board (set orientations 1)", c.SelfPlay.Orientations, model.OrientCanonical)
	}
	if c.Model.Symmetric {
		if c.Model.Width < v.Board.Points {
			return fmt.Errorf("model: symmetric with width %d: want at least the %d points of %s (each point's units need a channel)", c.Model.Width, v.Board.Points, v.Name)
		}
		if len(c.Loop.Grow) > 0 {
			return fmt.Errorf("model: symmetric with loop.grow: a symmetric network does not grow (its units are laid out by points); set loop.grow: []")
		}
	}
	return nil
}

// checkSections checks the tables' directory and the sections that check
// themselves: model, train and selfplay.
func (c *Config) checkSections() error {
	if c.Tablebase != "" && c.Tablebase != tablebase.Auto {
		if st, err := os.Stat(c.Tablebase); err != nil || !st.IsDir() {
			return fmt.Errorf("tablebase: %q is not a directory of tables (millzero tablebase build makes one)", c.Tablebase)
		}
	}
	if err := c.Model.Validate(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := c.Train.Validate(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := c.Train.CheckKind(c.Model.Kind); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if w := c.SelfPlay.Search.ScoreUtility; w > 0 && !(c.Train.ScoreWeight > 0) {
		return fmt.Errorf("selfplay: search: score_utility %v: the network has a score head only when trained with one (set train.score_weight above 0, or selfplay.search.score_utility: 0)", w)
	}
	return c.SelfPlay.Validate()
}

// check checks the loop section's counts and shares.
func (l LoopConfig) check() error {
	switch {
	case l.Generations < 0:
		return fmt.Errorf("loop: generations %d: want 0 (no limit) or more", l.Generations)
	case l.Hours < 0:
		return fmt.Errorf("loop: hours %v: want 0 (no limit) or more", l.Hours)
	case l.RunHours < 0:
		return fmt.Errorf("loop: run_hours %v: want 0 (no limit) or more", l.RunHours)
	case l.Games < 1:
		return fmt.Errorf("loop: games %d: want 1 or more", l.Games)
	case l.Steps < 1:
		return fmt.Errorf("loop: steps %d: want 1 or more", l.Steps)
	case l.WindowGenerations < 1:
		return fmt.Errorf("loop: window_generations %d: want 1 or more", l.WindowGenerations)
	case !(l.WindowGrowth >= 0 && l.WindowGrowth <= 10):
		return fmt.Errorf("loop: window_growth %v: want 0 (a fixed window) up to 10 (KataGo's is 0.4)", l.WindowGrowth)
	case !(l.Reanalyse >= 0 && l.Reanalyse <= 4):
		return fmt.Errorf("loop: reanalyse %v: want 0 (off) up to 4 (positions searched again for each one a generation records)", l.Reanalyse)
	case l.WindowSamples < 0 || l.Shuffle < 0 || l.ValBatches < 0:
		return fmt.Errorf("loop: window_samples, shuffle and val_batches must not be negative")
	case l.ValFraction < 0 || l.ValFraction >= 1:
		return fmt.Errorf("loop: val_fraction %v: want 0..1", l.ValFraction)
	}
	return nil
}

// check checks the gate section's counts.
func (g GateConfig) check() error {
	switch {
	case g.MaxGames < 0 || g.MaxGames == 1:
		return fmt.Errorf("gate: max_games %d: want 0 (no gate) or 2 or more", g.MaxGames)
	case g.OpeningPlies < 0:
		return fmt.Errorf("gate: opening_plies %d: want 0 or more", g.OpeningPlies)
	case g.LadderPairs < 0:
		return fmt.Errorf("gate: ladder_pairs %d: want 0 or more", g.LadderPairs)
	}
	return nil
}

// checkSchedules checks loop.grow (a network only grows) and loop.visits
// (each step's self-play valid), each step after the one before.
func (c *Config) checkSchedules() error {
	prev, prevGen := c.Model, 0
	for i, s := range c.Loop.Grow {
		m := model.Config{Width: s.Width, Blocks: s.Blocks}
		switch err := m.Validate(); {
		case err != nil:
			return fmt.Errorf("loop: grow step %d: %w", i+1, err)
		case s.Generation <= prevGen:
			return fmt.Errorf("loop: grow step %d: generation %d: want 1 or more, after the step before", i+1, s.Generation)
		case m.Width < prev.Width || m.Blocks < prev.Blocks:
			return fmt.Errorf("loop: grow step %d: %dx%d after %dx%d: a network only grows (width and blocks no smaller)", i+1, m.Width, m.Blocks, prev.Width, prev.Blocks)
		}
		prev, prevGen = m, s.Generation
	}
	prevGen = 0
	for i, s := range c.Loop.Visits {
		if s.Generation <= prevGen {
			return fmt.Errorf("loop: visits step %d: generation %d: want 1 or more, after the step before", i+1, s.Generation)
		}
		set := c.SelfPlayAt(s.Generation)
		if err := set.Validate(); err != nil {
			return fmt.Errorf("loop: visits step %d (simulations %d): %w", i+1, s.Simulations, err)
		}
		prevGen = s.Generation
	}
	return nil
}

// ReferencePlayer is a fixed yardstick of the ladder: random or
// alphabeta:DEPTH, as the arena reads them.
func ReferencePlayer(spec string) (arena.Player, error) {
	if spec != arena.RandomName && !strings.HasPrefix(spec, "alphabeta:") {
		return nil, fmt.Errorf("player %q: want random or alphabeta:DEPTH", spec)
	}
	return arena.ParsePlayer(spec, nil, arena.SpecSettings{})
}
