package selfplay

import (
	"fmt"
	"math"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/mcts"
)

// Spread is how self-play's policy targets of one position vary from one
// search to the next, and how far the network's policy is from them:
// TargetSpread searches each position several times, as self-play's full
// searches do, and compares the targets with each other and with the
// network's own policy there.
//
// Every figure is a mean over the positions with its 95% half-width (1.96
// standard errors of the positions' values). Since a target is a sample of
// the targets the search makes of its position, the least policy loss any
// network can have on them is the entropy of their mean (E[-Σ t log p] is
// least at p = E[t]); CrossEntropy less that, KL(mean target || policy),
// is the part of the network's policy loss that better fitting could take
// away, and the rest is the searches' disagreement.
type Spread struct {
	Positions int `json:"positions"`
	Searches  int `json:"searches"` // searches of each position

	Entropy      Estimate `json:"entropy"`       // nats: one search's target
	Recorded     Estimate `json:"recorded"`      // nats: the samples' own targets, as self-play recorded them
	MeanEntropy  Estimate `json:"mean_entropy"`  // nats: a position's mean target over its searches (a finite number of searches makes it low)
	CrossEntropy Estimate `json:"cross_entropy"` // nats: one target under the network's policy, the policy loss the network has on fresh targets of its own
	Excess       Estimate `json:"excess"`        // nats: CrossEntropy less MeanEntropy, KL(mean target || policy)
	Agreement    Estimate `json:"agreement"`     // share of pairs of searches whose targets put the most on the same action
	QSpread      Estimate `json:"q_spread"`      // root gumbel: the spread of the root children's completed Q (max - min, score units), a search's mean
	NarrowQ      Estimate `json:"narrow_q"`      // root gumbel: share of searches whose completed Q's spread is under NarrowSpread
}

// NarrowSpread is the spread of the completed Q under which Spread counts a
// search's values as close: moves 0.05 of a win apart, or less.
const NarrowSpread = 0.05

// Estimate is a mean over positions and its 95% half-width.
type Estimate struct {
	Mean float64 `json:"mean"`
	Half float64 `json:"half95"`
}

// String is "mean ± half".
func (e Estimate) String() string { return fmt.Sprintf("%.3f ± %.3f", e.Mean, e.Half) }

// TargetSpread searches the position of every sample searches times with
// set (each search seeded apart from the others; with a randomly
// orienting evaluator each sees the board turned its own way, as self-play
// does) and measures the targets' Spread. The network's policy at a
// position is what eval gives its root, a one-visit search without root
// noise, once for each search (so in as many orientations).
//
// A sample's search starts afresh (self-play's may reuse a subtree of the
// move before) from a history of the sample's Ply positions, in which the
// earlier occurrences of the position (Repetitions) are restored: the
// root's temperature, and with it a gumbel root's noise, and the draws by
// repetition of the root are self-play's; the other earlier positions are
// placeholders that match none the search reaches.
func TargetSpread(v *engine.Variant, eval mcts.Evaluator, set mcts.Settings, samples []dataset.Sample, searches int, seed uint64) (Spread, error) {
	return TargetSpreadEach(v, eval, set, samples, searches, seed, nil)
}

// TargetPosition is what TargetSpreadEach's searches found at one
// position, for a caller that looks at each (bench targets judges them
// with a deeper search). Its slices are overwritten by the next position.
type TargetPosition struct {
	Sample  int             // the sample's index
	Actions []engine.Action // the legal actions, in the engine's order
	Top     []int           // each search's target's most probable action (an index into Actions)
	Prior   int             // the network's most probable action, as the first prior search saw it
	QSpread []float32       // each search's Result.QSpread
}

