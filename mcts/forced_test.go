package mcts

import (
	"math"
	"testing"

	"github.com/millzero/millzero/engine"
)

// forcedSearch runs a self-play-like search (root noise on, batches of 8)
// of the start of nine with forced playouts k and pruning as told.
func forcedSearch(t *testing.T, k float64, prune bool, sims int, seed uint64) *Search {
	t.Helper()
	v := load(t, "nine")
	set := DefaultSettings()
	set.Simulations = sims
	set.ForcedPlayoutsK, set.PrunePolicyTarget = k, prune
	s := newSearch(t, v, set, seed)
	if err := s.Run(rollouts(t, v, 1, seed+100)); err != nil {
		t.Fatal(err)
	}
	checkTree(t, s, nil)
	return s
}

// shortOfForced counts the root children with a playout that have fewer
// than sqrt(k·P·N) - 1 playouts (N the children's playouts): the search can
// lag its growing n_forced by less than one playout.
func shortOfForced(s *Search, k float64) (short int, visited int) {
	root := &s.nodes[0]
	kids := s.nodes[root.first : root.first+int32(root.children)]
	total := int32(0)
	for i := range kids {
		total += kids[i].visits
	}
	for i := range kids {
		if kids[i].visits == 0 {
			continue
		}
		visited++
		if float64(kids[i].visits)+1 < math.Sqrt(k*float64(kids[i].prior)*float64(total)) {
			short++
		}
	}
	return short, visited
}

func TestForcedPlayouts_EveryVisitedRootChildGetsSqrtKPN(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		s := forcedSearch(t, 2, false, 400, seed)
		if short, visited := shortOfForced(s, 2); short > 0 || visited < 2 {
			t.Errorf("seed %d: %d of %d visited root children short of sqrt(2·P·N) visits", seed, short, visited)
		}
	}
	// The same searches without forcing leave children short: the rule is
	// what gives them their visits.
	short := 0
	for seed := uint64(1); seed <= 4; seed++ {
		n, _ := shortOfForced(forcedSearch(t, 0, false, 400, seed), 2)
		short += n
	}
	if short == 0 {
		t.Error("without forced playouts no child was short either: the test shows nothing")
	}
}

// handTree roots s at the start of its variant with the children given as
// (prior, visits, mean score of seat 0) and the root's own evaluation.
func handTree(t *testing.T, s *Search, kids [][3]float64) {
	t.Helper()
	var buf [engine.MaxActions]engine.Action
	legal := s.v.Legal(&s.rootPos, buf[:0])
	if len(legal) < len(kids) {
		t.Fatalf("%d legal actions, %d children wanted", len(legal), len(kids))
	}
	s.nodes = s.nodes[:1]
	root := &s.nodes[0]
	*root = node{state: expanded, first: 1, children: uint16(len(legal)), visits: 1}
	s.noised = true
	for i, a := range legal {
		c := node{action: a}
		if i < len(kids) {
			c.prior, c.visits = float32(kids[i][0]), int32(kids[i][1])
			c.valueSum[0] = float32(kids[i][2] * kids[i][1])
			c.valueSum[1] = float32((1 - kids[i][2]) * kids[i][1])
		}
		s.nodes = append(s.nodes, c)
		s.nodes[0].visits += c.visits
	}
}

func TestPrunePolicyTarget_ByHand(t *testing.T) {
	set := testSettings(1)
	set.ForcedPlayoutsK, set.PrunePolicyTarget = 2, true
	s := newSearch(t, load(t, "nine"), set, 1)
	// c_puct 1.5, N = 115 child visits, 116 at the root. The most visited
	// child's PUCT is 0.6 + 1.5·0.5·sqrt(116)/81 = 0.69973.
	handTree(t, s, [][3]float64{
		{0.5, 80, 0.6},  // the most visited: kept whole
		{0.3, 15, 0.2},  // PUCT reaches the best's at 8.699 visits, above 15 - sqrt(2·0.3·115) = 6.693
		{0.2, 5, 0.55},  // PUCT above the best's with all its 5: kept
		{0.1, 3, 0.1},   // down to 1.694 by PUCT (n_forced 4.8 allows it)
		{0.05, 2, 0.1},  // PUCT allows 0.347: left with 1 or less, dropped
		{0.02, 10, 0.1}, // PUCT would allow none, n_forced sqrt(2·0.02·115) = 2.145 caps it at 7.855
	})
	want := []float64{80, 8.698626, 5, 1.693816, 0, 7.855239}
	sum := 0.0
	for _, w := range want {
		sum += w
	}
	res := s.Result()
	for i, w := range want {
		if got := float64(res.Policy[i]); math.Abs(got-w/sum) > 1e-5 {
			t.Errorf("child %d: target %.6f, want %.6f", i, got, w/sum)
		}
	}
	for i := len(want); i < len(res.Policy); i++ {
		if res.Policy[i] != 0 {
			t.Errorf("unvisited child %d: target %v", i, res.Policy[i])
		}
	}
	if res.Visits[1] != 15 || res.Best != res.Actions[0] {
		t.Errorf("visits %v, best %v: pruning is for the target only", res.Visits[:6], res.Best)
	}
}

