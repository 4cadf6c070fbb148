package selfplay

import (
	"context"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/mcts"
)

// Job is one self-play run: who plays, how many games, and where the
// shards go.
type Job struct {
	Variant    *engine.Variant
	Settings   Settings
	Games      int    // games to finish; 0 plays until ctx is cancelled
	Generation int    // the run's generation the games are for; each shard records it
	Model      int    // the model generation playing (0: none, rollouts); shards record it under ModelKey
	ShardDir   string // where the shards go: the directory of the generation's shards (store.Dir.ShardDir in a run)
	Seed       uint64 // seeds the searches, the move choice and the game ids (gameIDPrefix)

	// NewEvaluator makes worker i's evaluator (each worker calls it once,
	// from its own goroutine). Nil plays generation 0: uniform priors and
	// random-rollout values.
	NewEvaluator func(worker int) (mcts.Evaluator, error)

	// Prover, if set, knows the exact value of some positions (endgame
	// tables; safe for concurrent use): the searches use it as proven
	// nodes, a game that reaches a position it knows ends there with its
	// result (adjudication), and every recorded position it knows gets its
	// exact outcome as the value target (rescoring); Settings.Tables may
	// play on instead, only rescore, or ignore the Prover.
	Prover mcts.Prover

	// Progress, if set, is called about every ProgressEvery with the
	// totals so far, from a goroutine of its own.
	Progress      func(Stats)
	ProgressEvery time.Duration
}

// Stats are the totals of one self-play job.
type Stats struct {
	Games        int64                  // games finished and written
	Positions    int64                  // positions recorded (full searches)
	Plies        int64                  // actions played in finished games
	Moves        int64                  // actions played in every game, finished or not
	Wins         [engine.MaxSeats]int64 // games each seat won
	Draws        int64
	Reasons      [16]int64 // games ended by each engine.Reason
	Evaluations  int64     // positions the evaluator scored
	Calls        int64     // Evaluate calls (Evaluations/Calls is the mean batch)
	EvalTime     time.Duration
	Elapsed      time.Duration
	Shards       int64
	KLMicro      int64 // the recorded searches' KL divergence of the visit target from the prior, summed, in micro-nats
	EntropyMicro int64 // the recorded searches' policy targets' own entropy, summed, in micro-nats
	Adjudicated  int64 // games ended at a position the Prover knows, with its result
	Rescored     int64 // recorded positions whose value target is the Prover's exact outcome

	EndgameStarts int64 // games started from a random endgame (Settings.EndgameStarts), finished or not
	OpeningStarts int64 // games opened with random plies (Settings.OpeningStarts), finished or not

	// Resignation (Settings.ResignThreshold, see resign.go); resigned
	// games are counted under Reasons[engine.NotOver], as adjudicated ones.
	ResignedGames int64 // finished games that ended by a seat's resignation, with its loss
	WouldResign   int64 // finished games of the playout share in which a seat would have resigned
	FalseResigns  int64 // of those, the games that seat did not lose (won or drew)
}

// MeanPolicyKL is the mean KL divergence, in nats, of the recorded policy
// targets (visit shares) from the priors the search started from (root
// noise included): how much the search changed the network's mind. Near
// zero, the policy target teaches the network nothing new.
func (s Stats) MeanPolicyKL() float64 {
	if s.Positions == 0 {
		return 0
	}
	return float64(s.KLMicro) / 1e6 / float64(s.Positions)
}

// MeanTargetEntropy is the mean entropy, in nats, of the recorded policy
// targets: 0 for a target on one action, log(n) for n actions alike. The
// policy loss is this plus the network's KL divergence from the targets,
// so it is the loss's floor for these targets; with MeanPolicyKL it tells
// a sharp target far from the prior from a flat one.
func (s Stats) MeanTargetEntropy() float64 {
	if s.Positions == 0 {
		return 0
	}
	return float64(s.EntropyMicro) / 1e6 / float64(s.Positions)
}

// PositionsPerSecond is recorded positions per second of wall time.
func (s Stats) PositionsPerSecond() float64 { return rate(s.Positions, s.Elapsed) }

