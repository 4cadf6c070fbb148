package selfplay

import (
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// smallSettings is a small self-play on the PUCT root without contempt,
// every game from the start, its games adjudicated by the tables where a
// test gives a Prover.
func smallSettings() Settings {
	s := DefaultSettings()
	s.Search.Root, s.Search.Contempt, s.Tables = mcts.RootPUCT, 0, TablesAdjudicate
	s.OpeningStarts = 0
	s.Workers = 2
	s.GamesInFlight = 4
	s.GamesPerShard = 3
	s.FullFraction = 0.5
	s.FastSimulations = 4
	s.Search.Simulations = 16
	s.Search.BatchSize = 4
	s.RolloutPlies = 100
	return s
}

func TestRun_WritesEveryFinishedGameOnce(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	job := Job{Variant: v, Settings: smallSettings(), Games: 10, Generation: 0, ShardDir: dir, Seed: 1}
	stats, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games != 10 {
		t.Fatalf("%d games finished, want 10", stats.Games)
	}
	n, err := CountGames(dir)
	if err != nil || n != 10 {
		t.Fatalf("shards hold %d games (%v), want 10", n, err)
	}
	var samples []dataset.Sample
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if !strings.HasSuffix(f, dataset.ShardExt) {
			t.Errorf("stray file %s", f)
			continue
		}
		s, err := dataset.ReadShard(f)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s...)
	}
	if int64(len(samples)) != stats.Positions {
		t.Fatalf("%d samples in shards, stats say %d", len(samples), stats.Positions)
	}
	outcome := map[string]int{}
	for _, s := range samples {
		if o, ok := outcome[s.GameID]; ok && o != s.Outcome {
			t.Fatalf("game %s has samples with outcomes %d and %d", s.GameID, o, s.Outcome)
		}
		outcome[s.GameID] = s.Outcome
		if !s.Full || len(s.Policy) == 0 || s.Simulations < 16 {
			t.Fatalf("sample %+v is not a full search's policy target", s)
		}
		sum := float32(0)
		for _, e := range s.Policy {
			sum += e.Prob
			if !v.IsLegal(&s.Position, v.ActionAt(int(e.Action))) {
				t.Fatalf("policy names an illegal action %s", v.FormatAction(v.ActionAt(int(e.Action))))
			}
		}
		if sum < 0.999 || sum > 1.001 {
			t.Fatalf("policy sums to %v", sum)
		}
	}
	if len(outcome) > 10 {
		t.Fatalf("%d game ids for 10 games", len(outcome))
	}
	checkEnds(t, v, samples)
	wins := stats.Wins[0] + stats.Wins[1] + stats.Draws
	if wins != 10 {
		t.Fatalf("results add up to %d games", wins)
	}
	// Rollout searches move the visits far from the uniform prior.
	if kl := stats.MeanPolicyKL(); !(kl > 0.01) || kl > math.Log(float64(engine.MaxActions)) {
		t.Fatalf("mean policy KL %v nats: want a positive value below log(actions)", kl)
	}
}

func TestEntropy_ZeroForOneActionAndLogNForNAlike(t *testing.T) {
	if h := entropy([]float32{0, 1, 0}); h != 0 {
		t.Errorf("entropy of a target on one action %v, want 0", h)
	}
	if h := entropy([]float32{0.25, 0.25, 0, 0.25, 0.25}); math.Abs(h-math.Log(4)) > 1e-7 {
		t.Errorf("entropy of four actions alike %v, want log 4", h)
	}
}

func TestPolicyKL_ZeroForTheSameDistributionAndKnownOtherwise(t *testing.T) {
	u := []float32{0.25, 0.25, 0.25, 0.25}
	if kl := policyKL(u, u); math.Abs(kl) > 1e-7 {
		t.Errorf("KL(u||u) = %v, want 0", kl)
	}
	// All the visits on one of four equally likely actions: log 4.
	if kl := policyKL([]float32{1, 0, 0, 0}, u); math.Abs(kl-math.Log(4)) > 1e-6 {
		t.Errorf("KL = %v, want log 4", kl)
	}
}

