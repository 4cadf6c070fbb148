package runmetrics

import (
	"github.com/millzero/millzero/store"
)

// LeaseColumn is the column of generations.csv and losses.csv that holds
// the tag of the trainer's lease under which a row was written: two
// trainers that overlapped (a lease broken, or taken in an outage) write
// rows that can be told apart.
const LeaseColumn = "lease"

// GenRow is one row of metrics/generations.csv: one a generation, the
// generation's commit point.
type GenRow struct {
	Generation               int
	Hours                    float64 // run hours at the row's writing
	Games                    int     // games of the generation, from the shards
	MovesPerS                float64 // self-play's speed over the generation
	TrainLoss, ValLoss       float64
	Candidate, Decision      string
	LLR                      float64
	Pairs                    string // the gate's pair counts
	Best                     string
	BestElo                  float64
	SelfplayS, TrainS        float64 // wall seconds of each phase
	GateS, LadderS           float64
	SearchKL, DrawShare      float64
	GamePlies, TargetEntropy float64
	Lease                    string  // the trainer's lease (LeaseColumn)
	ReanalyseS               float64 // wall seconds of searching older positions again (loop.reanalyse)
}

// GenHeader is generations.csv's columns, a field of GenRow each in its
// order. The newer ones come last, so an older file is read by name.
var GenHeader = []string{"generation", "hours", "games", "moves_per_s", "train_loss", "val_loss", "candidate", "decision",
	"llr", "pairs", "best", "best_elo", "selfplay_s", "train_s", "gate_s", "ladder_s", "search_kl", "draw_share", "game_plies",
	"target_entropy", LeaseColumn, "reanalyse_s"}

func (r GenRow) cells() []string {
	return []string{fmtInt(r.Generation), fmtNum(r.Hours), fmtInt(r.Games), fmtNum(r.MovesPerS), fmtNum(r.TrainLoss), fmtNum(r.ValLoss),
		r.Candidate, r.Decision, fmtNum(r.LLR), r.Pairs, r.Best, fmtNum(r.BestElo), fmtNum(r.SelfplayS), fmtNum(r.TrainS),
		fmtNum(r.GateS), fmtNum(r.LadderS), fmtNum(r.SearchKL), fmtNum(r.DrawShare), fmtNum(r.GamePlies), fmtNum(r.TargetEntropy),
		r.Lease, fmtNum(r.ReanalyseS)}
}

func parseGenRow(c cells) (GenRow, error) {
	g, err := c.integer(0, "generation")
	if err != nil {
		return GenRow{}, err
	}
	games, err := c.integer(2, "games")
	if err != nil {
		return GenRow{}, err
	}
	return GenRow{Generation: g, Hours: c.num(1), Games: games, MovesPerS: c.num(3), TrainLoss: c.num(4), ValLoss: c.num(5),
		Candidate: c.text(6), Decision: c.text(7), LLR: c.num(8), Pairs: c.text(9), Best: c.text(10), BestElo: c.num(11),
		SelfplayS: c.num(12), TrainS: c.num(13), GateS: c.num(14), LadderS: c.num(15), SearchKL: c.num(16), DrawShare: c.num(17),
		GamePlies: c.num(18), TargetEntropy: c.num(19), Lease: c.text(20), ReanalyseS: c.num(21)}, nil
}

// Generations is the run's metrics/generations.csv in dir.
func Generations(dir store.Dir) *Table[GenRow] {
	return &Table[GenRow]{path: dir.Path(store.GenerationsTable), header: GenHeader, cells: GenRow.cells, parse: parseGenRow}
}

// LossRow is one row of metrics/losses.csv: a logged training step, or
// the validation of the generation trained ("val"), or a generation that
// trained no step ("none").
type LossRow struct {
	Generation int
	Step       int64
	Split      string // train, val or none
	LR         float64
	Total      float64 // the loss optimised
	Policy     float64 // the policy head's cross-entropy
	Outcome    float64 // the outcome head's
	L2         float64
	Lease      string // the trainer's lease (LeaseColumn)
}

// LossHeader is losses.csv's columns.
var LossHeader = []string{"generation", "step", "split", "lr", "total", "policy", "outcome", "l2", LeaseColumn}

func (r LossRow) cells() []string {
	return []string{fmtInt(r.Generation), fmtInt(r.Step), r.Split, fmtNum(r.LR), fmtNum(r.Total), fmtNum(r.Policy), fmtNum(r.Outcome),
		fmtNum(r.L2), r.Lease}
}

func parseLossRow(c cells) (LossRow, error) {
	g, err := c.integer(0, "generation")
	if err != nil {
		return LossRow{}, err
	}
	step, err := c.integer(1, "step")
	if err != nil {
		return LossRow{}, err
	}
	return LossRow{Generation: g, Step: int64(step), Split: c.text(2), LR: c.num(3), Total: c.num(4), Policy: c.num(5), Outcome: c.num(6),
		L2: c.num(7), Lease: c.text(8)}, nil
}

// Losses is the run's metrics/losses.csv in dir.
func Losses(dir store.Dir) *Table[LossRow] {
	return &Table[LossRow]{path: dir.Path(store.LossesTable), header: LossHeader, cells: LossRow.cells, parse: parseLossRow}
}

// EloRow is one row of metrics/elo.csv: a player's rating after a
// generation, the best model's as "best".
type EloRow struct {
	Generation     int
	Hours          float64
	Player         string // "best", or a reference player (or, in older files, the best's model name)
	Elo, Low, High float64
	Games          int
}

