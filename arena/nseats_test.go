package arena

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/engine"
	"github.com/parquet-go/parquet-go"
)

// renamed is a player under another name, so that a match can seat two
// different players that play alike.
type renamed struct {
	Player
	name string
}

func (r renamed) Name() string { return r.name }

func TestMatch_ThreeAndFourSeatsRotateEveryPlayerThroughEverySeat(t *testing.T) {
	for _, name := range []string{"moulin-rouge-3", "moulin-rouge-4"} {
		v := loadVariant(t, name)
		n := v.Players
		m := Match{Variant: v, A: renamed{Random{}, "cand"}, B: Random{}, Pairs: 2, OpeningPlies: 2, Seed: 3, Workers: 2}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(recs) != n*m.Pairs {
			t.Fatalf("%s: %d games, want %d", name, len(recs), n*m.Pairs)
		}
		seen := map[[2]int32]bool{}
		for _, r := range recs {
			if r.Seats() != n {
				t.Errorf("%s: pair %d game %d has %d seats, want %d", name, r.Pair, r.Game, r.Seats(), n)
			}
			seen[[2]int32{r.Pair, r.Game}] = true
			for s := 0; s < n; s++ {
				want := RandomName
				if s == int(r.Game) {
					want = "cand"
				}
				if got := r.PlayerAt(s); got != want {
					t.Errorf("%s: pair %d game %d: seat %d is %q, want %q (the candidate on seat %d)", name, r.Pair, r.Game, s, got, want, r.Game)
				}
			}
			checkReplay(t, v, r)
		}
		if len(seen) != n*m.Pairs {
			t.Errorf("%s: games %v: want every rotation of every opening once", name, seen)
		}
	}
}

// checkReplay replays r and checks its result and places against the
// rules: the winner is the engine's, first alone; a seat out at the end
// is placed behind every seat still in.
func checkReplay(t *testing.T, v *engine.Variant, r Record) {
	t.Helper()
	g := engine.NewGame(v)
	for i, s := range strings.Fields(r.Moves) {
		if err := g.PlayString(s); err != nil {
			t.Fatalf("pair %d game %d action %d: %v", r.Pair, r.Game, i, err)
		}
	}
	res, why := g.Outcome()
	if why.String() != r.Reason {
		t.Errorf("pair %d game %d: replay ends by %s, record says %q", r.Pair, r.Game, why, r.Reason)
	}
	if w, ok := res.Winner(); ok != (r.Winner >= 0) || ok && w != int(r.Winner) {
		t.Errorf("pair %d game %d: replay gives %s, record's winner is %d", r.Pair, r.Game, res, r.Winner)
	}
	if r.Winner >= 0 {
		for s := 0; s < v.Players; s++ {
			if (s == int(r.Winner)) != (r.Place(s) == 1) {
				t.Errorf("pair %d game %d: winner %d, places %q", r.Pair, r.Game, r.Winner, r.Places)
			}
		}
	}
	for s := 0; s < v.Players; s++ {
		for o := 0; o < v.Players; o++ {
			if g.Pos.Out>>s&1 != 0 && g.Pos.Out>>o&1 == 0 && r.Place(s) <= r.Place(o) {
				t.Errorf("pair %d game %d: seat %d is out and seat %d in, places %q", r.Pair, r.Game, s, o, r.Places)
			}
		}
	}
}

func TestMatch_MoreSeatsTheLineupAndRotatesIt(t *testing.T) {
	v := loadVariant(t, "moulin-rouge-4")
	m := Match{Variant: v, A: renamed{Random{}, "a"}, B: renamed{Random{}, "b"}, More: []Player{renamed{Random{}, "c"}},
		Pairs: 1, OpeningPlies: 0, Seed: 4, Workers: 1}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a b c b", "b a b c", "c b a b", "b c b a"}
	for k, r := range recs {
		got := strings.Join([]string{r.Player0, r.Player1, r.Player2, r.Player3}, " ")
		if got != want[k] {
			t.Errorf("game %d: seats %s, want %s", k, got, want[k])
		}
	}
	m.More = []Player{renamed{Random{}, "a"}}
	if _, err := m.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("two players named a: error %v, want one naming them", err)
	}
	m.More = []Player{Random{}, Random{}, Random{}}
	if _, err := m.Run(context.Background(), nil); err == nil {
		t.Errorf("five players for four seats: no error")
	}
}

