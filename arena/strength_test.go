package arena

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/engine"
)

// rec is a finished game between a (seat 0 when game is 0) and b.
func rec(pair int32, game int32, a, b string, aScore float64, reason engine.Reason, plies int32) Record {
	r := Record{Match: "m", Pair: pair, Game: game, Player0: a, Player1: b, Reason: reason.String(), Plies: plies, Winner: -1}
	aSeat := 0
	if game == 1 {
		r.Player0, r.Player1 = b, a
		aSeat = 1
	}
	switch aScore {
	case 1:
		r.Winner = int8(aSeat)
	case 0:
		r.Winner = int8(1 - aSeat)
	}
	return r
}

func TestStrengthOf_CountsPairsBlockadesAndIgnoresOtherPlayers(t *testing.T) {
	recs := []Record{
		rec(0, 0, "m", "ab", 1, engine.TooFewPieces, 80),
		rec(0, 1, "m", "ab", 1, engine.NoLegalAction, 60), // pair 0: 2
		rec(1, 0, "m", "ab", 0.5, engine.NoCaptureDraw, 200),
		rec(1, 1, "m", "ab", 0, engine.NoLegalAction, 40), // pair 1: 1/2, a blockade loss
		rec(2, 0, "m", "ab", 0, engine.TooFewPieces, 90),  // pair 2 incomplete
		rec(0, 0, "x", "ab", 1, engine.TooFewPieces, 10),  // not this player
	}
	row := StrengthOf("m", "ab", recs)
	if row.Games != 5 || row.Wins != 2 || row.Draws != 1 || row.Losses != 2 {
		t.Fatalf("games %d +%d =%d -%d, want 5 +2 =1 -2", row.Games, row.Wins, row.Draws, row.Losses)
	}
	if want := (rating.Penta{0, 1, 0, 0, 1}); row.Penta != want {
		t.Errorf("penta %v, want %v (only complete pairs)", row.Penta, want)
	}
	if row.BlockadeLosses != 1 {
		t.Errorf("blockade losses %d, want 1", row.BlockadeLosses)
	}
	if row.MedianLossPly != 90 {
		t.Errorf("median loss ply %d, want 90 (losses at 40 and 90)", row.MedianLossPly)
	}
	if math.Abs(row.Score-0.5) > 1e-12 || math.Abs(row.Elo) > 1e-9 {
		t.Errorf("score %v Elo %v, want 0.5 and 0", row.Score, row.Elo)
	}
	if !(row.Low < 0 && row.High > 0) || row.Clamped {
		t.Errorf("interval [%v, %v] clamped %v: want it around 0, not clamped", row.Low, row.High, row.Clamped)
	}
}

func TestStrengthOf_IntervalFromPairVariance(t *testing.T) {
	// 10 pairs: 5 won twice (pair score 1), 5 split (1/2): mean 0.75,
	// pair-score variance 1/16; Wilson's interval with it: the center
	// (0.75+z²/20)/(1+z²/10), the half-width z/(1+z²/10)*sqrt(1/160+z²/400).
	var recs []Record
	for i := int32(0); i < 10; i++ {
		second := 1.0
		if i%2 == 1 {
			second = 0
		}
		recs = append(recs, rec(i, 0, "m", "ab", 1, engine.TooFewPieces, 50), rec(i, 1, "m", "ab", second, engine.TooFewPieces, 50))
	}
	row := StrengthOf("m", "ab", recs)
	const z = 1.96
	center := (0.75 + z*z/20) / (1 + z*z/10)
	half := z / (1 + z*z/10) * math.Sqrt(1.0/160+z*z/400)
	if want := rating.EloOfScore(0.75); math.Abs(row.Elo-want) > 1e-9 {
		t.Errorf("Elo %v, want %v", row.Elo, want)
	}
	if want := rating.EloOfScore(center - half); math.Abs(row.Low-want) > 1e-9 {
		t.Errorf("low %v, want %v", row.Low, want)
	}
	if want := rating.EloOfScore(center + half); math.Abs(row.High-want) > 1e-9 {
		t.Errorf("high %v, want %v", row.High, want)
	}
}

