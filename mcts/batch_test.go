package mcts

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/millzero/millzero/engine"
)

// countingEvaluator records the size of every batch it scores.
type countingEvaluator struct {
	inner Evaluator
	sizes []int
	fail  int // fail on this call (1-based), 0 never
}

var errBroken = errors.New("broken evaluator")

func (e *countingEvaluator) Evaluate(b *Batch) error {
	e.sizes = append(e.sizes, b.Len())
	if len(e.sizes) == e.fail {
		return errBroken
	}
	return e.inner.Evaluate(b)
}

// visitsOf runs searches of the nine start in one pool and returns each
// search's root visits.
func visitsOf(t *testing.T, v *engine.Variant, set Settings, seeds []uint64, eval Evaluator) [][]int32 {
	t.Helper()
	var searches []*Search
	for _, seed := range seeds {
		searches = append(searches, newSearch(t, v, set, seed))
	}
	if err := NewPool(v, eval).Run(searches); err != nil {
		t.Fatal(err)
	}
	var out [][]int32
	for _, s := range searches {
		checkTree(t, s, nil)
		out = append(out, slices.Clone(s.Result().Visits))
	}
	return out
}

// TestPool_SearchesDoNotDependOnTheirCompany: with an evaluator that
// depends only on the position, a search in a pool of many finds what it
// finds alone.
func TestPool_SearchesDoNotDependOnTheirCompany(t *testing.T) {
	v := load(t, "nine")
	set := DefaultSettings()
	set.Simulations = 200
	seeds := []uint64{1, 2, 3, 4, 5}
	together := visitsOf(t, v, set, seeds, UniformEvaluator{})
	for i, seed := range seeds {
		alone := visitsOf(t, v, set, []uint64{seed}, UniformEvaluator{})
		if !slices.Equal(alone[0], together[i]) {
			t.Errorf("seed %d: visits alone %v, in a pool %v", seed, alone[0], together[i])
		}
	}
}

// TestPool_ReproducibleFromSeeds: the same seeds and a deterministic
// evaluator give the same search, noise and all.
func TestPool_ReproducibleFromSeeds(t *testing.T) {
	v := load(t, "morabaraba")
	set := DefaultSettings()
	set.Simulations = 150
	seeds := []uint64{7, 8, 9}
	a := visitsOf(t, v, set, seeds, rollouts(t, v, 1, 42))
	b := visitsOf(t, v, set, seeds, rollouts(t, v, 1, 42))
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("search %d: visits %v then %v", i, a[i], b[i])
		}
	}
	c := visitsOf(t, v, set, []uint64{7, 8, 10}, rollouts(t, v, 1, 42))
	if slices.Equal(a[2], c[2]) {
		t.Errorf("seeds 9 and 10 gave the same visits %v: is the seed used?", a[2])
	}
}

// TestPool_BatchesAreFull: many trees in flight fill the evaluator's batches.
func TestPool_BatchesAreFull(t *testing.T) {
	v := load(t, "nine")
	set := DefaultSettings()
	set.Simulations = 256
	set.BatchSize = 8
	var seeds []uint64
	for i := range 16 {
		seeds = append(seeds, uint64(i))
	}
	e := &countingEvaluator{inner: UniformEvaluator{}}
	visitsOf(t, v, set, seeds, e)
	total := 0
	for _, n := range e.sizes {
		total += n
	}
	full := 16 * 8
	if mean := float64(total) / float64(len(e.sizes)); mean < 0.8*float64(full) {
		t.Errorf("mean batch %.1f positions over %d calls, want at least 80%% of %d", mean, len(e.sizes), full)
	}
	if max := slices.Max(e.sizes); max > full {
		t.Errorf("a batch of %d positions, more than %d trees x %d", max, 16, 8)
	}
}

// TestPool_EvaluatorErrorLeavesTheTreesWhole: an evaluator error is
// returned with context, and the searches can go on afterwards.
func TestPool_EvaluatorErrorLeavesTheTreesWhole(t *testing.T) {
	v := load(t, "nine")
	set := DefaultSettings()
	set.Simulations = 100
	s1, s2 := newSearch(t, v, set, 1), newSearch(t, v, set, 2)
	e := &countingEvaluator{inner: UniformEvaluator{}, fail: 3}
	err := NewPool(v, e).Run([]*Search{s1, s2})
	if !errors.Is(err, errBroken) {
		t.Fatalf("error %v, want the evaluator's", err)
	}
	checkTree(t, s1, nil)
	checkTree(t, s2, nil)
	if err := NewPool(v, UniformEvaluator{}).Run([]*Search{s1, s2}); err != nil {
		t.Fatal(err)
	}
	checkTree(t, s1, nil)
	if s1.Result().Visited != 100 {
		t.Errorf("%d root visits, want 100", s1.Result().Visited)
	}
}

// TestPool_WrongVariantIsAnError names the variants.
func TestPool_WrongVariantIsAnError(t *testing.T) {
	nine, three := load(t, "nine"), load(t, "three")
	s := newSearch(t, three, DefaultSettings(), 1)
	err := NewPool(nine, UniformEvaluator{}).Run([]*Search{s})
	if err == nil {
		t.Fatal("a search of three ran in a pool of nine")
	}
}

// cancelEvaluator cancels a context at its nth call.
type cancelEvaluator struct {
	inner  Evaluator
	calls  int
	n      int
	cancel func()
}

func (e *cancelEvaluator) Evaluate(b *Batch) error {
	if e.calls++; e.calls == e.n {
		e.cancel()
	}
	return e.inner.Evaluate(b)
}

// TestPool_ACancelledContextStopsTheSearchesAtTheNextBatch: a search of
// 100,000 visits stops one batch after its context ends (an interrupt is
// answered in a batch's time, whatever the visits), its tree whole.
func TestPool_ACancelledContextStopsTheSearchesAtTheNextBatch(t *testing.T) {
	v := load(t, "nine")
	set := DefaultSettings()
	set.Simulations = 100_000
	s1, s2 := newSearch(t, v, set, 1), newSearch(t, v, set, 2)
	ctx, cancel := context.WithCancel(context.Background())
	e := &cancelEvaluator{inner: UniformEvaluator{}, n: 5, cancel: cancel}
	err := NewPool(v, e).RunContext(ctx, []*Search{s1, s2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunContext = %v; want the context's error", err)
	}
	if e.calls != e.n {
		t.Errorf("the evaluator was called %d times; want the search to stop after call %d", e.calls, e.n)
	}
	checkTree(t, s1, nil)
	checkTree(t, s2, nil)
	if got := s1.Result().Visited; got >= set.Simulations || got < 1 {
		t.Errorf("%d root visits after the interrupt; want some, far fewer than %d", got, set.Simulations)
	}
}
