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
func (l *Loop) newestFigures(st *Status) error {
	var err error
	if st.Losses, err = l.newestLosses(); err != nil {
		return err
	}
	st.Rating, err = l.newestRating()
	return err
}

// newestLosses is the newest training row of metrics/losses.csv (nil
// before the first) with the newest validation total.
func (l *Loop) newestLosses() (*LossStatus, error) {
	t, err := l.loss.load()
	if err != nil || len(t.rows) == 0 {
		return nil, err
	}
	gen, step := t.column("generation"), t.column("step")
	total, policy, outcome := t.column("total"), t.column("policy"), t.column("outcome")
	split := t.text("split")
	var out *LossStatus
	for i := len(t.rows) - 1; i >= 0; i-- {
		switch {
		case split[i] == "train" && out == nil:
			out = &LossStatus{Generation: int(gen[i]), Step: int(step[i]), Policy: policy[i], Value: outcome[i], Total: total[i]}
		case split[i] == "val" && out != nil && out.Validation == 0 && !math.IsNaN(total[i]):
			out.Validation = total[i]
		}
		if out != nil && out.Validation != 0 {
			break
		}
	}
	return out, nil
}

// newestRating is the best model's newest row of metrics/elo.csv (rows
// named "best", or older ones by its generation); nil before the first.
func (l *Loop) newestRating() (*RatingStatus, error) {
	t, err := l.elo.load()
	if err != nil {
		return nil, err
	}
	gens, hours := t.column("generation"), t.column("hours")
	elo, low, high := t.column("elo"), t.column("low"), t.column("high")
	players := t.text("player")
	for i := len(t.rows) - 1; i >= 0; i-- {
		if _, model := gen.Parse(players[i]); players[i] == "best" || model {
			return &RatingStatus{Generation: int(gens[i]), Hours: hours[i], Elo: elo[i], Low: low[i], High: high[i]}, nil
		}
	}
	return nil, nil
}

// seedTelemetry tells the telemetry the run's newest figures so far, so
// an endpoint shows them from the start, not only once they change.
func (l *Loop) seedTelemetry() error {
	if l.tel == nil {
		return nil
	}
	loss, err := l.newestLosses()
	if err != nil {
		return err
	}
	if loss != nil {
		l.tel.Losses(loss.Policy, loss.Value, loss.Total)
	}
	rows, err := l.newestStrength()
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Elo != nil {
			l.tel.Strength(r.Opponent, r.Score, *r.Elo, *r.Low, *r.High)
		}
	}
	return nil
}