func TestStrengthOf_AllWinsIsClampedNotInfinite(t *testing.T) {
	recs := []Record{rec(0, 0, "m", "r", 1, engine.TooFewPieces, 30), rec(0, 1, "m", "r", 1, engine.TooFewPieces, 30)}
	row := StrengthOf("m", "r", recs)
	if !row.Clamped || math.IsInf(row.Elo, 0) || math.IsNaN(row.Elo) || row.Elo <= 0 {
		t.Errorf("Elo %v clamped %v: want a finite positive Elo, clamped", row.Elo, row.Clamped)
	}
	// One pair: the rule of three says nothing, so the lower bound is even.
	if row.Low != 0 || row.High != row.Elo {
		t.Errorf("bounds [%v, %v], want [0, %v]", row.Low, row.High, row.Elo)
	}
	var many []Record
	for i := int32(0); i < 50; i++ {
		many = append(many, rec(i, 0, "m", "r", 0, engine.TooFewPieces, 30), rec(i, 1, "m", "r", 0, engine.TooFewPieces, 30))
	}
	row = StrengthOf("m", "r", many)
	if want := rating.EloOfScore(3.0 / 50); !row.Clamped || math.Abs(row.High-want) > 1e-9 || row.Low != row.Elo {
		t.Errorf("50 pairs lost: Elo %v [%v, %v] clamped %v, want the upper bound %v", row.Elo, row.Low, row.High, row.Clamped, want)
	}
}