func TestRun_CancelLeavesOnlyCompleteShards(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	job := Job{Variant: v, Settings: smallSettings(), Games: 0, ShardDir: dir, Seed: 2,
		ProgressEvery: 50 * time.Millisecond}
	job.Progress = func(s Stats) {
		if s.Games >= 4 {
			cancel()
		}
	}
	stats, err := Run(ctx, job)
	if err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	n, err := CountGames(dir)
	if err != nil {
		t.Fatal(err)
	}
	if int64(n) != stats.Games || n < 4 {
		t.Fatalf("shards hold %d games, stats %d, want the same and at least 4", n, stats.Games)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), dataset.TempExt) {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
}

func TestSettings_BadValuesNameTheField(t *testing.T) {
	s := smallSettings()
	s.FullFraction = 0
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "full_fraction") {
		t.Fatalf("error %v, want one naming full_fraction", err)
	}
	s = smallSettings()
	s.FastSimulations = 1000
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "fast_simulations") {
		t.Fatalf("error %v, want one naming fast_simulations", err)
	}
}

// plyProver "knows" the start (a draw) and every position of ply 6 or
// more (won by seat 1): enough to see adjudication and rescoring.
type plyProver struct{}

func (plyProver) Prove(p *engine.Position) (engine.Result, int, bool) {
	switch {
	case p.Ply == 0:
		return engine.Draw, 0, true
	case p.Ply >= 6:
		return engine.WinFor(1), 1, true
	}
	return engine.Ongoing, 0, false
}

func TestRun_AProverEndsGamesAndRescoresWhatItKnows(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.FullFraction = 1 // record every position, the start included
	dir := t.TempDir()
	stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 6, ShardDir: dir, Seed: 3, Prover: plyProver{}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Adjudicated != 6 || stats.Wins[1] != 6 || stats.Plies != 36 {
		t.Fatalf("adjudicated %d, seat 1 won %d, %d plies: want all 6 games ended at ply 6, won by seat 1", stats.Adjudicated, stats.Wins[1], stats.Plies)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+dataset.ShardExt))
	starts := 0
	for _, f := range files {
		samples, err := dataset.ReadShard(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			want := engine.WinFor(1).Class(v.Players)
			if s.Ply == 0 {
				want, starts = engine.Draw.Class(v.Players), starts+1
			}
			if s.Outcome != want {
				t.Errorf("game %s ply %d: outcome class %d, want %d", s.GameID, s.Ply, s.Outcome, want)
			}
		}
	}
	if starts != 6 || stats.Rescored != 6 {
		t.Errorf("%d start samples, %d rescored: want the 6 starts rescored", starts, stats.Rescored)
	}
}

// With tables: play_out a game goes on through the positions the prover
// knows, and every recorded one still gets the prover's outcome.
func TestRun_PlayOutTablesPlaysOnAndStillRescores(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.FullFraction = 1
	set.Tables = TablesPlayOut
	dir := t.TempDir()
	stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 4, ShardDir: dir, Seed: 3, Prover: plyProver{}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Adjudicated != 0 || stats.Plies <= 4*6 {
		t.Fatalf("adjudicated %d, %d plies in 4 games: want none adjudicated, games past ply 6", stats.Adjudicated, stats.Plies)
	}
	known, past := int64(0), 0
	for _, s := range readSamples(t, dir) {
		if s.Ply > 6 {
			past++
		}
		if _, _, ok := (plyProver{}).Prove(&s.Position); !ok {
			continue
		}
		known++
		want := engine.WinFor(1).Class(v.Players)
		if s.Ply == 0 {
			want = engine.Draw.Class(v.Players)
		}
		if s.Outcome != want {
			t.Errorf("game %s ply %d: outcome class %d, want the prover's %d", s.GameID, s.Ply, s.Outcome, want)
		}
	}
	if past == 0 || stats.Rescored != known {
		t.Errorf("%d samples past ply 6, %d rescored of %d known: want samples past ply 6, every known one rescored", past, stats.Rescored, known)
	}
}