// MovesPerSecond is actions played (each after a search) per second of
// wall time, in finished and unfinished games.
func (s Stats) MovesPerSecond() float64 { return rate(s.Moves, s.Elapsed) }

// MeanBatch is the mean number of positions per Evaluate call.
func (s Stats) MeanBatch() float64 {
	if s.Calls == 0 {
		return 0
	}
	return float64(s.Evaluations) / float64(s.Calls)
}

// EvaluationsPerSecond is positions scored by the evaluator per second.
func (s Stats) EvaluationsPerSecond() float64 { return rate(s.Evaluations, s.Elapsed) }

// MeanLength is the mean number of actions of a finished game.
func (s Stats) MeanLength() float64 {
	if s.Games == 0 {
		return 0
	}
	return float64(s.Plies) / float64(s.Games)
}

// OutsideNetwork is the share of the workers' time not spent in the
// evaluator (search, rules, recording).
func (s Stats) OutsideNetwork(workers int) float64 {
	total := s.Elapsed.Seconds() * float64(workers)
	if total <= 0 {
		return 0
	}
	return 1 - s.EvalTime.Seconds()/total
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// counters are the shared, atomically updated totals.
type counters struct {
	games, positions, plies, moves, draws, evals, calls, evalNanos, shards, klMicro atomic.Int64
	entropyMicro, adjudicated, rescored, endgameStarts, openingStarts               atomic.Int64
	resigned, wouldResign, falseResigns                                             atomic.Int64
	wins                                                                            [engine.MaxSeats]atomic.Int64
	reasons                                                                         [16]atomic.Int64
	started                                                                         atomic.Int64
}

func (c *counters) snapshot(start time.Time) Stats {
	s := Stats{
		Games: c.games.Load(), Positions: c.positions.Load(), Plies: c.plies.Load(),
		Moves: c.moves.Load(), Calls: c.calls.Load(),
		Draws: c.draws.Load(), Evaluations: c.evals.Load(), Shards: c.shards.Load(),
		EvalTime: time.Duration(c.evalNanos.Load()), Elapsed: time.Since(start), KLMicro: c.klMicro.Load(),
		EntropyMicro: c.entropyMicro.Load(),
		Adjudicated:  c.adjudicated.Load(), Rescored: c.rescored.Load(), EndgameStarts: c.endgameStarts.Load(),
		OpeningStarts: c.openingStarts.Load(),
		ResignedGames: c.resigned.Load(), WouldResign: c.wouldResign.Load(), FalseResigns: c.falseResigns.Load(),
	}
	for i := range s.Wins {
		s.Wins[i] = c.wins[i].Load()
	}
	for i := range s.Reasons {
		s.Reasons[i] = c.reasons[i].Load()
	}
	return s
}

// Run plays the job's games on Settings.Workers goroutines and writes
// every finished game to a shard. When ctx is cancelled the games in
// flight are dropped and the finished ones written; Run then returns the
// totals with ctx's error.
func Run(ctx context.Context, job Job) (Stats, error) {
	if job.Variant == nil {
		return Stats{}, errors.New("selfplay: no variant")
	}
	if err := job.Settings.Validate(); err != nil {
		return Stats{}, err
	}
	if job.Games < 0 {
		return Stats{}, fmt.Errorf("selfplay: games %d: want 0 (until stopped) or more", job.Games)
	}
	if err := checkResignation(&job.Settings, job.Variant); err != nil {
		return Stats{}, err
	}
	if err := checkEndgameStarts(&job.Settings, job.Variant); err != nil {
		return Stats{}, err
	}
	if job.Settings.Tables == TablesOff {
		job.Prover = nil
	}
	start := time.Now()
	var c counters
	n := job.Settings.workers()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = runWorker(ctx, &job, i, &c)
		}(i)
	}
	done := make(chan struct{})
	if job.Progress != nil {
		every := job.ProgressEvery
		if every <= 0 {
			every = 2 * time.Second
		}
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					job.Progress(c.snapshot(start))
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	stats := c.snapshot(start)
	if err := errors.Join(errs...); err != nil {
		return stats, err
	}
	return stats, ctx.Err()
}

