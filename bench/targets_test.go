package bench

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// targetsBench is a TargetsBench of an untrained network on n positions of
// random games of nine, searched as self-play's full searches are, at 32
// visits.
func targetsBench(t *testing.T, n int) *TargetsBench {
	t.Helper()
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	net, err := model.New(v.Name, model.NewArch(v, model.Config{Width: 16, Blocks: 1, Features: model.EncoderBoard}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var samples []dataset.Sample
	var buf []engine.Action
	for len(samples) < n {
		g := engine.NewGame(v)
		for ply := 0; len(samples) < n; ply++ {
			if r, _ := g.Outcome(); r != engine.Ongoing {
				break
			}
			if ply%5 == 2 {
				samples = append(samples, dataset.Sample{Variant: v.Name, Ply: len(g.Actions), Position: g.Pos, Full: true})
			}
			buf = v.Legal(&g.Pos, buf[:0])
			if err := g.Play(buf[rng.IntN(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	set := selfplay.DefaultSettings().Search
	set.Simulations, set.Root, set.BatchSize = 32, mcts.RootGumbel, 4
	return &TargetsBench{Variant: v, Net: net, Samples: samples, Search: set}
}

// TestRunJudged_EveryPositionJudgedOnce: each position lands in one row,
// the rows' shares and losses are in range, and with c_scale 0 (the
// target is the network's own policy) the target's choice and the
// network's are judged alike in every row.
func TestRunJudged_EveryPositionJudgedOnce(t *testing.T) {
	for _, cScale := range []float64{1, 0} {
		b := targetsBench(t, 16)
		b.Search.CScale = cScale
		calls := 0
		sp, j, err := b.RunJudged(context.Background(), 2, false, 1, 1, 3, func(done, total int) {
			calls++
			if done != calls || total != len(b.Samples) {
				t.Errorf("progress %d of %d at call %d: want %d of %d", done, total, calls, calls, len(b.Samples))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if sp.Positions != len(b.Samples) || j.Rows[0].Positions+j.Rows[1].Positions != len(b.Samples) || calls != len(b.Samples) {
			t.Fatalf("c_scale %v: %d positions measured, %d+%d judged, %d progress calls: want %d each", cScale,
				sp.Positions, j.Rows[0].Positions, j.Rows[1].Positions, calls, len(b.Samples))
		}
		for i, r := range j.Rows {
			if r.TargetAgree < 0 || r.TargetAgree > 1 || r.NetworkAgree < 0 || r.NetworkAgree > 1 ||
				r.TargetLost < 0 || r.TargetLost > 2*DiagnoseCap || r.NetworkLost < 0 || r.NetworkLost > 2*DiagnoseCap {
				t.Errorf("c_scale %v, row %d: %+v: want shares in [0,1] and losses in [0,%v]", cScale, i, r, 2*DiagnoseCap)
			}
			if cScale == 0 && (r.TargetAgree != r.NetworkAgree || r.TargetLost != r.NetworkLost) {
				t.Errorf("c_scale 0, row %d: %+v: the target is the network's policy, want its choice judged as the network's", i, r)
			}
		}
	}
}

// A generation's games are its self-play shards: a shard of older
// positions searched again (loop.reanalyse) beside them is left out.
func TestGenerationShards_LeaveOutReanalysedShards(t *testing.T) {
	v, err := engine.Load("three")
	if err != nil {
		t.Fatal(err)
	}
	r := store.Dir(t.TempDir())
	smp := dataset.Sample{Variant: v.Name, GameID: "g", Position: engine.NewGame(v).Pos, Full: true,
		Policy: []dataset.PolicyEntry{{Action: 0, Prob: 1}}}
	for _, meta := range []map[string]string{
		{selfplay.GamesKey: "1"},
		{selfplay.GamesKey: "0", selfplay.ReanalysedKey: "3"},
	} {
		w, err := dataset.NewShardWriter(r.ShardDir(4), meta, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(smp); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	files, err := generationShards(r, 4)
	if err != nil || len(files) != 1 {
		t.Fatalf("%v, %v: want the one shard of games", files, err)
	}
	if info, err := dataset.Inspect(files[0]); err != nil || selfplay.IsReanalysed(info) {
		t.Fatalf("the shard listed is the reanalysed one (%v)", err)
	}
}
