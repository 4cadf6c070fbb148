package mcts

import (
	"testing"

	"github.com/millzero/millzero/engine"
)

// The positions where the search must find the one good action. Each is
// won (or saved) only by looking past a ply where the same seat acts again,
// or with three seats, so a backup by ply parity gets them wrong.
var mustFind = []struct {
	name, variant, pos, want string
	then                     string // the action the search's tree plays next, if any
	sims                     int    // simulations, if not 800
}{
	{
		// White's mill d7: moving g4-g7 closes a7-d7-g7; the removal that
		// follows leaves Black with 2 pieces.
		name:    "TestBackup_MillInOne",
		variant: "nine",
		pos:     "OO*O****/*O**@***/****@@** side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "g4-g7",
	},
	{
		// Black's four corners have one liberty left, a4; only b4-a4 takes
		// it, and Black, with 4 pieces, cannot fly: no legal action loses.
		name:    "TestBackup_WinByBlockingAllMoves",
		variant: "nine",
		pos:     "@O@O@O@*/*******O/******** side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "b4-a4",
	},
	{
		// White owes a removal from Black (a7, d7, a1, f2). Black then has
		// 3 pieces and flies: taking d7, a1 or f2 leaves a pair with an
		// open third point, which Black closes and then removes a piece of
		// White's 3. Only xa7 breaks both pairs. The loss is Black acting
		// twice (the mill, the removal) after White's removal.
		name:    "TestBackup_OnlyGoodActionIsARemoval",
		variant: "nine",
		pos:     "@@****@*/****@***/OOO***** side:0 hand:0,0 pending:0,1 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "xa7",
	},
	{
		// Black's four corners of the outer square are walled in by White;
		// only f2 can move. White's e4-e5 closes c5-d5-e5, and then only
		// the removal xf2 wins (Black, with 4 pieces and no move, loses):
		// White acts twice, and the first action is good only because of
		// the second. The search's own line must be e4-e5, xf2.
		name:    "TestBackup_SameSeatActsTwice",
		variant: "nine",
		pos:     "@O@O@O@O/****@***/OO*O**** side:0 hand:0,0 pending:0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "e4-e5",
		then:    "xf2",
	},
	{
		// Three seats, each down to 3 pieces. Seat 1 (next to move)
		// threatens to fly into c3 and close spoke c, which would capture
		// from both others and win. Seat 0 placing a3 closes spoke a first:
		// one capture from each opponent, two removals in a row by seat 0,
		// each eliminating a seat, and seat 0 is the last standing.
		name:    "TestBackup_ThreeSeats",
		variant: "moulin-rouge-3",
		pos:     "O*@*@***/O*@*X*X*/*****X** side:0 hand:1,0,0 pending:0,0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "a3",
	},
	{
		// Three seats, seat 1 already out (its pieces stay as obstacles),
		// so seat 2 moves next. Seat 2 flies (3 pieces) and threatens c3,
		// closing spoke c: the capture from seat 0's 3 pieces would leave
		// seat 2 the last standing. Only placing c3 saves seat 0; seeing it
		// needs seat 2's choice read with seat 2's value, one ply down
		// where a two-player backup would read seat 1's.
		name:    "TestBackup_ThreeSeatsBlockTheNextSeat",
		variant: "moulin-rouge-3",
		pos:     "@*X**X*@/**X*****/****O*O* side:0 hand:1,0,0 pending:0,0,0 out:2 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "c3",
		sims:    4000,
	},
	{
		// Four seats, the same idea: seat 0 placing a3 closes spoke a and
		// captures once from each of three opponents at 3 pieces: three
		// removals in a row by seat 0, then it is the last standing.
		name:    "TestBackup_FourSeats",
		variant: "moulin-rouge-4",
		pos:     "O*@*@*#*/O*@*X*X*/***#*X*# side:0 hand:1,0,0,0 pending:0,0,0,0 out:0 rot:- nocap:0 endgame:0 quiet:0 ply:60",
		want:    "a3",
	},
}