func TestStrength_AlphaBetaBeatsRandom(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	s := Strength{Variant: v, Player: AlphaBeta{Depth: 2}, Opponents: []Player{Random{}}, Pairs: 2, OpeningPlies: 2, Seed: 7, Workers: 2}
	games := 0
	rows, err := s.Run(context.Background(), nil, func(opp int, r *Record) {
		if opp != 0 {
			t.Errorf("opponent index %d, want 0", opp)
		}
		games++
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || games != 4 || rows[0].Games != 4 || rows[0].Penta.Pairs() != 2 {
		t.Fatalf("rows %+v after %d games: want one row of 4 games in 2 pairs", rows, games)
	}
	if rows[0].Score < 0.75 || rows[0].Elo <= 0 {
		t.Errorf("alphabeta:2 scored %.2f (Elo %+.0f) against random: want 0.75 or more", rows[0].Score, rows[0].Elo)
	}
}

// A benchmark stopped early returns the row of the games it finished and
// keeps them in Dir; run again, it plays only the games missing, and ends
// with the row a run without a stop gives.
func TestStrength_StoppedEarlyGoesOnWhereItStopped(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	s := Strength{Variant: v, Player: AlphaBeta{Depth: 2}, Opponents: []Player{Random{}, AlphaBeta{Depth: 1}},
		Pairs: 3, OpeningPlies: 2, Seed: 9, Workers: 1, Dir: t.TempDir()}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	played := 0
	rows, err := s.Run(ctx, nil, func(_ int, _ *Record) {
		if played++; played == 8 {
			stop()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped: %v, want the context's end", err)
	}
	if len(rows) != 2 || rows[0].Games != 6 || rows[1].Games < 2 || rows[1].Games >= 6 {
		t.Fatalf("stopped after %d games: rows %+v, want random's whole and a part of alphabeta:1's", played, rows)
	}
	stoppedAt := rows[1].Games

	var found []int
	played = 0
	rows, err = s.Run(context.Background(), func(_, n int) { found = append(found, n) }, func(int, *Record) { played++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || found[0] != 6 || found[1] != stoppedAt || played != 6-stoppedAt {
		t.Fatalf("run again: found %v, played %d: want [6 %d], %d", found, played, stoppedAt, 6-stoppedAt)
	}
	whole := s
	whole.Dir = ""
	want, err := whole.Run(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if rows[i].WDL() != want[i].WDL() || rows[i].Penta != want[i].Penta {
			t.Errorf("%s: %s %v after the stop, %s %v in one go", want[i].Opponent, rows[i].WDL(), rows[i].Penta, want[i].WDL(), want[i].Penta)
		}
	}
}

// drawAtPly says every position at its ply is a table draw and knows no other.
type drawAtPly int

func (d drawAtPly) Prove(p *engine.Position) (engine.Result, int, bool) {
	return engine.Draw, 0, int(p.Ply) == int(d)
}

// With tables a row counts the lost games that passed through a position
// the tables hold for the player; without them it says -1.
func TestStrength_ThrownEndgamesAreLossesThroughAHeldTablePosition(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	s := Strength{Variant: v, Player: Random{}, Opponents: []Player{AlphaBeta{Depth: 2}}, Pairs: 4, OpeningPlies: 2, Seed: 3, Workers: 2}
	var recs []Record
	rows, err := s.Run(context.Background(), nil, func(_ int, r *Record) { recs = append(recs, *r) })
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].ThrownEndgames != -1 {
		t.Errorf("without tables: thrown %d, want -1", rows[0].ThrownEndgames)
	}
	// Lost games longer than 20 plies passed through a "drawn" ply 20.
	want := 0
	for _, r := range recs {
		seat := 0
		if r.Player1 == "random" {
			seat = 1
		}
		if r.Score(seat) == 0 && r.Plies > 20 {
			want++
		}
	}
	if want == 0 {
		t.Fatal("random lost no game longer than 20 plies: no case to check")
	}
	if got, err := ThrownEndgames(v, drawAtPly(20), "random", recs); err != nil || got != want {
		t.Errorf("thrown endgames %d (%v), want the %d losses longer than 20 plies", got, err, want)
	}
	if got, _ := ThrownEndgames(v, drawAtPly(-1), "random", recs); got != 0 {
		t.Errorf("tables that know nothing: %d thrown, want 0", got)
	}
	// The opponent's losses are not the player's.
	if got, _ := ThrownEndgames(v, drawAtPly(20), "alphabeta:2", recs); got > rows[0].Wins {
		t.Errorf("alphabeta:2 threw %d, more than the %d games it lost", got, rows[0].Wins)
	}
	bad := append([]Record(nil), recs...)
	for i := range bad {
		bad[i].Player0, bad[i].Player1, bad[i].Winner, bad[i].Moves = "random", "x", 1, "a1 z9"
	}
	if _, err := ThrownEndgames(v, drawAtPly(20), "random", bad[:1]); err == nil {
		t.Error("a record whose moves do not replay: no error")
	}
}

func TestWriteStrength_SaysTheGamesWonDrawnLostAndTheShareDrawn(t *testing.T) {
	recs := []Record{
		rec(0, 0, "m", "ab", 1, engine.TooFewPieces, 80),
		rec(0, 1, "m", "ab", 0.5, engine.RepetitionDraw, 60),
		rec(1, 0, "m", "ab", 0.5, engine.RepetitionDraw, 50),
		rec(1, 1, "m", "ab", 0, engine.NoLegalAction, 40),
	}
	row := StrengthOf("m", "ab", recs)
	row.Book = "sha256:0123456789abcdef"
	var sb strings.Builder
	WriteStrength(&sb, "m", []StrengthRow{row})
	out := sb.String()
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ab ") {
			line = l
		}
	}
	// opponent, games, score, won, drawn, lost, draws, Elo ...
	f := strings.Fields(line)
	if len(f) < 8 || f[1] != "4" || f[3] != "1" || f[4] != "2" || f[5] != "1" || f[6] != "50%" || f[7] != row.EloCell()[:len(f[7])] {
		t.Errorf("row %q: want 4 games, won 1, drawn 2, lost 1, 50%% drawn, then the Elo", line)
	}
	for _, want := range []string{"won", "drawn", "lost", "draws", "openings from the book sha256:0123456789abcdef"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
}
