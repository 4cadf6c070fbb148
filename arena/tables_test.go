package arena

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/model"
)

func TestTableOracle_SamplesDecisivePositionsAndCountsRightMoves(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	set, err := tablebase.Build(v, tablebase.BuildOptions{Pieces: 6})
	if err != nil {
		t.Fatal(err)
	}
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