// countingProver is plyProver that counts the positions it is asked.
type countingProver struct{ asked atomic.Int64 }

func (c *countingProver) Prove(p *engine.Position) (engine.Result, int, bool) {
	c.asked.Add(1)
	return plyProver{}.Prove(p)
}

// With tables: rescore the searches never ask the prover and no game ends
// early: the prover is asked once for each recorded position, when its
// game ends, and every one it knows gets the prover's outcome.
func TestRun_RescoreTablesOnlyRescores(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.FullFraction = 1
	set.Tables = TablesRescore
	dir := t.TempDir()
	prover := &countingProver{}
	stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 4, ShardDir: dir, Seed: 3, Prover: prover})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Adjudicated != 0 || stats.Plies <= 4*6 {
		t.Fatalf("adjudicated %d, %d plies in 4 games: want none adjudicated, games past ply 6", stats.Adjudicated, stats.Plies)
	}
	samples := readSamples(t, dir)
	if asked := prover.asked.Load(); asked != int64(len(samples)) {
		t.Errorf("the prover was asked %d positions for %d recorded ones: want only the recorded ones (no search asks it)", asked, len(samples))
	}
	known := int64(0)
	for _, s := range samples {
		r, _, ok := (plyProver{}).Prove(&s.Position)
		if !ok {
			continue
		}
		known++
		if want := r.Class(v.Players); s.Outcome != want {
			t.Errorf("game %s ply %d: outcome class %d, want the prover's %d", s.GameID, s.Ply, s.Outcome, want)
		}
		if want := float32(r.Score(int(s.Position.Side), v.Players)); s.RootValue != want {
			t.Errorf("game %s ply %d: root value %v, want the prover's exact score %v", s.GameID, s.Ply, s.RootValue, want)
		}
	}
	if known == 0 || stats.Rescored != known {
		t.Errorf("%d rescored of %d known: want every known one rescored, and some", stats.Rescored, known)
	}
}

// With tables: off self-play ignores the prover (the run's tables only
// measure), and a value other than the three is refused by name.
func TestRun_TablesOffIgnoresTheProver(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.Tables = TablesOff
	stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 4, ShardDir: t.TempDir(), Seed: 3, Prover: plyProver{}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Adjudicated != 0 || stats.Rescored != 0 {
		t.Errorf("adjudicated %d, rescored %d: want the prover unused", stats.Adjudicated, stats.Rescored)
	}
	set.Tables = "adjudicated"
	if err := set.Validate(); err == nil || !strings.Contains(err.Error(), `tables "adjudicated"`) {
		t.Errorf("error %v, want one naming tables", err)
	}
}