func TestBackup_FindsTheOnlyGoodAction(t *testing.T) {
	for _, c := range mustFind {
		t.Run(c.name, func(t *testing.T) {
			v := load(t, c.variant)
			p := parse(t, v, c.pos)
			want := action(t, v, &p, c.want)
			for seed := uint64(1); seed <= 3; seed++ {
				sims := 800
				if c.sims > 0 {
					sims = c.sims
				}
				s := newSearch(t, v, testSettings(sims), seed)
				s.SetRoot(p, nil)
				if err := s.Run(rollouts(t, v, 1, seed)); err != nil {
					t.Fatal(err)
				}
				res := s.Result()
				if res.Best != want {
					t.Errorf("seed %d: best %s, want %s (visits %v)", seed, v.FormatAction(res.Best), c.want, visitsString(v, res))
					continue
				}
				if c.then == "" {
					continue
				}
				if err := s.Advance(want); err != nil {
					t.Fatal(err)
				}
				q := s.Root()
				then := action(t, v, &q, c.then)
				if res := s.Result(); res.Best != then {
					t.Errorf("seed %d: after %s the tree plays %s, want %s (visits %v)", seed, c.want, v.FormatAction(res.Best), c.then, visitsString(v, res))
				}
			}
		})
	}
}

func visitsString(v *engine.Variant, r *Result) string {
	s := ""
	for i, a := range r.Actions {
		s += v.FormatAction(a) + ":" + itoa(int(r.Visits[i])) + " "
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestBackup_RootValueIsTheWinnersScore: after a won position is searched, the root
// value is the winner's certainty, for the winner's seat, not the mover's
// parity.
func TestBackup_RootValueIsTheWinnersScore(t *testing.T) {
	v := load(t, "moulin-rouge-3")
	var pos string
	for _, c := range mustFind {
		if c.name == "TestBackup_ThreeSeats" {
			pos = c.pos
		}
	}
	p := parse(t, v, pos)
	s := newSearch(t, v, testSettings(2000), 1)
	s.SetRoot(p, nil)
	if err := s.Run(rollouts(t, v, 1, 1)); err != nil {
		t.Fatal(err)
	}
	res := s.Result()
	if res.Value[0] < 0.8 || res.Value[1] > 0.1 || res.Value[2] > 0.1 {
		t.Errorf("root value %v: want seat 0 near 1, seats 1 and 2 near 0", res.Value)
	}
	sum := res.Value[0] + res.Value[1] + res.Value[2]
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("root values sum to %v, want 1", sum)
	}
}

func TestScoreOutcome_DrawSharedAndRenormalised(t *testing.T) {
	v := load(t, "moulin-rouge-3")
	s := newSearch(t, v, testSettings(1), 1)
	cases := []struct {
		name    string
		outcome []float32
		want    [engine.MaxSeats]float32
	}{
		{"seat 1 wins", []float32{0, 2, 0, 0}, [4]float32{0, 1, 0, 0}},
		{"draw", []float32{0, 0, 0, 1}, [4]float32{1.0 / 3, 1.0 / 3, 1.0 / 3, 0}},
		{"half seat 0, half draw", []float32{1, 0, 0, 1}, [4]float32{0.5 + 0.5/3, 0.5 / 3, 0.5 / 3, 0}},
		{"zero sum is a draw", []float32{0, 0, 0, 0}, [4]float32{1.0 / 3, 1.0 / 3, 1.0 / 3, 0}},
		{"negative weight is a draw", []float32{-1, 2, 0, 0}, [4]float32{1.0 / 3, 1.0 / 3, 1.0 / 3, 0}},
	}
	for _, c := range cases {
		var got [engine.MaxSeats]float32
		s.scoreOutcome(c.outcome, &got)
		for k := range got {
			if d := got[k] - c.want[k]; d > 1e-6 || d < -1e-6 {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}