// slot is one game in flight in a worker.
type slot struct {
	g       *engine.Game
	s       *mcts.Search
	id      string
	full    bool
	samples []dataset.Sample
	proven  engine.Result // the Prover's result of the position the game ended at; Ongoing when the rules ended it
	resign  resignState
}

type worker struct {
	job     *Job
	c       *counters
	rng     *mrand.Rand
	prefix  string // game ids: prefix + counter
	counter int
	resRng  *mrand.Rand      // draws each game's place in the resignation playout share, apart from rng so resignation changes no move
	egRng   *mrand.Rand      // draws the endgame starts (endgame.go), apart from rng for the same reason
	egMats  [][2]int         // the materials an endgame start draws from
	opRng   *mrand.Rand      // draws the opening starts (opening.go), apart from rng for the same reason
	pending []dataset.Sample // samples of finished games not yet in a shard
	games   int              // finished games in pending
}

func runWorker(ctx context.Context, job *Job, i int, c *counters) error {
	v := job.Variant
	var eval mcts.Evaluator
	var err error
	if job.NewEvaluator != nil {
		eval, err = job.NewEvaluator(i)
	} else {
		eval, err = mcts.NewRolloutEvaluator(v, job.Settings.RolloutPlayouts, job.Settings.RolloutPlies, seed.Derive(job.Seed, "rollout", uint64(i)))
	}
	if err == nil {
		err = mcts.CheckEvaluator(job.Settings.Search, eval)
	}
	if err != nil {
		return fmt.Errorf("selfplay worker %d: evaluator: %w", i, err)
	}
	w := &worker{job: job, c: c, rng: mrand.New(mrand.NewPCG(seed.Derive(job.Seed, "worker", uint64(i)), 0)),
		resRng: mrand.New(mrand.NewPCG(seed.Derive(job.Seed, "resign", uint64(i)), 0)),
		egRng:  mrand.New(mrand.NewPCG(seed.Derive(job.Seed, "endgame", uint64(i)), 0)),
		egMats: endgameMaterials(v, job.Settings.EndgamePieces),
		opRng:  mrand.New(mrand.NewPCG(seed.Derive(job.Seed, "opening", uint64(i)), 0)),
		prefix: gameIDPrefix(job.Seed, i)}
	pool := mcts.NewPool(v, &timedEvaluator{inner: eval, c: c})
	var slots []*slot
	for k := 0; k < job.Settings.GamesInFlight && w.claim(); k++ {
		s, err := mcts.NewSearch(v, job.Settings.Search, seed.Derive(job.Seed, "search", uint64(i), uint64(k)))
		if err != nil {
			return err
		}
		if job.Prover != nil && job.Settings.Tables != TablesRescore {
			s.SetProver(job.Prover)
		}
		sl, err := w.newGame(&slot{s: s})
		if err != nil {
			return fmt.Errorf("selfplay worker %d: %w", i, err)
		}
		slots = append(slots, sl)
	}
	// Playout cap randomisation (KataGo): a full search, with root noise,
	// on a share of the moves, which alone are recorded; a fast one
	// without Dirichlet noise on the others. A gumbel root has no
	// Dirichlet noise: its Gumbel noise, the move's temperature, is the
	// same in both, and its recorded target is the improved policy.
	full := job.Settings.Search
	fast := full
	fast.Simulations = job.Settings.FastSimulations
	fast.DirichletFraction = 0
	// Forced playouts are exploration, like the noise: full searches only.
	fast.ForcedPlayoutsK, fast.PrunePolicyTarget = 0, false
	searches := make([]*mcts.Search, 0, len(slots))
	for len(slots) > 0 {
		if ctx.Err() != nil {
			break
		}
		searches = searches[:0]
		for _, sl := range slots {
			sl.full = w.rng.Float64() < job.Settings.FullFraction
			set := &fast
			if sl.full {
				set = &full
			}
			if err := sl.s.SetSettings(*set); err != nil {
				return fmt.Errorf("selfplay worker %d: %w", i, err)
			}
			searches = append(searches, sl.s)
		}
		if err := pool.RunContext(ctx, searches); err != nil {
			if ctx.Err() != nil {
				break // the games in flight are dropped; the finished ones flushed
			}
			return fmt.Errorf("selfplay worker %d: %w", i, err)
		}
		live := slots[:0]
		for _, sl := range slots {
			over, err := w.step(sl)
			if err != nil {
				return fmt.Errorf("selfplay worker %d: %w", i, err)
			}
			if over {
				if err := w.finish(sl); err != nil {
					return err
				}
				if !w.claim() {
					continue
				}
				if _, err := w.newGame(sl); err != nil {
					return fmt.Errorf("selfplay worker %d: %w", i, err)
				}
			}
			live = append(live, sl)
		}
		slots = live
	}
	return w.flush()
}