// EloHeader is elo.csv's columns.
var EloHeader = []string{"generation", "hours", "player", "elo", "low", "high", "games"}

func (r EloRow) cells() []string {
	return []string{fmtInt(r.Generation), fmtNum(r.Hours), r.Player, fmtNum(r.Elo), fmtNum(r.Low), fmtNum(r.High), fmtInt(r.Games)}
}

func parseEloRow(c cells) (EloRow, error) {
	g, err := c.integer(0, "generation")
	if err != nil {
		return EloRow{}, err
	}
	games, err := c.integer(6, "games")
	if err != nil && c.text(6) != "" {
		return EloRow{}, err
	}
	return EloRow{Generation: g, Hours: c.num(1), Player: c.text(2), Elo: c.num(3), Low: c.num(4), High: c.num(5), Games: games}, nil
}

// Elo is the run's metrics/elo.csv in dir.
func Elo(dir store.Dir) *Table[EloRow] {
	return &Table[EloRow]{path: dir.Path(store.EloTable), header: EloHeader, cells: EloRow.cells, parse: parseEloRow}
}

// PhaseRow is one row of metrics/phases.csv: one each time a process ran
// a phase of a generation (self-play, reanalyse, train, gate or ladder),
// with its wall seconds and, for self-play, the moves played, the
// positions recorded and their summed KL divergence of the visit target
// from the prior, in micro-nats, the games finished, their plies and how
// many were drawn, and the recorded targets' summed entropy in
// micro-nats. A generation resumed after a stop sums the rows of every
// process. Counts are NaN where a row of an older version does not say.
type PhaseRow struct {
	Generation                int
	Phase                     string
	Seconds                   float64
	Moves, Positions, KLMicro float64
	Games, Plies, Draws       float64
	EntropyMicro              float64
}

// PhaseHeader is phases.csv's columns.
var PhaseHeader = []string{"generation", "phase", "seconds", "moves", "positions", "kl_micro", "games", "plies", "draws",
	"entropy_micro"}

func (r PhaseRow) cells() []string {
	return []string{fmtInt(r.Generation), r.Phase, fmtNum(r.Seconds), fmtCount(r.Moves), fmtCount(r.Positions), fmtCount(r.KLMicro),
		fmtCount(r.Games), fmtCount(r.Plies), fmtCount(r.Draws), fmtCount(r.EntropyMicro)}
}

func parsePhaseRow(c cells) (PhaseRow, error) {
	g, err := c.integer(0, "generation")
	if err != nil {
		return PhaseRow{}, err
	}
	return PhaseRow{Generation: g, Phase: c.text(1), Seconds: c.num(2), Moves: c.num(3), Positions: c.num(4), KLMicro: c.num(5),
		Games: c.num(6), Plies: c.num(7), Draws: c.num(8), EntropyMicro: c.num(9)}, nil
}

// Phases is the run's metrics/phases.csv in dir.
func Phases(dir store.Dir) *Table[PhaseRow] {
	return &Table[PhaseRow]{path: dir.Path(store.PhasesTable), header: PhaseHeader, cells: PhaseRow.cells, parse: parsePhaseRow}
}

// StrengthRow is one row of metrics/strength.csv: the best model against
// one yardstick at one measurement, or with endgame tables its share of
// right moves (Opponent tables:network or tables:search, Games the
// positions, no Elo).
type StrengthRow struct {
	Generation     int
	Hours          float64
	Model          string
	Opponent       string
	Games          int
	Score          float64
	Elo, Low, High float64
	BlockadeLosses int
	ThrownEndgames int // -1 without tables (an empty cell)
}

// StrengthHeader is strength.csv's columns.
var StrengthHeader = []string{"generation", "hours", "model", "opponent", "games", "score", "elo", "low", "high", "blockade_losses", "thrown_endgames"}

func (r StrengthRow) cells() []string {
	thrown := ""
	if r.ThrownEndgames >= 0 {
		thrown = fmtInt(r.ThrownEndgames)
	}
	return []string{fmtInt(r.Generation), fmtNum(r.Hours), r.Model, r.Opponent, fmtInt(r.Games), fmtNum(r.Score), fmtNum(r.Elo),
		fmtNum(r.Low), fmtNum(r.High), fmtInt(r.BlockadeLosses), thrown}
}

func parseStrengthRow(c cells) (StrengthRow, error) {
	r := StrengthRow{Hours: c.num(1), Model: c.text(2), Opponent: c.text(3), Score: c.num(5), Elo: c.num(6), Low: c.num(7), High: c.num(8),
		ThrownEndgames: -1}
	var err error
	if r.Generation, err = c.integer(0, "generation"); err != nil {
		return r, err
	}
	if r.Games, err = c.integer(4, "games"); err != nil {
		return r, err
	}
	if c.text(9) != "" {
		if r.BlockadeLosses, err = c.integer(9, "blockade_losses"); err != nil {
			return r, err
		}
	}
	if c.text(10) != "" {
		if r.ThrownEndgames, err = c.integer(10, "thrown_endgames"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// Strength is the run's metrics/strength.csv in dir.
func Strength(dir store.Dir) *Table[StrengthRow] {
	return &Table[StrengthRow]{path: dir.Path(store.StrengthTable), header: StrengthHeader, cells: StrengthRow.cells, parse: parseStrengthRow}
}
