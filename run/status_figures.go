package run

import (
	"math"

	"github.com/millzero/millzero/internal/gen"
)

// LossStatus is the newest training report of metrics/losses.csv, and the
// newest validation loss.
type LossStatus struct {
	Generation int     `json:"generation"`
	Step       int     `json:"step"`
	Policy     float64 `json:"policy"`                     // the policy head's cross-entropy
	Value      float64 `json:"value"`                      // the value head's loss (the outcome's)
	Total      float64 `json:"total"`                      // with L2
	Validation float64 `json:"validation_total,omitempty"` // the newest validation total; 0 without
}

// RatingStatus is the best model's newest rating on the ladder
// (metrics/elo.csv): Elo over random, with its 95% interval.
type RatingStatus struct {
	Generation int     `json:"generation"`
	Hours      float64 `json:"hours"`
	Elo        float64 `json:"elo"`
	Low        float64 `json:"elo_low"`
	High       float64 `json:"elo_high"`
}

// newestFigures fills st's newest losses and rating.
func (c *core) newestFigures(st *Status) error {
	var err error
	if st.Losses, err = c.newestLosses(); err != nil {
		return err
	}
	st.Rating, err = c.newestRating()
	return err
}

// newestLosses is the newest training row of metrics/losses.csv (nil
// before the first) with the newest validation total.
func (c *core) newestLosses() (*LossStatus, error) {
	rows, err := c.loss.Rows()
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var out *LossStatus
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		switch {
		case r.Split == "train" && out == nil:
			out = &LossStatus{Generation: r.Generation, Step: int(r.Step), Policy: r.Policy, Value: r.Outcome, Total: r.Total}
		case r.Split == "val" && out != nil && out.Validation == 0 && !math.IsNaN(r.Total):
			out.Validation = r.Total
		}
		if out != nil && out.Validation != 0 {
			break
		}
	}
	return out, nil
}

// newestRating is the best model's newest row of metrics/elo.csv (rows
// named "best", or older ones by its generation); nil before the first.
func (c *core) newestRating() (*RatingStatus, error) {
	rows, err := c.elo.Rows()
	if err != nil {
		return nil, err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		if _, model := gen.Parse(r.Player); r.Player == "best" || model {
			return &RatingStatus{Generation: r.Generation, Hours: r.Hours, Elo: r.Elo, Low: r.Low, High: r.High}, nil
		}
	}
	return nil, nil
}

// seedTelemetry tells the telemetry the run's newest figures so far, so
// an endpoint shows them from the start, not only once they change.
func (c *core) seedTelemetry() error {
	if c.tel == nil {
		return nil
	}
	loss, err := c.newestLosses()
	if err != nil {
		return err
	}
	if loss != nil {
		c.tel.Losses(loss.Policy, loss.Value, loss.Total)
	}
	rows, err := c.newestStrength()
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Elo != nil {
			c.tel.Strength(r.Opponent, r.Score, *r.Elo, *r.Low, *r.High)
		}
	}
	return nil
}