// claim reserves one more game to start, if the job wants more.
func (w *worker) claim() bool {
	if w.job.Games == 0 {
		return true
	}
	if w.c.started.Add(1) > int64(w.job.Games) {
		w.c.started.Add(-1)
		return false
	}
	return true
}

// gameIDPrefix begins the ids of worker i's games: 12 hex digits hashed
// from the job's seed and i, then i. The ids are as unique as the seeds
// (the loop seeds each round apart, a following worker from the clock
// and its process id), and a seeded run names its games alike every time:
// the validation split, taken by game id, is then the same, and so is
// the training.
func gameIDPrefix(base uint64, i int) string {
	h := seed.Derive(base, "game id", uint64(i))
	return fmt.Sprintf("%012x-%d-", h>>16, i)
}

func (w *worker) newGame(sl *slot) (*slot, error) {
	sl.g = engine.NewGame(w.job.Variant)
	if st := w.job.Settings.EndgameStarts; st > 0 && w.egRng.Float64() < st {
		p, err := randomEndgame(w.job.Variant, w.egMats, w.egRng)
		if err != nil {
			return nil, err
		}
		sl.g = engine.NewGameFrom(w.job.Variant, p)
		w.c.endgameStarts.Add(1)
	} else if st := w.job.Settings.OpeningStarts; st > 0 && w.opRng.Float64() < st {
		g, err := randomOpening(w.job.Variant, w.job.Settings.OpeningPlies, w.opRng)
		if err != nil {
			return nil, err
		}
		sl.g = g
		w.c.openingStarts.Add(1)
	}
	sl.s.SetGame(sl.g)
	sl.id = w.prefix + strconv.Itoa(w.counter)
	w.counter++
	sl.samples = sl.samples[:0]
	sl.proven = engine.Ongoing
	sl.resign.reset(w.job.Settings.ResignThreshold > 0 && w.resRng.Float64() < w.job.Settings.ResignPlayout)
	return sl, nil
}

// step records the searched position if the search was full, plays the
// chosen action (or resigns for the seat to move, see resign.go), and
// reports whether the game is over.
func (w *worker) step(sl *slot) (bool, error) {
	v := w.job.Variant
	g := sl.g
	res := sl.s.Result()
	if sl.full {
		smp := dataset.Sample{
			Variant:     v.Name,
			GameID:      sl.id,
			Ply:         len(g.Actions),
			Generation:  w.job.Generation,
			Position:    g.Pos,
			Repetitions: v.Repetitions(&g.Pos, g.Hashes),
			RootValue:   res.Value[g.Pos.Side],
			Simulations: res.Visited,
			Full:        true,
		}
		for k, a := range res.Actions {
			if res.Policy[k] > 0 {
				smp.Policy = append(smp.Policy, dataset.PolicyEntry{Action: uint16(v.ActionIndex(a)), Prob: res.Policy[k]})
			}
		}
		sl.samples = append(sl.samples, smp)
		w.c.klMicro.Add(int64(1e6*policyKL(res.Policy, res.Priors) + 0.5))
		w.c.entropyMicro.Add(int64(1e6*entropy(res.Policy) + 0.5))
	}
	if w.job.Settings.ResignThreshold > 0 && w.resigns(sl, int(g.Pos.Side), res) {
		return true, nil
	}
	a, err := sl.s.Choose(len(g.Actions))
	if err != nil {
		return false, err
	}
	if err := g.Play(a); err != nil {
		return false, err
	}
	w.c.moves.Add(1)
	if r, _ := g.Outcome(); r != engine.Ongoing {
		return true, nil
	}
	if w.job.Prover != nil && w.job.Settings.Tables == TablesAdjudicate {
		if r, _, ok := w.job.Prover.Prove(&g.Pos); ok {
			sl.proven = r
			return true, nil
		}
	}
	return false, sl.s.Advance(a)
}

