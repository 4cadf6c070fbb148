package tune

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

func nine(t testing.TB) *engine.Variant {
	t.Helper()
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The fit finds the weights that made the results: positions whose
// results were drawn from a logistic of known weights give those
// weights back, in hundredths of a piece of the moving phase.
func TestFit_RecoversTheWeightsThatMadeTheResults(t *testing.T) {
	v := nine(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var truth [classic.NumPhases][classic.NumFeatures]float64
	truth[classic.Moving][classic.FMaterial] = 1.2
	truth[classic.Moving][classic.FMobility] = 0.06
	truth[classic.Moving][classic.FOppMobility] = -0.09
	truth[classic.Flying][classic.FMaterial] = 0.4
	truth[classic.PlacingStart][classic.FMaterial] = 0.8
	truth[classic.PlacingEnd][classic.FMaterial] = 1.6
	truth[classic.PlacingEnd][classic.FTempo] = 0.3
	d := &Data{Variant: v}
	hands := 2 * v.Pieces
	for i := range 60000 {
		r := row{held: i%10 == 0}
		r.x[classic.FMaterial] = int16(rng.IntN(7) - 3)
		r.x[classic.FTempo] = 1
		switch i % 3 {
		case 0:
			r.phase = uint8(classic.PlacingStart)
			r.hand = uint8(1 + rng.IntN(hands))
		case 1:
			r.phase = uint8(classic.Moving)
			r.x[classic.FMobility] = int16(rng.IntN(20))
			r.x[classic.FOppMobility] = int16(rng.IntN(20))
		default:
			r.phase = uint8(classic.Flying)
		}
		var z sparse
		r.spread(&z, hands)
		var th [dims]float64
		for ph := range classic.NumPhases {
			for f := range classic.NumFeatures {
				th[int(ph)*int(classic.NumFeatures)+int(f)] = truth[ph][f]
			}
		}
		r.y = loss
		if rng.Float64() < sigmoid(z.dot(th[:])) {
			r.y = win
		}
		d.rows = append(d.rows, r)
	}
	res, err := Fit{Start: classic.DefaultWeights(v), Workers: 2}.Run(d)
	if err != nil {
		t.Fatal(err)
	}
	scale := 100 / truth[classic.Moving][classic.FMaterial]
	check := func(ph classic.Phase, f classic.Feature, tol float64) {
		t.Helper()
		want := truth[ph][f] * scale
		if got := float64(res.Weights.W[ph][f]); math.Abs(got-want) > tol {
			t.Errorf("%s %s: %v, want %.1f within %v", ph, f, got, want, tol)
		}
	}
	check(classic.Moving, classic.FMaterial, 0.5)
	check(classic.Moving, classic.FMobility, 1.5)
	check(classic.Moving, classic.FOppMobility, 1.5)
	check(classic.Flying, classic.FMaterial, 6)
	check(classic.PlacingStart, classic.FMaterial, 12)
	check(classic.PlacingEnd, classic.FMaterial, 12)
	check(classic.PlacingEnd, classic.FTempo, 12)
	if all := res.Groups[len(res.Groups)-1]; all.Group != "all" || all.Loss >= all.Constant {
		t.Errorf("held-out loss %+v: want the fit below the constant", all)
	}
}

// playMatch records a short match of two classical players in dir.
func playMatch(t *testing.T, v *engine.Variant, dir string) []arena.Record {
	t.Helper()
	m := arena.Match{Variant: v, A: arena.Classic{Depth: 2, HashMB: 1}, B: arena.Classic{Depth: 1, HashMB: 1},
		Pairs: 2, OpeningPlies: 4, Seed: 3, Workers: 1, Dir: dir}
	recs, err := m.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// positionsOf counts the positions of a game that a fit takes: ongoing,
// owing no removal, the side to move with a legal action.
func positionsOf(t *testing.T, v *engine.Variant, moves []string) int {
	t.Helper()
	g := engine.NewGame(v)
	n := 0
	for _, m := range moves {
		if !g.Pos.Removing() && v.HasLegal(&g.Pos) {
			n++
		}
		if err := g.PlayString(m); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func TestCollect_ReadsArenaRecordsAndSelfPlayShards(t *testing.T) {
	v := nine(t)
	dir := t.TempDir()
	recs := playMatch(t, v, filepath.Join(dir, "arena"))
	want := 0
	for _, r := range recs {
		want += positionsOf(t, v, strings.Fields(r.Moves))
	}

	// A self-play shard of two games, their outcomes as recorded.
	var samples []dataset.Sample
	rng := rand.New(rand.NewPCG(5, 5))
	var buf [engine.MaxActions]engine.Action
	for gi := range 2 {
		g := engine.NewGame(v)
		first := len(samples)
		for ply := 0; ply < 40; ply++ {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			legal := v.Legal(&g.Pos, buf[:0])
			samples = append(samples, dataset.Sample{Variant: v.Name, GameID: fmt.Sprintf("g%d", gi), Ply: ply, Position: g.Pos,
				Policy: []dataset.PolicyEntry{{Action: uint16(v.ActionIndex(legal[0])), Prob: 1}}})
			if !g.Pos.Removing() && v.HasLegal(&g.Pos) {
				want++
			}
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
		for i := first; i < len(samples); i++ {
			samples[i].Outcome = gi // game 0 won by white, game 1 by black
		}
	}
	w, err := dataset.NewShardWriter(filepath.Join(dir, "games", "gen-000001"), nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(samples...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	d, err := Collect{Variant: v, Games: []string{dir}, HeldOut: 0.5}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if d.Files != 2 || d.Games != len(recs)+2 || d.Rows() != want {
		t.Errorf("%d files, %d games, %d positions: want 2, %d, %d", d.Files, d.Games, d.Rows(), len(recs)+2, want)
	}
	// Targets follow the side to move: a decided game's winner's
	// positions are wins, its loser's losses.
	wins, losses := 0, 0
	for _, r := range d.rows {
		switch r.y {
		case win:
			wins++
		case loss:
			losses++
		}
	}
	if wins == 0 || losses == 0 {
		t.Errorf("%d wins and %d losses among the targets: want both", wins, losses)
	}
}

func TestCollect_HoldsOutWholeGames(t *testing.T) {
	v := nine(t)
	dir := t.TempDir()
	playMatch(t, v, dir)
	d, err := Collect{Variant: v, Games: []string{dir}, HeldOut: 0.5}.Run()
	if err != nil {
		t.Fatal(err)
	}
	// A game's positions follow one another; its held flag changes only
	// where a game ends, so there are at most as many runs as games.
	runs := 1
	for i := 1; i < len(d.rows); i++ {
		if d.rows[i].held != d.rows[i-1].held {
			runs++
		}
	}
	if runs > d.Games {
		t.Errorf("%d runs of held-out and fitted positions over %d games: a game was split", runs, d.Games)
	}
}

func TestCollect_TablePositionsCarryTheirExactValues(t *testing.T) {
	v := nine(t)
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: 6})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	playMatch(t, v, dir)
	d, err := Collect{Variant: v, Games: []string{dir}, Tables: set, TablePositions: 50, Seed: 9}.Run()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var ys [3]int
	for _, r := range d.rows {
		if r.table {
			n++
			ys[r.y]++
		}
	}
	if n != 50 {
		t.Errorf("%d table positions, want 50 (one material, 3 v 3)", n)
	}
	if ys[draw] == 0 || ys[win]+ys[loss] == 0 {
		t.Errorf("table targets %v (loss, draw, win): want draws and decided positions", ys)
	}
}

// A game position the tables hold is fitted to its exact value, not to
// the game's result.
func TestCollect_TablesRescoreTheGamesPositions(t *testing.T) {
	v := nine(t)
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: 6})
	if err != nil {
		t.Fatal(err)
	}
	// A shard of 3 v 3 positions, each recorded as won by white.
	rng := rand.New(rand.NewPCG(4, 4))
	var samples []dataset.Sample
	var want []uint8
	for i := 0; len(samples) < 40; i++ {
		perm := rng.Perm(v.Board.Points)
		var pieces [2]uint32
		for j := range 6 {
			pieces[j/3] |= 1 << perm[j]
		}
		p, err := v.Placed(pieces, i%2, 30)
		if err != nil {
			t.Fatal(err)
		}
		val, err := set.Probe(&p)
		if err != nil || p.Result != engine.Ongoing || !v.HasLegal(&p) {
			continue
		}
		var buf [engine.MaxActions]engine.Action
		legal := v.Legal(&p, buf[:0])
		samples = append(samples, dataset.Sample{Variant: v.Name, GameID: fmt.Sprintf("g%d", i), Ply: 30, Position: p, Outcome: 0,
			Policy: []dataset.PolicyEntry{{Action: uint16(v.ActionIndex(legal[0])), Prob: 1}}})
		want = append(want, tableResult(val))
	}
	w, err := dataset.NewShardWriter(t.TempDir(), nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(samples...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := Collect{Variant: v, Games: []string{w.Path()}, Tables: set}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != len(want) || d.Rescored != len(want) {
		t.Fatalf("%d positions, %d rescored: want %d, all", d.Rows(), d.Rescored, len(want))
	}
	for i, r := range d.rows {
		if r.y != want[i] {
			t.Errorf("position %d: result %d, want the tables' %d", i, r.y, want[i])
		}
	}
}

func TestCollect_RefusesWhatHoldsNoGames(t *testing.T) {
	v := nine(t)
	empty := t.TempDir()
	if _, err := (Collect{Variant: v, Games: []string{empty}}).Run(); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("an empty directory: %v, want an error naming it", err)
	}
	bad := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(bad, []byte("not parquet"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := (Collect{Variant: v, Games: []string{bad}}).Run(); err == nil {
		t.Error("a file that is not Parquet: no error")
	}
	if _, err := (Collect{Variant: v, Games: []string{filepath.Join(empty, "missing")}}).Run(); err == nil {
		t.Error("a missing path: no error")
	}
}

// On positions whose results the evaluation hardly fits, the scale that
// starts the fit stays positive and finite: a full Newton step there once
// sent it, and every fitted weight with it, past 1e200.
func TestFitScale_StaysPositiveWhereTheEvaluationFitsNothing(t *testing.T) {
	w, err := classic.LoadWeights(classic.HandWeights)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		rows := make([]*row, 40)
		for i := range rows {
			r := &row{phase: uint8(classic.Moving), y: uint8(rng.IntN(3))}
			r.x[classic.FMaterial] = int16(rng.IntN(5) - 2)
			// Results that go against the material half the time and more.
			if rng.IntN(3) > 0 && r.x[classic.FMaterial] != 0 {
				r.y = 2 - uint8(1+int(r.x[classic.FMaterial])/2)
			}
			rows[i] = r
		}
		if k := fitScale(rows, w, 18); !(k > 0) || k > 1e6 {
			t.Fatalf("trial %d: scale %v: want a positive, finite one", trial, k)
		}
	}
}
