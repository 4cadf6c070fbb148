package telemetry

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestServe_MetricsCarryTheFiguresFed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New("trainer")
	addr, err := Serve(ctx, "127.0.0.1:0", m, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	m.Generation(7)
	m.Losses(1.25, 0.5, 1.875)
	m.SelfPlay(3.5, 120, 10, 400)
	m.SelfPlay(4, 130, 5, 200)
	m.Strength("alphabeta:2", 0.625, 88.7, 20.5, 160.25)
	m.Gate("rejected", -1.5)

	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, body)
	}
	text := string(body)
	for _, want := range []string{
		`millzero_generation{role="trainer"} 7`,
		`millzero_train_loss{part="policy",role="trainer"} 1.25`,
		`millzero_train_loss{part="value",role="trainer"} 0.5`,
		`millzero_train_loss{part="total",role="trainer"} 1.875`,
		`millzero_selfplay_games_per_second{role="trainer"} 4`,
		`millzero_selfplay_positions_per_second{role="trainer"} 130`,
		`millzero_selfplay_games_total{role="trainer"} 15`,
		`millzero_selfplay_positions_total{role="trainer"} 600`,
		`millzero_strength_score{opponent="alphabeta:2",role="trainer"} 0.625`,
		`millzero_strength_elo{opponent="alphabeta:2",role="trainer"} 88.7`,
		`millzero_strength_elo_low{opponent="alphabeta:2",role="trainer"} 20.5`,
		`millzero_strength_elo_high{opponent="alphabeta:2",role="trainer"} 160.25`,
		`millzero_gate_llr{role="trainer"} -1.5`,
		`millzero_gate_accepted{role="trainer"} 0`,
		`millzero_gate_decisions_total{decision="rejected",role="trainer"} 1`,
		"go_goroutines ",
		"process_cpu_seconds_total ",
	} {
		if !strings.Contains(text, want+"\n") && !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

func TestServe_BadAddressIsAnErrorNamingIt(t *testing.T) {
	_, err := Serve(context.Background(), "127.0.0.1:notaport", New("selfplay"), nil)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:notaport") {
		t.Fatalf("err %v: want an error naming the address", err)
	}
}