func TestRecord_PlacesGiveThePairwiseScore(t *testing.T) {
	cases := []struct {
		name   string
		rec    Record
		scores []float64
	}{
		{"two seats: a win is 1", Record{Player0: "a", Player1: "b", Winner: 0}, []float64{1, 0}},
		{"two seats: a draw is one half", Record{Player0: "a", Player1: "b", Winner: -1}, []float64{0.5, 0.5}},
		{"three seats: first beats both, second one of two", Record{Player0: "a", Player1: "b", Player2: "c", Places: "2 3 1", Winner: 2}, []float64{0.5, 0, 1}},
		{"three seats: a tie counts half", Record{Player0: "a", Player1: "b", Player2: "c", Places: "1 1 3", Winner: -1}, []float64{0.75, 0.75, 0}},
		{"four seats: out together share a place", Record{Player0: "a", Player1: "b", Player2: "c", Player3: "d", Places: "1 2 2 4", Winner: 0}, []float64{1, 0.5, 0.5, 0}},
	}
	for _, c := range cases {
		for s, want := range c.scores {
			if got := c.rec.Score(s); !near(got, want, 1e-12) {
				t.Errorf("%s: seat %d scores %v, want %v", c.name, s, got, want)
			}
		}
	}
}

// oldRecord is a record as files held it before there were 3-4 seats.
type oldRecord struct {
	Match   string `parquet:"match,dict"`
	Variant string `parquet:"variant,dict"`
	Pair    int32  `parquet:"pair"`
	Game    int32  `parquet:"game"`
	Player0 string `parquet:"player_0,dict"`
	Player1 string `parquet:"player_1,dict"`
	Winner  int8   `parquet:"winner"`
	Forfeit int8   `parquet:"forfeit"`
}

