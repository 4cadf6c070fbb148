package classic

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

func load(t testing.TB, name string) *engine.Variant {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newSearcher(t testing.TB, v *engine.Variant, opt Options) *Searcher {
	t.Helper()
	if opt.HashMB == 0 {
		opt.HashMB = 4
	}
	s, err := New(v, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// position builds a moving-phase position of v (no piece in hand) from
// the points of each seat, side to move.
func position(t testing.TB, v *engine.Variant, white, black string, side int) engine.Position {
	t.Helper()
	p := engine.Position{LastRotation: engine.NoRotation, Side: uint8(side)}
	for seat, pts := range []string{white, black} {
		for _, name := range strings.Fields(pts) {
			pt := v.Board.Point(name)
			if pt < 0 {
				t.Fatalf("no point %q", name)
			}
			p.Pieces[seat] |= 1 << pt
		}
	}
	q, err := v.ParsePosition(v.FormatPosition(&p))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// tables33 builds the 3 v 3 tables of nine once for the tests.
var tables33 = sync.OnceValues(func() (*tablebase.Set, error) {
	v, err := engine.Load("nine")
	if err != nil {
		return nil, err
	}
	return tablebase.Build(v, tablebase.BuildOptions{Pieces: 6})
})

func nineTables(t *testing.T) (*engine.Variant, *tablebase.Set) {
	t.Helper()
	set, err := tables33()
	if err != nil {
		t.Fatal(err)
	}
	return set.Variant(), set
}

// tablePositions draws up to n random 3 v 3 positions of nine, white to
// move, that the tables hold with the outcome want (any when nil).
func tablePositions(t *testing.T, set *tablebase.Set, n int, seed uint64, keep func(tablebase.Value) bool) []engine.Position {
	t.Helper()
	v := set.Variant()
	rng := rand.New(rand.NewPCG(seed, 3))
	var out []engine.Position
	for try := 0; try < 5000 && len(out) < n; try++ {
		free := rng.Perm(v.Board.Points)
		p := engine.Position{LastRotation: engine.NoRotation}
		for i := 0; i < 6; i++ {
			p.Pieces[i/3] |= 1 << free[i]
		}
		q, err := v.ParsePosition(v.FormatPosition(&p))
		if err != nil || q.Result != engine.Ongoing {
			continue
		}
		val, err := set.Probe(&q)
		if err != nil || !keep(val) {
			continue
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		t.Fatal("no table position found")
	}
	return out
}

// keepsValue reports whether action a of p keeps p's table outcome.
func keepsValue(t *testing.T, set *tablebase.Set, p *engine.Position, a engine.Action) bool {
	t.Helper()
	v := set.Variant()
	want, err := set.Probe(p)
	if err != nil {
		t.Fatal(err)
	}
	q := v.Apply(p, a)
	got, err := set.Probe(&q)
	if err != nil {
		t.Fatal(err)
	}
	if q.Side != p.Side {
		switch got.Outcome {
		case tablebase.Win:
			got.Outcome = tablebase.Loss
		case tablebase.Loss:
			got.Outcome = tablebase.Win
		}
	}
	return got.Outcome == want.Outcome
}

func TestNew_RefusesMoreThanTwoPlayers(t *testing.T) {
	_, err := New(load(t, "moulin-rouge-3"), Options{HashMB: 1})
	if !errors.Is(err, ErrPlayers) || !strings.Contains(err.Error(), "moulin-rouge-3") {
		t.Fatalf("error %v: want ErrPlayers naming the variant", err)
	}
}

func TestSearch_PlaysEveryTwoPlayerVariant(t *testing.T) {
	for _, name := range engine.Names() {
		v := load(t, name)
		if v.Players != 2 {
			continue
		}
		s := newSearcher(t, v, Options{HashMB: 1})
		g := engine.NewGame(v)
		for ply := 0; ply < 12; ply++ {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			res, err := s.Search(context.Background(), g, Limits{Depth: 4}, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := g.Play(res.Best); err != nil {
				t.Fatalf("%s ply %d: the search chose %s: %v", name, ply, v.FormatAction(res.Best), err)
			}
		}
	}
}

func TestSearch_MillNowWinsAgainstThree(t *testing.T) {
	v := load(t, "nine")
	// White closes a7-d7-g7 by g4-g7 and takes one of black's three.
	p := position(t, v, "a7 d7 g4 b6 f2", "b2 d3 f6", 0)
	s := newSearcher(t, v, Options{})
	res, err := s.Search(context.Background(), engine.NewGameFrom(v, p), Limits{Depth: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.FormatAction(res.Best); got != "g4-g7" || res.Score < scoreDecisive {
		t.Errorf("best %s score %d: want g4-g7 scored as a win", got, res.Score)
	}
}

// The 3 v 3 tables know the distance of every win: a search without them
// finds the short ones, and the losses, by itself.
func TestSearch_FindsForcedWinsTheTablesKnow(t *testing.T) {
	_, set := nineTables(t)
	v := set.Variant()
	for _, win := range []bool{true, false} {
		ps := tablePositions(t, set, 12, 5, func(val tablebase.Value) bool {
			want := tablebase.Loss
			if win {
				want = tablebase.Win
			}
			return val.Outcome == want && val.Plies >= 2 && val.Plies <= 4
		})
		for _, p := range ps {
			val, _ := set.Probe(&p)
			s := newSearcher(t, v, Options{})
			res, err := s.Search(context.Background(), engine.NewGameFrom(v, p), Limits{Depth: val.Plies + 2}, nil)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case win && (res.Score < scoreDecisive || !keepsValue(t, set, &p, res.Best)):
				t.Errorf("%s (%s): best %s score %d: want a win found and kept", v.FormatPosition(&p), val, v.FormatAction(res.Best), res.Score)
			case !win && res.Score > -scoreDecisive:
				t.Errorf("%s (%s): score %d: want the loss seen", v.FormatPosition(&p), val, res.Score)
			}
		}
	}
}

// With the tables loaded, every move keeps the table's value: at the root
// (the tables choose) and through the tree (probed at its nodes).
func TestSearch_TablePositionsArePlayedPerfectly(t *testing.T) {
	_, set := nineTables(t)
	v := set.Variant()
	ps := tablePositions(t, set, 60, 9, func(tablebase.Value) bool { return true })
	var moves []tablebase.Move
	checked := 0
	for _, p := range ps {
		var err error
		if moves, err = set.Moves(&p, moves); err != nil {
			t.Fatal(err)
		}
		if moves[0].Value.Outcome == moves[len(moves)-1].Value.Outcome {
			continue // every move keeps the value: no choice to check
		}
		checked++
		for _, root := range []bool{true, false} {
			s := newSearcher(t, v, Options{Tables: set})
			s.noRootTables = !root
			res, err := s.Search(context.Background(), engine.NewGameFrom(v, p), Limits{Depth: 3}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !keepsValue(t, set, &p, res.Best) {
				t.Errorf("%s (tables at the root %v): %s gives up the value %s", v.FormatPosition(&p), root, v.FormatAction(res.Best), moves[0].Value)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d positions with a wrong move to make", checked)
	}
}

// randomPositions plays random games of v and keeps a position every few
// plies, up to n.
func randomPositions(v *engine.Variant, n int, seed uint64) []engine.Position {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []engine.Position
	var buf [engine.MaxActions]engine.Action
	for len(out) < n {
		p := v.Start()
		for ply := 0; ply < 60 && p.Result == engine.Ongoing && len(out) < n; ply++ {
			moves := v.Legal(&p, buf[:0])
			if len(moves) == 0 {
				break
			}
			p = v.Apply(&p, moves[rng.IntN(len(moves))])
			if ply%7 == 3 && p.Result == engine.Ongoing && v.HasLegal(&p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// The table must not change a search's value: at a fixed depth, without
// reductions, the same score with and without it. The table is kept from
// position to position (of the same games), so that entries written
// under other windows are met.
func TestSearch_TableDoesNotChangeTheValue(t *testing.T) {
	spec := load(t, "nine").Spec
	spec.RepetitionDraw = 0 // repetition depends on the path, which a table cannot know
	v, err := engine.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	plain := newSearcher(t, v, Options{HashMB: 1})
	plain.noTT, plain.noReduce = true, true
	withTT := newSearcher(t, v, Options{HashMB: 1})
	withTT.ttExact, withTT.noReduce = true, true
	var cuts int64
	for i, p := range randomPositions(v, 60, 3) {
		depth := 5 + i%2
		g := engine.NewGameFrom(v, p)
		a, err := plain.Search(context.Background(), g, Limits{Depth: depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := withTT.Search(context.Background(), g, Limits{Depth: depth}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cuts += withTT.ttCuts
		if a.Score != b.Score {
			t.Errorf("%s depth %d: score %d without the table, %d with it", v.FormatPosition(&p), depth, a.Score, b.Score)
		}
	}
	if cuts < 100 {
		t.Errorf("the table cut %d searches short: too few to compare", cuts)
	}
}

// window searches g's position to depth within (alpha, beta), as
// Search's iterations do, keeping the table as it is.
func window(s *Searcher, g *engine.Game, depth int, alpha, beta int32) int32 {
	s.ctx, s.stopped, s.deadline, s.maxNodes = context.Background(), false, time.Time{}, 0
	s.stack[0].pos = g.Pos
	s.setHistory(g)
	return s.search(0, depth, alpha, beta)
}

// Under any window the table gives what a search without it gives: the
// exact value inside the window, a bound on the right side outside it.
func TestSearch_TableKeepsEveryBound(t *testing.T) {
	spec := load(t, "nine").Spec
	spec.RepetitionDraw = 0
	v, err := engine.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	plain := newSearcher(t, v, Options{HashMB: 1})
	plain.noTT, plain.noReduce = true, true
	withTT := newSearcher(t, v, Options{HashMB: 1})
	withTT.ttExact, withTT.noReduce = true, true
	rng := rand.New(rand.NewPCG(4, 4))
	for i, p := range randomPositions(v, 30, 8) {
		depth := 3 + i%3
		g := engine.NewGameFrom(v, p)
		val := window(plain, g, depth, -scoreInf, scoreInf)
		for k := 0; k < 8; k++ {
			alpha := val + int32(rng.IntN(301)) - 150
			beta := alpha + 1 + int32(rng.IntN(3))*int32(rng.IntN(100))
			got := window(withTT, g, depth, alpha, beta)
			if val <= alpha && got > alpha || val >= beta && got < beta || val > alpha && val < beta && got != val {
				t.Errorf("%s depth %d window (%d, %d): %d with the table, value %d", v.FormatPosition(&p), depth, alpha, beta, got, val)
			}
		}
	}
}

// shuffle plays the moves of a repetition: white a7-d7, black g4-g7 and
// back, twice, then white's return, so black's return g7-g4 would make
// the start position a third time.
func shuffle(t *testing.T, v *engine.Variant, p engine.Position) *engine.Game {
	t.Helper()
	g := engine.NewGameFrom(v, p)
	for _, m := range strings.Fields("a7-d7 g4-g7 d7-a7 g7-g4 a7-d7 g4-g7 d7-a7") {
		if err := g.PlayString(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return g
}

func TestSearch_RepetitionIsADraw(t *testing.T) {
	v := load(t, "nine")
	t.Run("the side behind takes it", func(t *testing.T) {
		g := shuffle(t, v, position(t, v, "a7 b4 c3 e5 f2 g1", "d6 d2 a4 g4", 0))
		s := newSearcher(t, v, Options{})
		res, err := s.Search(context.Background(), g, Limits{Depth: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.FormatAction(res.Best); got != "g7-g4" || res.Score != -contempt {
			t.Errorf("best %s score %d: want g7-g4, a draw (less the contempt)", got, res.Score)
		}
	})
	t.Run("without contempt the draw scores 0", func(t *testing.T) {
		g := shuffle(t, v, position(t, v, "a7 b4 c3 e5 f2 g1", "d6 d2 a4 g4", 0))
		s := newSearcher(t, v, Options{NoContempt: true})
		res, err := s.Search(context.Background(), g, Limits{Depth: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.FormatAction(res.Best); got != "g7-g4" || res.Score != 0 {
			t.Errorf("best %s score %d: want g7-g4, a draw, 0", got, res.Score)
		}
	})
	t.Run("the side ahead avoids it", func(t *testing.T) {
		g := shuffle(t, v, position(t, v, "a7 b4 c3 g1", "d6 d2 a4 g4 e3 c5", 0))
		s := newSearcher(t, v, Options{})
		for depth := 1; depth <= 4; depth++ {
			res, err := s.Search(context.Background(), g, Limits{Depth: depth}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.FormatAction(res.Best); got == "g7-g4" || res.Score <= 0 {
				t.Errorf("depth %d: best %s score %d: want another move, scored above a draw", depth, got, res.Score)
			}
		}
	})
}

func TestSearch_StopsOnTime(t *testing.T) {
	v := load(t, "nine")
	s := newSearcher(t, v, Options{})
	start := time.Now()
	res, err := s.Search(context.Background(), engine.NewGame(v), Limits{MoveTime: 50 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("a 50ms search took %v", el)
	}
	g := engine.NewGame(v)
	if err := g.Play(res.Best); err != nil || res.Depth < 1 {
		t.Errorf("best %s depth %d: %v", v.FormatAction(res.Best), res.Depth, err)
	}
}

func TestSearch_ReportsEachDepth(t *testing.T) {
	v := load(t, "nine")
	s := newSearcher(t, v, Options{})
	var depths []int
	res, err := s.Search(context.Background(), engine.NewGame(v), Limits{Depth: 6}, func(i Info) {
		depths = append(depths, i.Depth)
		if len(i.PV) == 0 || i.Nodes <= 0 {
			t.Errorf("depth %d: pv %v nodes %d", i.Depth, i.PV, i.Nodes)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(depths) != 6 || depths[5] != 6 || res.Depth != 6 {
		t.Errorf("depths reported %v, result depth %d: want 1..6", depths, res.Depth)
	}
}

func TestSearch_NodeLoopAllocatesNothing(t *testing.T) {
	v := load(t, "nine")
	s := newSearcher(t, v, Options{HashMB: 1})
	g := movingGame(t, v)
	ctx := context.Background()
	if _, err := s.Search(ctx, g, Limits{Depth: 6}, nil); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(3, func() {
		s.NewGame()
		if _, err := s.Search(ctx, g, Limits{Depth: 6}, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a search, want 0", allocs)
	}
}

func TestSearch_RefusesAnotherVariantsGame(t *testing.T) {
	s := newSearcher(t, load(t, "nine"), Options{HashMB: 1})
	if _, err := s.Search(context.Background(), engine.NewGame(load(t, "twelve")), Limits{Depth: 2}, nil); err == nil {
		t.Error("a twelve game searched by a nine searcher: no error")
	}
}