// TargetSpreadEach is TargetSpread, calling each (unless nil) with every
// position's searches as they end; an error from it stops the measurement.
func TargetSpreadEach(v *engine.Variant, eval mcts.Evaluator, set mcts.Settings, samples []dataset.Sample, searches int, seed uint64, each func(*TargetPosition) error) (Spread, error) {
	if searches < 2 {
		return Spread{}, fmt.Errorf("target spread: %d searches a position: want 2 or more", searches)
	}
	if len(samples) == 0 {
		return Spread{}, fmt.Errorf("target spread: no positions")
	}
	prior := set
	prior.Simulations, prior.Root, prior.DirichletFraction = 1, mcts.RootPUCT, 0
	prior.ForcedPlayoutsK, prior.PrunePolicyTarget = 0, false
	all := make([]*mcts.Search, 2*searches) // the targets' searches, then the priors'
	for k := range all {
		s := set
		if k >= searches {
			s = prior
		}
		var err error
		if all[k], err = mcts.NewSearch(v, s, seedpkg.Derive(seed, "target spread", uint64(k))); err != nil {
			return Spread{}, fmt.Errorf("target spread: %w", err)
		}
	}
	pool := mcts.NewPool(v, eval)
	var ent, rec, meanEnt, cross, excess, agree, spread, narrow stat
	var history []uint64
	var recorded []float32 // the sample's own target, as probabilities
	targets := make([][]float32, searches)
	priors := make([][]float32, searches)
	var mean []float64
	best := make([]int, searches)
	var tp TargetPosition
	for i := range samples {
		smp := &samples[i]
		recorded = recorded[:0]
		for _, e := range smp.Policy {
			recorded = append(recorded, e.Prob)
		}
		rec.add(entropy(recorded))
		history = placeholderHistory(history[:0], &smp.Position, smp.Ply, smp.Repetitions)
		for _, s := range all {
			s.SetRoot(smp.Position, history)
		}
		if err := pool.Run(all); err != nil {
			return Spread{}, fmt.Errorf("target spread: position %d (ply %d of game %s): %w", i, smp.Ply, smp.GameID, err)
		}
		n, qs, nq := 0, 0.0, 0.0
		for k, s := range all {
			r := s.Result()
			if k == 0 {
				n = len(r.Actions)
				tp.Actions = append(tp.Actions[:0], r.Actions...)
				tp.QSpread = tp.QSpread[:0]
			}
			if len(r.Actions) != n {
				return Spread{}, fmt.Errorf("target spread: position %d: searches found %d and %d actions", i, n, len(r.Actions))
			}
			if k < searches {
				targets[k] = append(targets[k][:0], r.Policy...)
				tp.QSpread = append(tp.QSpread, r.QSpread)
				qs += float64(r.QSpread) / float64(searches)
				if r.QSpread < NarrowSpread {
					nq += 1 / float64(searches)
				}
			} else {
				priors[k-searches] = append(priors[k-searches][:0], r.Priors...)
			}
		}
		mean = mean[:0]
		for range n {
			mean = append(mean, 0)
		}
		spread.add(qs)
		narrow.add(nq)
		e, c := 0.0, 0.0
		for k, t := range targets {
			e += entropy(t)
			best[k] = 0
			for a, p := range t {
				mean[a] += float64(p) / float64(searches)
				if p > 0 {
					c -= float64(p) * math.Log(max(float64(priors[k][a]), 1e-9))
				}
				if p > t[best[k]] {
					best[k] = a
				}
			}
		}
		h := 0.0
		for _, p := range mean {
			if p > 0 {
				h -= p * math.Log(p)
			}
		}
		same := 0
		for a := range best {
			for b := a + 1; b < len(best); b++ {
				if best[a] == best[b] {
					same++
				}
			}
		}
		e, c = e/float64(searches), c/float64(searches)
		ent.add(e)
		meanEnt.add(h)
		cross.add(c)
		excess.add(c - h)
		agree.add(float64(same) / float64(searches*(searches-1)/2))
		if each != nil {
			tp.Sample, tp.Top, tp.Prior = i, append(tp.Top[:0], best...), 0
			for a, p := range priors[0] {
				if p > priors[0][tp.Prior] {
					tp.Prior = a
				}
			}
			if err := each(&tp); err != nil {
				return Spread{}, err
			}
		}
	}
	return Spread{Positions: len(samples), Searches: searches, Entropy: ent.estimate(), Recorded: rec.estimate(), MeanEntropy: meanEnt.estimate(),
		CrossEntropy: cross.estimate(), Excess: excess.estimate(), Agreement: agree.estimate(),
		QSpread: spread.estimate(), NarrowQ: narrow.estimate()}, nil
}

// placeholderHistory is a history of ply positions before p in which p
// occurs repetitions times among the newest (within p's quiet plies, where
// the rules count them), and every other entry is a hash no position has
// in practice (a small counter, never p's).
func placeholderHistory(h []uint64, p *engine.Position, ply, repetitions int) []uint64 {
	for k := range ply {
		x := uint64(k) + 1
		if x == p.Hash {
			x = uint64(ply) + 1
		}
		h = append(h, x)
	}
	// A position recurs at the earliest four plies on (a slide out and back
	// by each seat), so real repetitions fit; more than fit are left out.
	for r := 1; r <= repetitions && 4*r <= ply; r++ {
		h[ply-4*r] = p.Hash
	}
	return h
}

// stat sums values for their mean and its standard error.
type stat struct{ n, sum, sq float64 }

func (s *stat) add(x float64) { s.n, s.sum, s.sq = s.n+1, s.sum+x, s.sq+x*x }

func (s *stat) estimate() Estimate {
	m := s.sum / s.n
	if s.n < 2 {
		return Estimate{Mean: m, Half: math.NaN()}
	}
	vr := max(0, (s.sq-s.n*m*m)/(s.n-1))
	return Estimate{Mean: m, Half: 1.96 * math.Sqrt(vr/s.n)}
}