// TestRun_GumbelRootRecordsTheImprovedPolicy is the smoke test of self-play
// with root: gumbel: every game is written once, and each recorded policy
// target is the improved policy, a distribution with weight on every
// legal action (the rollout player's priors are uniform, so none is zero;
// a visit target at 16 simulations leaves most of nine's 24 placements at
// zero).
func TestRun_GumbelRootRecordsTheImprovedPolicy(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.Search.Root = mcts.RootGumbel
	set.FullFraction = 1
	dir := t.TempDir()
	stats, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 2, ShardDir: dir, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Games != 2 {
		t.Fatalf("%d games finished, want 2", stats.Games)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"+dataset.ShardExt))
	n := 0
	h := 0.0 // the written targets' summed entropy
	var buf [engine.MaxActions]engine.Action
	for _, f := range files {
		samples, err := dataset.ReadShard(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			n++
			legal := v.Legal(&s.Position, buf[:0])
			sum := float32(0)
			for _, e := range s.Policy {
				h -= float64(e.Prob) * math.Log(float64(e.Prob))
				if !v.IsLegal(&s.Position, v.ActionAt(int(e.Action))) {
					t.Fatalf("policy names an illegal action %s", v.FormatAction(v.ActionAt(int(e.Action))))
				}
				sum += e.Prob
			}
			if sum < 0.999 || sum > 1.001 {
				t.Fatalf("policy sums to %v", sum)
			}
			if len(s.Policy) != len(legal) {
				t.Fatalf("ply %d: policy on %d of %d legal actions, want all", s.Ply, len(s.Policy), len(legal))
			}
		}
	}
	if int64(n) != stats.Positions || n == 0 {
		t.Fatalf("%d samples in shards, stats say %d", n, stats.Positions)
	}
	if kl := stats.MeanPolicyKL(); !(kl > 0.01) {
		t.Fatalf("mean policy KL %v nats: the improved policy should move off the uniform prior", kl)
	}
	// The stats' mean target entropy is that of the targets written (a
	// micro-nat of rounding a position); weight on every legal action
	// leaves it above zero.
	if got, want := stats.MeanTargetEntropy(), h/float64(n); !(want > 0.01) || math.Abs(got-want) > 1e-5 {
		t.Fatalf("mean target entropy %v nats, the written targets' %v", got, want)
	}
	t.Logf("%d positions, mean KL of the target from the prior %.3f nats, target entropy %.3f", n, stats.MeanPolicyKL(),
		stats.MeanTargetEntropy())
}

// A job's game ids follow its seed: the same seed names the games alike
// (so a seeded run splits training and validation games alike every
// time), another seed names them apart.
func TestRun_GameIDsFollowTheSeed(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	set := smallSettings()
	set.Workers = 1
	ids := func(seed uint64) map[string]bool {
		dir := t.TempDir()
		if _, err := Run(context.Background(), Job{Variant: v, Settings: set, Games: 3, ShardDir: dir, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, s := range readSamples(t, dir) {
			out[s.GameID] = true
		}
		return out
	}
	a, b, c := ids(5), ids(5), ids(6)
	if len(a) != 3 || !maps.Equal(a, b) {
		t.Errorf("seed 5 twice: game ids %v and %v, want the same 3", slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
	}
	for id := range c {
		if a[id] {
			t.Errorf("game id %s under seeds 5 and 6", id)
		}
	}
}

// checkEnds checks what each sample records of its game after it: one end
// for the whole game, after the sample's position, and a reply that is
// legal where it was played (checked where the next ply was recorded too,
// whose position is where the reply was played).
func checkEnds(t *testing.T, v *engine.Variant, samples []dataset.Sample) {
	t.Helper()
	byGame := map[string][]dataset.Sample{}
	for _, s := range samples {
		byGame[s.GameID] = append(byGame[s.GameID], s)
	}
	replies := 0
	for id, game := range byGame {
		slices.SortFunc(game, func(a, b dataset.Sample) int { return a.Ply - b.Ply })
		for i, s := range game {
			if !s.End.Known() || s.End != game[0].End || s.End.Ply <= int(s.Position.Ply) {
				t.Fatalf("game %s ply %d: its end %+v: want one known end after every sample's position", id, s.Ply, s.End)
			}
			if s.Reply < -1 || s.Reply >= v.NumActions() {
				t.Fatalf("game %s ply %d: reply %d", id, s.Ply, s.Reply)
			}
			if i+1 < len(game) && game[i+1].Ply == s.Ply+1 {
				if s.Reply < 0 || !v.IsLegal(&game[i+1].Position, v.ActionAt(s.Reply)) {
					t.Fatalf("game %s ply %d: reply %d is not an action of the next position", id, s.Ply, s.Reply)
				}
				replies++
			}
		}
	}
	if replies == 0 {
		t.Fatal("no two consecutive plies recorded: the replies were not checked")
	}
}
