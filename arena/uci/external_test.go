package uci

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// serveEnv, when set to a variant's name, makes the test binary serve the
// depth-2 alpha-beta player of that variant on its standard input and
// output instead of running the tests: the engine an arena.External
// drives across the protocol.
const serveEnv = "MILLZERO_UCI_SERVE_ALPHABETA2"

func TestMain(m *testing.M) {
	if name := os.Getenv(serveEnv); name != "" {
		v, err := engine.Load(name)
		if err == nil {
			err = Serve(context.Background(), v, arena.AlphaBeta{Depth: 2}, "alphabeta:2", 0, os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestServe_AcrossTheProtocolPlaysLikeTheInProcessPlayer(t *testing.T) {
	// The alpha-beta player is deterministic, so behind the protocol it
	// must play exactly the games it plays in process.
	v := loadVariant(t, "nine")
	inProcess := arena.Match{Variant: v, A: arena.AlphaBeta{Depth: 2}, B: arena.Random{}, Pairs: 2, OpeningPlies: 3, Seed: 8, Workers: 2}
	want, err := inProcess.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fen := range []bool{false, true} {
		e := &arena.External{Label: "alphabeta:2", Path: os.Args[0], Env: []string{serveEnv + "=nine"},
			FEN: fen, MoveTime: time.Second, Grace: 300 * time.Millisecond, Startup: 5 * time.Second}
		m := inProcess
		m.A = e
		got, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i].Moves != want[i].Moves || got[i].Reason != want[i].Reason {
				t.Errorf("fen %v, pair %d game %d: over the protocol\n%s (%s)\nin process\n%s (%s)", fen,
					got[i].Pair, got[i].Game, got[i].Moves, got[i].Reason, want[i].Moves, want[i].Reason)
			}
		}
	}
}
