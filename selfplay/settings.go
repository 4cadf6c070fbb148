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
	Orientations    int           `yaml:"orientations"`     // the network's answer a position: the mean over this many distinct random turns of the board (model.Evaluator.SetOrientations), this many times its work; 0 or 1: one turn

	// Resignation (AlphaZero), 2-player variants only; see resign.go.
	ResignThreshold float64 `yaml:"resign_threshold"` // a seat whose root value (its expected score, 0 loss .. 1 win) is below this for resign_plies of its own moves in a row resigns and loses; 0 off
	ResignPlies     int     `yaml:"resign_plies"`     // own moves in a row below resign_threshold before a seat resigns
	ResignPlayout   float64 `yaml:"resign_playout"`   // share of games, 0..1, that never resign but count whether they would have and whether that seat then failed to lose (a false resignation)

	// Endgame starts: a share of the games begin from a random position of
	// few pieces, every piece placed, so the network goes on playing
	// endgames when its own games stop reaching them (two players; see
	// endgame.go).
	EndgameStarts float64 `yaml:"endgame_starts"` // share of games, 0..1, that start from a random endgame; 0 off
	EndgamePieces int     `yaml:"endgame_pieces"` // most pieces on the board of such a start (at least 3 a side, so 6 or more)

	// Opening starts: a share of the games begin with random legal plies,
	// as the strength measurements' openings do (see opening.go).
	OpeningStarts float64 `yaml:"opening_starts"` // share of games, 0..1, that open with opening_plies random legal actions; 0 off
	OpeningPlies  int     `yaml:"opening_plies"`  // random actions of such an opening, neither searched nor recorded

	// Tables says what self-play does with a Prover (endgame tables):
	// TablesAdjudicate, TablesPlayOut, TablesRescore or TablesOff.
	Tables string `yaml:"tables"`
}

// The uses of a Prover in self-play (Settings.Tables). With adjudicate,
// play_out or rescore every recorded position it knows gets its exact
// outcome as the value target (rescoring, as Lc0 does with Syzygy); with
// adjudicate or play_out the searches also treat those positions as
// proven.
const (
	TablesAdjudicate = "adjudicate" // a game ends at its first position the Prover knows, with the Prover's result
	TablesPlayOut    = "play_out"   // a game goes on through them, searched as proven: the endgames are played perfectly
	TablesRescore    = "rescore"    // the searches do not see the Prover: the network plays its own endgames, their targets exact
	TablesOff        = "off"        // self-play ignores the Prover (a run's tables then only measure: the oracle)
)

// DefaultSettings are the self-play of configs/runs/nine.yaml (a test keeps
// the two equal): its search differs from mcts.DefaultSettings, the search
// of play, in its budget, root, temperature, contempt, minimax backup and
// batch. The minimax backup is for two players: DefaultSettingsFor a
// variant of more seats leaves it out, as its run configs do.
func DefaultSettings() Settings {
	s := mcts.DefaultSettings()
	s.Simulations = 96
	s.Root = mcts.RootGumbel
	s.MinQSpread = 1
	s.TemperaturePlies = 16
	s.Contempt = 0.1
	s.MinimaxWeight = 0.25
	s.BatchSize = 4
	return Settings{
		Workers:         0,
		GamesInFlight:   32,
		FullFraction:    0.25,
		FastSimulations: 24,
		GamesPerShard:   32,
		RolloutPlayouts: 1,
		RolloutPlies:    200,
		Search:          s,
		Orientations:    1,
		ResignThreshold: 0,
		ResignPlies:     3,
		ResignPlayout:   0.1,
		EndgamePieces:   8,
		OpeningStarts:   0.5,
		OpeningPlies:    4,
		Tables:          TablesOff,
	}
}

// DefaultSettingsFor is DefaultSettings for a variant of players seats:
// without the minimax backup where there are more than two.
func DefaultSettingsFor(players int) Settings {
	s := DefaultSettings()
	if players != 2 {
		s.Search.MinimaxWeight = 0
	}
	return s
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
	case s.Orientations < 0:
		return fmt.Errorf("selfplay settings: orientations %d: want 0 or 1 (one turn of the board) or more, up to the variant's symmetries", s.Orientations)
	case s.RolloutPlayouts < 1 || s.RolloutPlies < 1:
		return fmt.Errorf("selfplay settings: rollout_playouts %d, rollout_plies %d: want 1 or more", s.RolloutPlayouts, s.RolloutPlies)
	case !(s.ResignThreshold >= 0 && s.ResignThreshold < 0.5):
		return fmt.Errorf("selfplay settings: resign_threshold %v: want 0 (off) or more, below 0.5 (a draw's score)", s.ResignThreshold)
	case s.ResignPlies < 0 || (s.ResignThreshold > 0 && s.ResignPlies < 1):
		return fmt.Errorf("selfplay settings: resign_plies %d: want 1 or more when resign_threshold is set", s.ResignPlies)
	case !(s.ResignPlayout >= 0 && s.ResignPlayout <= 1):
		return fmt.Errorf("selfplay settings: resign_playout %v: want 0..1", s.ResignPlayout)
	case !(s.EndgameStarts >= 0 && s.EndgameStarts <= 1):
		return fmt.Errorf("selfplay settings: endgame_starts %v: want 0..1", s.EndgameStarts)
	case s.EndgameStarts > 0 && s.EndgamePieces < 6:
		return fmt.Errorf("selfplay settings: endgame_pieces %d: want 6 or more (3 a side) when endgame_starts is set", s.EndgamePieces)
	case !(s.OpeningStarts >= 0 && s.OpeningStarts <= 1):
		return fmt.Errorf("selfplay settings: opening_starts %v: want 0..1", s.OpeningStarts)
	case s.OpeningStarts > 0 && s.OpeningPlies < 1:
		return fmt.Errorf("selfplay settings: opening_plies %d: want 1 or more when opening_starts is set", s.OpeningPlies)
	case s.Tables != TablesAdjudicate && s.Tables != TablesPlayOut && s.Tables != TablesRescore && s.Tables != TablesOff:
		return fmt.Errorf("selfplay settings: tables %q: want %s, %s, %s or %s", s.Tables, TablesAdjudicate, TablesPlayOut, TablesRescore, TablesOff)
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

// MaxBatch is the most positions one worker asks its evaluator at once:
// every game in flight with a full batch of its search.
func (s *Settings) MaxBatch() int { return s.GamesInFlight * s.Search.BatchSize }
