// Package selfplay plays games of a model against itself on every core and
// records their positions as dataset shards. Each worker keeps many games in
// flight in one mcts.Pool, so the evaluator sees full batches.
package selfplay

import (
	"fmt"
	"runtime"

	"github.com/millzero/millzero/mcts"
)

// Settings are the knobs of self-play. Configs fill it from YAML.
type Settings struct {
	Workers         int           `yaml:"workers"`          // goroutines playing, each with its own evaluator and games; 0 = the number of cores
	GamesInFlight   int           `yaml:"games_in_flight"`  // games each worker plays at once; the evaluator sees up to this times search.batch_size positions a call
	FullFraction    float64       `yaml:"full_fraction"`    // share of moves searched in full and recorded as policy targets (playout cap randomisation), 0..1
	FastSimulations int           `yaml:"fast_simulations"` // root visits of the other moves' searches, which are not recorded
	GamesPerShard   int           `yaml:"games_per_shard"`  // games a worker gathers before it writes them as one shard
	RolloutPlayouts int           `yaml:"rollout_playouts"` // generation 0 (no model): random playouts per evaluated position
	RolloutPlies    int           `yaml:"rollout_plies"`    // generation 0: a playout longer than this many plies counts as a draw
	Search          mcts.Settings `yaml:"search"`           // the search of every move; search.simulations is the full search
}

// DefaultSettings are sized for a two-core machine.
func DefaultSettings() Settings {
	s := mcts.DefaultSettings()
	s.Simulations = 100
	return Settings{
		Workers:         0,
		GamesInFlight:   32,
		FullFraction:    0.25,
		FastSimulations: 20,
		GamesPerShard:   32,
		RolloutPlayouts: 1,
		RolloutPlies:    200,
		Search:          s,
	}
}

// Validate says what is wrong with the settings, naming the field.
func (s *Settings) Validate() error {
	switch {
	case s.Workers < 0:
		return fmt.Errorf("selfplay settings: workers %d: want 0 (one per core) or more", s.Workers)
	case s.GamesInFlight < 1:
		return fmt.Errorf("selfplay settings: games_in_flight %d: want 1 or more", s.GamesInFlight)
	case !(s.FullFraction > 0 && s.FullFraction <= 1):
		return fmt.Errorf("selfplay settings: full_fraction %v: want more than 0, at most 1", s.FullFraction)
	case s.FastSimulations < 1 || s.FastSimulations > s.Search.Simulations:
		return fmt.Errorf("selfplay settings: fast_simulations %d: want 1..search.simulations (%d)", s.FastSimulations, s.Search.Simulations)
	case s.GamesPerShard < 1:
		return fmt.Errorf("selfplay settings: games_per_shard %d: want 1 or more", s.GamesPerShard)
	case s.RolloutPlayouts < 1 || s.RolloutPlies < 1:
		return fmt.Errorf("selfplay settings: rollout_playouts %d, rollout_plies %d: want 1 or more", s.RolloutPlayouts, s.RolloutPlies)
	}
	if err := s.Search.Validate(); err != nil {
		return fmt.Errorf("selfplay settings: search: %w", err)
	}
	return nil
}

// workers is the number of workers to run.
func (s *Settings) workers() int {
	if s.Workers > 0 {
		return s.Workers
	}
	return runtime.NumCPU()
}
