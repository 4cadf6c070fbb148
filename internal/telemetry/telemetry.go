// Package telemetry serves a training run's figures as Prometheus metrics
// on /metrics: the generation, the training losses, self-play's rate and
// games written, the best model's newest strength and the gate's verdict,
// with the Go runtime's and the process's own. The loop feeds a Metrics
// through the small interface it declares (run.Telemetry).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds a process's metrics in a registry of its own.
type Metrics struct {
	reg *prometheus.Registry

	generation   prometheus.Gauge
	loss         *prometheus.GaugeVec
	gamesRate    prometheus.Gauge
	posRate      prometheus.Gauge
	games        prometheus.Counter
	positions    prometheus.Counter
	score        *prometheus.GaugeVec
	elo          *prometheus.GaugeVec
	eloLow       *prometheus.GaugeVec
	eloHigh      *prometheus.GaugeVec
	gateLLR      prometheus.Gauge
	gateAccepted prometheus.Gauge
	gates        *prometheus.CounterVec
}

// New makes the metrics of a process in role ("trainer" or "selfplay"),
// a constant label of every series of its own, with the Go runtime's and
// the process's collectors.
func New(role string) *Metrics {
	reg := prometheus.NewRegistry()
	f := func(c prometheus.Collector) prometheus.Collector { reg.MustRegister(c); return c }
	labels := prometheus.Labels{"role": role}
	gauge := func(name, help string) prometheus.Gauge {
		return f(prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "millzero", Name: name, Help: help, ConstLabels: labels})).(prometheus.Gauge)
	}
	gaugeVec := func(name, help string, label string) *prometheus.GaugeVec {
		return f(prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "millzero", Name: name, Help: help, ConstLabels: labels}, []string{label})).(*prometheus.GaugeVec)
	}
	counter := func(name, help string) prometheus.Counter {
		return f(prometheus.NewCounter(prometheus.CounterOpts{Namespace: "millzero", Name: name, Help: help, ConstLabels: labels})).(prometheus.Counter)
	}
	m := &Metrics{
		reg:          reg,
		generation:   gauge("generation", "The generation being played or trained."),
		loss:         gaugeVec("train_loss", "The latest training loss: the policy head's (cross-entropy), the value head's (the outcome's), and the total with L2.", "part"),
		gamesRate:    gauge("selfplay_games_per_second", "Self-play games finished per second in the current round."),
		posRate:      gauge("selfplay_positions_per_second", "Self-play positions recorded per second in the current round."),
		games:        counter("selfplay_games_total", "Self-play games written by this process."),
		positions:    counter("selfplay_positions_total", "Self-play positions recorded by this process."),
		score:        gaugeVec("strength_score", "The best model's newest mean score per game against the opponent, 0 to 1.", "opponent"),
		elo:          gaugeVec("strength_elo", "The best model's newest Elo difference to the opponent.", "opponent"),
		eloLow:       gaugeVec("strength_elo_low", "The low end of the newest Elo difference's 95% interval.", "opponent"),
		eloHigh:      gaugeVec("strength_elo_high", "The high end of the newest Elo difference's 95% interval.", "opponent"),
		gateLLR:      gauge("gate_llr", "The log-likelihood ratio of the newest gate match (SPRT)."),
		gateAccepted: gauge("gate_accepted", "1 when the newest candidate became the best model, else 0."),
		gates:        f(prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "millzero", Name: "gate_decisions_total", Help: "The gate's verdicts by this process.", ConstLabels: labels}, []string{"decision"})).(*prometheus.CounterVec),
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Generation sets the generation being played or trained.
func (m *Metrics) Generation(g int) { m.generation.Set(float64(g)) }

// Losses sets the latest training losses.
func (m *Metrics) Losses(policy, value, total float64) {
	m.loss.WithLabelValues("policy").Set(policy)
	m.loss.WithLabelValues("value").Set(value)
	m.loss.WithLabelValues("total").Set(total)
}

// SelfPlay sets self-play's rates and adds the games and positions written
// since the last call.
func (m *Metrics) SelfPlay(gamesPerSecond, positionsPerSecond float64, games, positions int64) {
	m.gamesRate.Set(gamesPerSecond)
	m.posRate.Set(positionsPerSecond)
	m.games.Add(float64(max(games, 0)))
	m.positions.Add(float64(max(positions, 0)))
}

// Strength sets the best model's newest strength against opponent.
func (m *Metrics) Strength(opponent string, score, elo, low, high float64) {
	m.score.WithLabelValues(opponent).Set(score)
	m.elo.WithLabelValues(opponent).Set(elo)
	m.eloLow.WithLabelValues(opponent).Set(low)
	m.eloHigh.WithLabelValues(opponent).Set(high)
}

// Gate records the gate's verdict ("accepted", "rejected", ...) and its
// log-likelihood ratio.
func (m *Metrics) Gate(decision string, llr float64) {
	m.gateLLR.Set(llr)
	accepted := 0.0
	if decision == "accepted" || decision == "accepted-leaning" || decision == "ungated" {
		accepted = 1
	}
	m.gateAccepted.Set(accepted)
	m.gates.WithLabelValues(decision).Inc()
}

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Serve serves m on addr (HOST:PORT; ":0" picks a free port) at /metrics
// until ctx ends, and returns the address it listens on. A failure to
// listen is an error naming addr; one while serving goes to errs (nil:
// dropped).
func Serve(ctx context.Context, addr string, m *Metrics, errs func(error)) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for metrics: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && errs != nil {
			errs(fmt.Errorf("metrics on %s: %w", ln.Addr(), err))
		}
	}()
	return ln.Addr(), nil
}