// finish gives a finished game's samples their outcome and queues them for
// the next shard.
func (w *worker) finish(sl *slot) error {
	v := w.job.Variant
	r, why := sl.g.Outcome()
	if sl.proven != engine.Ongoing {
		r, why = sl.proven, engine.NotOver
		w.c.adjudicated.Add(1)
	}
	if seat := sl.resign.resigned; seat >= 0 {
		r, why = engine.WinFor(1-seat), engine.NotOver // 2 players (checkResignation)
		w.c.resigned.Add(1)
	}
	if seat := sl.resign.would; seat >= 0 {
		w.c.wouldResign.Add(1)
		if r.Score(seat, v.Players) > 0 {
			w.c.falseResigns.Add(1)
		}
	}
	class := r.Class(v.Players)
	end := dataset.EndOf(&sl.g.Pos)
	for k := range sl.samples {
		smp := &sl.samples[k]
		smp.Outcome, smp.End, smp.Reply = class, end, -1
		if i := smp.Ply + 1; i < len(sl.g.Actions) { // Ply counts the game's actions before the sample
			smp.Reply = v.ActionIndex(sl.g.Actions[i])
		}
		if w.job.Prover != nil {
			if exact, _, ok := w.job.Prover.Prove(&sl.samples[k].Position); ok {
				// The exact value is the proven root's: the outcome
				// target, and the root value a value_mix trainer mixes in.
				sl.samples[k].Outcome = exact.Class(v.Players)
				sl.samples[k].RootValue = float32(exact.Score(int(sl.samples[k].Position.Side), v.Players))
				w.c.rescored.Add(1)
			}
		}
	}
	w.pending = append(w.pending, sl.samples...)
	sl.samples = nil // the queued samples own their policies now
	w.games++
	w.c.games.Add(1)
	w.c.plies.Add(int64(len(sl.g.Actions)))
	w.c.reasons[why].Add(1)
	if seat, ok := r.Winner(); ok {
		w.c.wins[seat].Add(1)
	} else {
		w.c.draws.Add(1)
	}
	if w.games >= w.job.Settings.GamesPerShard {
		return w.flush()
	}
	return nil
}

// flush writes the queued games as one shard.
func (w *worker) flush() error {
	if w.games == 0 {
		return nil
	}
	sw, err := dataset.NewShardWriter(w.job.ShardDir, map[string]string{
		GamesKey:     strconv.Itoa(w.games),
		"generation": strconv.Itoa(w.job.Generation),
		ModelKey:     strconv.Itoa(w.job.Model),
	}, w.job.Variant)
	if err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	if err := sw.Write(w.pending...); err != nil {
		sw.Abort()
		return fmt.Errorf("selfplay: %w", err)
	}
	if err := sw.Close(); err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	w.c.positions.Add(int64(len(w.pending)))
	w.c.shards.Add(1)
	w.pending = w.pending[:0]
	w.games = 0
	return nil
}

// timedEvaluator counts the positions evaluated and the time spent in the
// evaluator.
type timedEvaluator struct {
	inner mcts.Evaluator
	c     *counters
}

func (t *timedEvaluator) Evaluate(b *mcts.Batch) error {
	start := time.Now()
	err := t.inner.Evaluate(b)
	t.c.evalNanos.Add(int64(time.Since(start)))
	t.c.evals.Add(int64(b.Len()))
	t.c.calls.Add(1)
	return err
}

// policyKL is KL(target || prior) in nats over the actions the target
// gives weight; a prior of zero there (never, after the search's
// renormalisation) is floored so the sum stays finite.
func policyKL(target, prior []float32) float64 {
	kl := 0.0
	for k, t := range target {
		if t > 0 {
			kl += float64(t) * math.Log(float64(t)/max(float64(prior[k]), 1e-9))
		}
	}
	return max(kl, 0)
}

// entropy is -Σ p log p in nats over the actions p gives weight.
func entropy(p []float32) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= float64(x) * math.Log(float64(x))
		}
	}
	return max(h, 0)
}