func TestPrunePolicyTarget_KeepsTheMostVisitedAndSumsToOne(t *testing.T) {
	pruned := 0
	for seed := uint64(1); seed <= 4; seed++ {
		s := forcedSearch(t, 2, true, 400, seed)
		res := s.Result()
		best := s.mostVisited()
		total := int32(0)
		for _, n := range res.Visits {
			total += n
		}
		sum := 0.0
		for _, p := range res.Policy {
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("seed %d: the pruned target sums to %v", seed, sum)
		}
		// The target is weights/W with the best child's weight its visits.
		w := float64(res.Visits[best]) / float64(res.Policy[best])
		for i, n := range res.Visits {
			got := float64(res.Policy[i]) * w
			nf := math.Sqrt(2 * float64(res.Priors[i]) * float64(total))
			switch {
			case got > float64(n)+1e-3:
				t.Errorf("seed %d child %d: %.3f visits in the target, it had %d", seed, i, got, n)
			case got != 0 && got <= 1:
				t.Errorf("seed %d child %d: %.3f visits left in the target, want it dropped", seed, i, got)
			case got == 0 && n > 0 && float64(n)-nf > 1+1e-3:
				t.Errorf("seed %d child %d: dropped from %d visits, n_forced %.2f", seed, i, n, nf)
			case got != 0 && got < float64(n)-nf-1e-3:
				t.Errorf("seed %d child %d: %d visits cut to %.3f, more than n_forced %.2f", seed, i, n, got, nf)
			}
			if got < float64(n)-1e-3 {
				pruned++
			}
		}
	}
	if pruned == 0 {
		t.Error("no child lost a visit in the target")
	}
}

func TestPrunePolicyTarget_AProvenRootStillTakesItsProof(t *testing.T) {
	set := testSettings(1)
	set.ForcedPlayoutsK, set.PrunePolicyTarget = 2, true
	s := newSearch(t, load(t, "nine"), set, 1)
	handTree(t, s, [][3]float64{{0.5, 80, 0.6}, {0.3, 15, 0.2}})
	s.nodes[0].result = engine.WinFor(0)
	s.nodes[2].result = engine.WinFor(0)
	s.solving = true
	res := s.Result()
	if res.Policy[1] != 1 || res.Policy[0] != 0 {
		t.Errorf("proven root: target %v, want all on the proven win", res.Policy[:2])
	}
}

// TestForcedPlayouts_KeepTheBatchesFull: forcing never sends a descent to a
// root child waiting in the batch, where it would collide and end the
// search's round early (without that rule: 313 Evaluate calls here, of
// 6.4 positions, against 255 of 7.8).
func TestForcedPlayouts_KeepTheBatchesFull(t *testing.T) {
	v := load(t, "nine")
	calls := map[float64]int{}
	for _, k := range []float64{0, 2} {
		set := DefaultSettings()
		set.Simulations, set.ForcedPlayoutsK = 400, k
		eval := &countingEvaluator{inner: UniformEvaluator{}}
		s := newSearch(t, v, set, 1)
		pool := NewPool(v, eval)
		for range 5 {
			s.SetRoot(v.Start(), nil)
			if err := pool.Run([]*Search{s}); err != nil {
				t.Fatal(err)
			}
		}
		calls[k] = len(eval.sizes)
	}
	if calls[2] > calls[0]+calls[0]/20 {
		t.Errorf("%d Evaluate calls with forced playouts, %d without: forcing should not shrink the batches", calls[2], calls[0])
	}
}