func TestReadRecords_TwoSeatFilesFromBeforeMoreSeatsStillRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old"+RecordExt)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[oldRecord](f, parquet.KeyValueMetadata(recordFormatKey, recordFormatVersion))
	if _, err := w.Write([]oldRecord{{Match: "m", Variant: "nine", Player0: "a", Player1: "b", Winner: 1, Forfeit: -1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	recs, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Seats() != 2 || recs[0].Score(1) != 1 || recs[0].Player1 != "b" || recs[0].Places != "" || recs[0].Book != "" {
		t.Errorf("old record read back as %+v", recs)
	}
}

func TestFitElo_MultiSeatGamesArePairwiseResultsWeighingOneGameEach(t *testing.T) {
	// 20 three-seat games with the finishing order A, B, random, rotated
	// through the seats, rate as 10 two-seat games of each pair with the
	// same winner: each of a seat's two pairwise results weighs half a game.
	var three []Record
	for k := 0; k < 20; k++ {
		r := Record{Player0: "A", Player1: "B", Player2: RandomName, Places: "1 2 3", Winner: 0}
		if k%2 == 1 {
			r = Record{Player0: RandomName, Player1: "A", Player2: "B", Places: "3 1 2", Winner: 1}
		}
		three = append(three, r)
	}
	var two []Record
	two = append(two, games("A", "B", 10, 0, 0)...)
	two = append(two, games("A", RandomName, 10, 0, 0)...)
	two = append(two, games("B", RandomName, 10, 0, 0)...)
	got, err := FitElo(three, rating.DefaultEloSettings())
	if err != nil {
		t.Fatal(err)
	}
	want, err := FitElo(two, rating.DefaultEloSettings())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"A", "B"} {
		g, w := ratingOf(t, got, name), ratingOf(t, want, name)
		if !near(g.Elo, w.Elo, 1e-6) || !near(g.Low, w.Low, 1e-6) || !near(g.High, w.High, 1e-6) {
			t.Errorf("%s: three seats rate %.3f [%.3f, %.3f], the pairwise two-seat games %.3f [%.3f, %.3f]",
				name, g.Elo, g.Low, g.High, w.Elo, w.Low, w.High)
		}
	}
	if a := ratingOf(t, got, "A"); a.Games != 20 || a.Wins != 20 || a.Score != 20 {
		t.Errorf("A: %d games, %d wins, score %v; want 20, 20, 20", a.Games, a.Wins, a.Score)
	}
	if b := ratingOf(t, got, "B"); b.Losses != 20 || b.Score != 10 {
		t.Errorf("B: %d losses, score %v; want 20 and 10 (half the others beaten)", b.Losses, b.Score)
	}
}

// simulateRounds plays the test on rounds of n seats in which the
// candidate, elo better than each copy of the best, finishes in a
// Plackett-Luce order (under which it finishes ahead of each copy with
// the logistic probability of elo), and returns the decision and the
// rounds played.
func simulateRounds(t rating.SPRT, rng *rand.Rand, n int, elo float64, maxRounds int) (rating.Decision, int) {
	gamma := math.Pow(10, elo/400)
	tally := NewTally("cand")
	for i := 0; i < maxRounds; i++ {
		for g := 0; g < n; g++ {
			// The candidate's place: at each step it is picked first of
			// those left with probability gamma/(gamma + copies left).
			place := 1
			for left := n - 1; left > 0; left-- {
				if rng.Float64() < gamma/(gamma+float64(left)) {
					break
				}
				place++
			}
			places := make([]int, n)
			for s := range places {
				places[s] = s + 1 // the copies in any order: their order does not count
			}
			// Seat g holds the candidate at place; the copies take the rest.
			others := []int{}
			for p := 1; p <= n; p++ {
				if p != place {
					others = append(others, p)
				}
			}
			r := Record{Match: "m", Pair: int32(i), Game: int32(g), Player0: "best", Player1: "best", Player2: "best"}
			if n == 4 {
				r.Player3 = "best"
			}
			for s, o := 0, 0; s < n; s++ {
				if s == g {
					places[s] = place
					continue
				}
				places[s] = others[o]
				o++
			}
			switch g {
			case 0:
				r.Player0 = "cand"
			case 1:
				r.Player1 = "cand"
			case 2:
				r.Player2 = "cand"
			case 3:
				r.Player3 = "cand"
			}
			r.Places = FormatPlaces(places)
			tally.Add(&r)
		}
		if d, _ := tally.Decide(t); d != rating.Continue {
			return d, i + 1
		}
	}
	return rating.Continue, maxRounds
}

func TestSPRT_RoundsOfThreeAndFourSeatsDecideAtTheGivenErrorRates(t *testing.T) {
	test := rating.SPRT{Elo0: 0, Elo1: 60, Alpha: 0.05, Beta: 0.05}
	const runs = 200
	for _, n := range []int{3, 4} {
		for i, tc := range []struct {
			elo  float64
			want rating.Decision
		}{{0, rating.AcceptH0}, {60, rating.AcceptH1}, {-60, rating.AcceptH0}, {200, rating.AcceptH1}} {
			rng := rand.New(rand.NewPCG(uint64(n*10+i), 5))
			wrong, rounds := 0, 0
			for r := 0; r < runs; r++ {
				d, k := simulateRounds(test, rng, n, tc.elo, 20000)
				rounds += k
				if d != tc.want {
					wrong++
				}
			}
			// 5% errors at the bounds; 10% allows for chance (the
			// binomial's 99.9% point over 200 runs is about 8.5%).
			if frac := float64(wrong) / runs; frac > 0.10 {
				t.Errorf("%d seats, %+.0f Elo: %.1f%% wrong decisions (want %v), want at most 10%%", n, tc.elo, 100*frac, tc.want)
			}
			t.Logf("%d seats, %+.0f Elo: %d of %d wrong, %.0f rounds on average", n, tc.elo, wrong, runs, float64(rounds)/runs)
		}
	}
}

func TestGate_ThreeSeatsCountRoundsOfTheCandidateInEverySeat(t *testing.T) {
	v := loadVariant(t, "moulin-rouge-3")
	m := Match{Variant: v, A: renamed{Random{}, "cand"}, B: Random{}, OpeningPlies: 1, Seed: 5, Workers: 2}
	res, err := Gate(context.Background(), m, rating.SPRT{Elo0: 0, Elo1: 400, Alpha: 0.3, Beta: 0.3}, 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds.Seats != 3 || res.Rounds.Len() == 0 || len(res.Records) < 3*res.Rounds.Len() {
		t.Errorf("rounds %+v from %d games: want rounds of three counted", res.Rounds, len(res.Records))
	}
	if strings.Count(res.Counts(), "/") != 12 {
		t.Errorf("counts %q: want 13 cells", res.Counts())
	}
	if _, err := Gate(context.Background(), m, rating.DefaultSPRT(), 2, nil); err == nil {
		t.Errorf("max games 2 with three seats: no error")
	}
}

func TestAlphaBeta_MaxNBeatsRandomWithThreeAndFourPlayers(t *testing.T) {
	for _, name := range []string{"moulin-rouge-3", "moulin-rouge-4"} {
		v := loadVariant(t, name)
		m := Match{Variant: v, A: AlphaBeta{Depth: 2}, B: Random{}, Pairs: 3, OpeningPlies: 2, Seed: 6}
		recs, err := m.Run(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tally := NewTally(m.A.Name())
		wins := 0
		for i := range recs {
			tally.Add(&recs[i])
			if r := &recs[i]; r.PlayerAt(int(r.Winner)) == m.A.Name() {
				wins++
			}
		}
		// Against copies of random an equal player scores 1/2 and wins
		// one game in N.
		mean := tally.Rounds.Mean()
		t.Logf("%s: alphabeta:2 wins %d of %d, mean score %.2f", name, wins, len(recs), mean)
		if mean < 0.8 || wins < len(recs)/2 {
			t.Errorf("%s: alphabeta:2 against random wins %d of %d games, mean score %.2f; want most games and a score above 0.8", name, wins, len(recs), mean)
		}
	}
}

func TestAlphaBeta_MaxNIsDeterministicAndAllocationFree(t *testing.T) {
	v := loadVariant(t, "moulin-rouge-3")
	g := engine.NewGame(v)
	for _, s := range []string{"a1", "c1", "e1", "b2"} {
		if err := g.PlayString(s); err != nil {
			t.Fatal(err)
		}
	}
	var first engine.Action
	for round := 0; round < 2; round++ {
		gp, err := AlphaBeta{Depth: 2}.NewGame(v, uint64(round))
		if err != nil {
			t.Fatal(err)
		}
		a, err := gp.Act(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			first = a
		} else if a != first {
			t.Errorf("second search played %s, first %s", v.FormatAction(a), v.FormatAction(first))
		}
		if allocs := testing.AllocsPerRun(3, func() { gp.Act(context.Background(), g) }); allocs != 0 {
			t.Errorf("Act allocates %.0f times, want 0", allocs)
		}
	}
}

func TestAlphaBeta_DeeperMaxNBeatsShallowerWithThreePlayers(t *testing.T) {
	v := loadVariant(t, "moulin-rouge-3")
	m := Match{Variant: v, A: AlphaBeta{Depth: 3}, B: AlphaBeta{Depth: 1}, Pairs: 6, OpeningPlies: 4, Seed: 8}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tally := NewTally(m.A.Name())
	for i := range recs {
		tally.Add(&recs[i])
	}
	t.Logf("alphabeta:3 against two alphabeta:1: rounds %s, mean score %.2f", tally.Rounds, tally.Rounds.Mean())
	if mean := tally.Rounds.Mean(); mean <= 0.5 {
		t.Errorf("alphabeta:3 against two alphabeta:1 scores %.2f, want above an equal player's 0.5", mean)
	}
}

// BenchmarkAlphaBeta_MaxNDepth3 measures one depth-3 max-n move of Moulin
// Rouge for three players early in the placing phase, in nodes per second.
func BenchmarkAlphaBeta_MaxNDepth3(b *testing.B) {
	v := loadVariant(b, "moulin-rouge-3")
	g := engine.NewGame(v)
	for _, s := range []string{"a1", "c1", "e1", "b2"} {
		if err := g.PlayString(s); err != nil {
			b.Fatal(err)
		}
	}
	gp, err := AlphaBeta{Depth: 3}.NewGame(v, 0)
	if err != nil {
		b.Fatal(err)
	}
	s := gp.(*alphaBetaSearch)
	b.ReportAllocs()
	nodes := int64(0)
	for b.Loop() {
		if _, err := gp.Act(context.Background(), g); err != nil {
			b.Fatal(err)
		}
		nodes += s.nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/move")
}

// failing is a player that cannot act: it forfeits at its first turn.
type failing struct{ name string }

func (f failing) Name() string { return f.name }
func (f failing) NewGame(*engine.Variant, uint64) (GamePlayer, error) {
	return f, nil
}
func (f failing) Act(context.Context, *engine.Game) (engine.Action, error) {
	return 0, errors.New("no move")
}
func (f failing) Close() error { return nil }

func TestMatch_AForfeitWithThreeSeatsPlacesTheForfeiterBehindTheSeatsStillIn(t *testing.T) {
	v := loadVariant(t, "moulin-rouge-3")
	m := Match{Variant: v, A: Random{}, B: failing{"broken"}, Pairs: 1, OpeningPlies: 0, Seed: 2, Workers: 1}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Seat k holds random in game k; the broken player forfeits on the
	// first of its seats to move, and the seats still in share first place.
	want := map[int32]struct {
		places  string
		forfeit int8
	}{0: {"1 3 1", 1}, 1: {"3 1 1", 0}, 2: {"3 1 1", 0}}
	for _, r := range recs {
		w := want[r.Game]
		if r.Places != w.places || r.Forfeit != w.forfeit || r.Winner != -1 || !strings.HasPrefix(r.Reason, "forfeit") {
			t.Errorf("game %d (%s): places %q, forfeit %d, winner %d, %q; want places %q, forfeit %d, no winner",
				r.Game, r.Lineup(), r.Places, r.Forfeit, r.Winner, r.Reason, w.places, w.forfeit)
		}
	}
}

func TestTally_RoundsCountTheSameInAnyOrderOfFinishing(t *testing.T) {
	var recs []Record
	for pair := int32(0); pair < 6; pair++ {
		for g := int32(0); g < 3; g++ {
			r := Record{Match: "m", Pair: pair, Game: g, Player0: "best", Player1: "best", Player2: "best"}
			switch g {
			case 0:
				r.Player0 = "cand"
			case 1:
				r.Player1 = "cand"
			case 2:
				r.Player2 = "cand"
			}
			r.Places = [3]string{"1 2 3", "2 2 1", "3 1 1"}[(int(pair)+int(g))%3]
			recs = append(recs, r)
		}
	}
	inOrder := NewTally("cand")
	for i := range recs {
		inOrder.Add(&recs[i])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	shuffled := NewTally("cand")
	done := 0
	for i := range recs {
		if shuffled.Add(&recs[i]) {
			done++
		}
	}
	if done != 6 || shuffled.Rounds.String() != inOrder.Rounds.String() || inOrder.Rounds.Len() != 6 {
		t.Errorf("in order %s, shuffled %s with %d rounds completed; want the same 6 rounds", inOrder.Rounds, shuffled.Rounds, done)
	}
}
