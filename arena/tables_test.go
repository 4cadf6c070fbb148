package arena

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/model"
)

// tables6 builds the 3 v 3 tables of a variant once for the tests.
var tables6 = struct {
	sync.Mutex
	sets map[string]*tablebase.Set
}{sets: map[string]*tablebase.Set{}}

func buildTables6(t *testing.T, name string) (*engine.Variant, *tablebase.Set) {
	t.Helper()
	v, err := engine.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	tables6.Lock()
	defer tables6.Unlock()
	if set, ok := tables6.sets[name]; ok {
		return v, set
	}
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: 6})
	if err != nil {
		t.Fatal(err)
	}
	tables6.sets[name] = set
	return v, set
}

func TestTableOracle_SamplesDecisivePositionsAndCountsRightMoves(t *testing.T) {
	v, set := buildTables6(t, "nine")
	sample, err := TableSample(set, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := TableSample(set, 5, 7)
	if len(sample) != len(again) || sample[0].Pos != again[0].Pos {
		t.Error("the same seed drew another sample")
	}
	var buf []tablebase.Move
	for _, tp := range sample {
		moves, err := set.Moves(&tp.Pos, buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(tp.Right) == 0 || len(tp.Right) == len(moves) || !slices.Contains(tp.Right, moves[0].Action) {
			t.Errorf("%s: right moves %v of %d, best %v: want the best and not every move", tp.Material, tp.Right, len(moves), moves[0])
		}
	}
	net, err := model.New(v.Name, model.NewArch(v, model.Config{Width: 16, Blocks: 1}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := MeasureTables(context.Background(), v, sample, net, 200)
	if err != nil {
		t.Fatal(err)
	}
	all := rows[len(rows)-1]
	if all.Material != "all" || all.Positions != len(sample) {
		t.Fatalf("total row %+v for %d positions", all, len(sample))
	}
	// A random network's search at 200 visits finds the quick wins its
	// prior misses; its prior alone is right about as often as chance.
	if all.Search <= all.Policy {
		t.Errorf("search right %d, network right %d of %d: the search should add", all.Search, all.Policy, all.Positions)
	}
	var sb strings.Builder
	WriteTableAccuracy(&sb, 200, rows)
	if !strings.Contains(sb.String(), "all") {
		t.Errorf("table:\n%s", sb.String())
	}
}

func TestTableOracle_SearchWithTablesNeverLosesAWonPositionToAlphaBeta(t *testing.T) {
	for _, name := range []string{"nine", "nine-diagonal"} {
		v, set := buildTables6(t, name)
		sample, err := TableSample(set, 40, 11)
		if err != nil {
			t.Fatal(err)
		}
		player := NewSearchPlayer("tables", ArenaSettings(8), Evaluation{Playouts: 1, PlayoutPlies: 20})
		player.Prover = set
		won := 0
		for i, tp := range sample {
			val, err := set.Probe(&tp.Pos)
			if err != nil || val.Outcome != tablebase.Win {
				continue
			}
			won++
			g := engine.NewGameFrom(v, tp.Pos)
			me := int(tp.Pos.Side)
			gp, err := player.NewGame(v, uint64(i))
			if err != nil {
				t.Fatal(err)
			}
			ab, _ := AlphaBeta{Depth: 3}.NewGame(v, uint64(i))
			for r, _ := g.Outcome(); r == engine.Ongoing; r, _ = g.Outcome() {
				mover := gp
				if int(g.Pos.Side) != me {
					mover = ab
				}
				a, err := mover.Act(context.Background(), g)
				if err == nil {
					err = g.Play(a)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			gp.Close()
			if r, why := g.Outcome(); r != engine.WinFor(me) {
				t.Errorf("%s: %s, won for seat %d in %d plies: ended %s (%s)", name, v.FormatPosition(&tp.Pos), me, val.Plies, r, why)
			}
		}
		if won < 5 {
			t.Errorf("%s: only %d won positions in the sample", name, won)
		}
	}
}
