package mcts

import (
	"math"
	"testing"

	"github.com/millzero/millzero/engine"
)

// searched is a search of the nine start with some visits.
func searched(t *testing.T, set Settings) *Search {
	t.Helper()
	v := load(t, "nine")
	s := newSearch(t, v, set, 1)
	if err := s.Run(rollouts(t, v, 1, 3)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResult_PolicyIsTheVisitDistribution(t *testing.T) {
	s := searched(t, testSettings(300))
	res := s.Result()
	total := int32(0)
	for _, n := range res.Visits {
		total += n
	}
	if int(total) != res.Visited-1 {
		t.Errorf("children have %d visits, the root %d (want one more, its own evaluation)", total, res.Visited)
	}
	for i, p := range res.Policy {
		if want := float32(res.Visits[i]) / float32(total); math.Abs(float64(p-want)) > 1e-6 {
			t.Errorf("policy %v for %d of %d visits", p, res.Visits[i], total)
		}
	}
	var buf [engine.MaxActions]engine.Action
	legal := s.v.Legal(&s.rootPos, buf[:0])
	if len(legal) != len(res.Actions) {
		t.Fatalf("%d actions, %d legal", len(res.Actions), len(legal))
	}
	for i := range legal {
		if legal[i] != res.Actions[i] {
			t.Fatalf("action %d is %s, the engine's is %s", i, s.v.FormatAction(res.Actions[i]), s.v.FormatAction(legal[i]))
		}
	}
	sum := res.Value[0] + res.Value[1]
	if math.Abs(float64(sum)-1) > 1e-4 {
		t.Errorf("root values %v sum to %v, want 1", res.Value, sum)
	}
}

func TestChoose_GreedyAfterTheTemperaturePlies(t *testing.T) {
	set := testSettings(300)
	set.TemperaturePlies = 10
	s := searched(t, set)
	best := s.Result().Best
	for range 50 {
		a, err := s.Choose(10)
		if err != nil {
			t.Fatal(err)
		}
		if a != best {
			t.Fatalf("ply 10 chose %s, want the most visited %s", s.v.FormatAction(a), s.v.FormatAction(best))
		}
	}
}

// TestChoose_FinalTemperatureAfterTheEarlyPlies: with a final temperature
// the later plies still sample, not only the most visited.
func TestChoose_FinalTemperatureAfterTheEarlyPlies(t *testing.T) {
	set := testSettings(300)
	set.TemperaturePlies = 10
	set.FinalTemperature = 1
	s := searched(t, set)
	seen := map[engine.Action]bool{}
	for range 200 {
		a, err := s.Choose(50)
		if err != nil {
			t.Fatal(err)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("final temperature 1 chose only %d action(s) in 200 draws", len(seen))
	}
}

// TestChoose_ProportionalToVisitsAtTemperatureOne draws many moves and
// compares their frequencies with the visit distribution.
func TestChoose_ProportionalToVisitsAtTemperatureOne(t *testing.T) {
	set := testSettings(300)
	set.TemperaturePlies = 10
	set.Temperature = 1
	s := searched(t, set)
	res := s.Result()
	policy := append([]float32(nil), res.Policy...)
	actions := append([]engine.Action(nil), res.Actions...)
	count := map[engine.Action]int{}
	const n = 20000
	for range n {
		a, err := s.Choose(9)
		if err != nil {
			t.Fatal(err)
		}
		count[a]++
	}
	for i, a := range actions {
		got := float64(count[a]) / n
		want := float64(policy[i])
		if math.Abs(got-want) > 4*math.Sqrt(want*(1-want)/n)+1e-3 {
			t.Errorf("%s chosen %.4f of the time, visit share %.4f", s.v.FormatAction(a), got, want)
		}
	}
}
