package run

import (
	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/selfplay"
)

// Telemetry receives the loop's figures as they come, for a monitoring
// endpoint (see internal/telemetry). The loop calls it from one goroutine
// at a time.
type Telemetry interface {
	Generation(g int)                    // the generation being played or trained
	Losses(policy, value, total float64) // the latest training losses
	// SelfPlay is self-play's rate in the current round, and the games
	// and positions written since the last call.
	SelfPlay(gamesPerSecond, positionsPerSecond float64, games, positions int64)
	Strength(opponent string, score, elo, low, high float64) // the best model's newest strength against opponent, Elo with its 95% interval
	Gate(decision string, llr float64)                       // the gate's newest verdict
}

// SetTelemetry makes the loop send its figures to t (before Run or
// Selfplay), starting with the run's newest losses and strength; nil
// sends none.
func (c *core) SetTelemetry(t Telemetry) error {
	c.tel = t
	return c.seedTelemetry()
}

// telGeneration tells the telemetry that generation g is under way.
func (c *core) telGeneration(g int) {
	if c.tel != nil {
		c.tel.Generation(g)
	}
}

// telLosses tells the telemetry a training report's losses.
func (c *core) telLosses(policy, value, total float64) {
	if c.tel != nil {
		c.tel.Losses(policy, value, total)
	}
}

// telGate tells the telemetry the gate's verdict.
func (c *core) telGate(decision string, res arena.GateResult) {
	if c.tel != nil {
		c.tel.Gate(decision, res.LLR)
	}
}

// telStrength tells the telemetry the best model's newest strength.
func (c *core) telStrength(rows []arena.StrengthRow) {
	if c.tel == nil {
		return
	}
	for _, r := range rows {
		c.tel.Strength(r.Opponent, r.Score, r.Elo, r.Low, r.High)
	}
}

// selfplayTelemetry is the function a self-play round calls with its
// statistics so far (and once more with the round's last): it tells the
// telemetry the round's rate and the games written since its last call.
func (c *core) selfplayTelemetry() func(selfplay.Stats) {
	var games, positions int64
	return func(s selfplay.Stats) {
		if c.tel == nil {
			return
		}
		secs := s.Elapsed.Seconds()
		gps := 0.0
		if secs > 0 {
			gps = float64(s.Games) / secs
		}
		c.tel.SelfPlay(gps, s.PositionsPerSecond(), max(s.Games-games, 0), max(s.Positions-positions, 0))
		games, positions = max(games, s.Games), max(positions, s.Positions)
	}
}
