package mcts

import (
	"context"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
)

// TestSetSimulations_ChangesTheNextRun: a search can be made longer or
// shorter between moves, keeping its tree; nonsense is ignored.
func TestSetSimulations_ChangesTheNextRun(t *testing.T) {
	v := load(t, "nine")
	s := newSearch(t, v, testSettings(50), 1)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	s.SetSimulations(120)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	if got := s.Result().Visited; got != 120 {
		t.Errorf("%d root visits, want 120", got)
	}
	s.SetSimulations(0)
	if got := s.Settings().Simulations; got != 120 {
		t.Errorf("SetSimulations(0) made it %d", got)
	}
}

// TestSetSettings_TakesEffectAndRefusesNonsense: new settings apply to the
// next Run (here: noise turned on for a reused root), bad ones change
// nothing.
func TestSetSettings_TakesEffectAndRefusesNonsense(t *testing.T) {
	v := load(t, "nine")
	s := newSearch(t, v, testSettings(1), 1)
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	bad := testSettings(0)
	if err := s.SetSettings(bad); err == nil {
		t.Fatal("simulations 0 accepted")
	}
	if s.Settings().Simulations != 1 {
		t.Fatalf("refused settings changed simulations to %d", s.Settings().Simulations)
	}
	set := testSettings(1)
	set.DirichletFraction = 0.5
	// A new root (after a move) gets noise with the new settings.
	best := s.Result().Best
	if err := s.Advance(best); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSettings(set); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(UniformEvaluator{}); err != nil {
		t.Fatal(err)
	}
	priors := s.Result().Priors
	uniform := 1 / float32(len(priors))
	noisy := false
	for _, p := range priors {
		if p != uniform {
			noisy = true
		}
	}
	if !noisy {
		t.Error("noise set by SetSettings did not reach the root priors")
	}
}

// TestPlacingFactor_MultipliesThePlacingMovesVisits: with placing_factor
// 3, a search whose player to move has pieces in hand takes three times
// the visits, by Run and by RunFor, with either root; a moving position
// takes the visits asked for.
func TestPlacingFactor_MultipliesThePlacingMovesVisits(t *testing.T) {
	v := load(t, "nine")
	moving := parse(t, v, "OO*O****/**O*****/@@*@**@* side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:40")
	for _, root := range []string{RootPUCT, RootGumbel} {
		for _, c := range []struct {
			name string
			pos  engine.Position
			want int
		}{{"placing", v.Start(), 60}, {"moving", moving, 20}} {
			set := testSettings(20)
			set.Root, set.PlacingFactor = root, 3
			s := newSearch(t, v, set, 1)
			s.SetRoot(c.pos, nil)
			if err := s.Run(UniformEvaluator{}); err != nil {
				t.Fatal(err)
			}
			if got := s.Result().Visited; got != c.want {
				t.Errorf("%s root, %s: Run made %d root visits, want %d", root, c.name, got, c.want)
			}
			s.SetRoot(c.pos, nil)
			if err := s.RunFor(context.Background(), UniformEvaluator{}, 20, time.Time{}, 0); err != nil {
				t.Fatal(err)
			}
			if got := s.Result().Visited; got != c.want {
				t.Errorf("%s root, %s: RunFor made %d root visits, want %d", root, c.name, got, c.want)
			}
		}
	}
}
