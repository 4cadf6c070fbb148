package selfplay

import (
	"context"
	"errors"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

func TestReanalyse_NewTargetsForTheSamePositionsInAShardOfNoGames(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	old := spreadSamples(t, v, 23)
	for k := range old {
		old[k].GameID, old[k].Outcome = "g"+string(rune('a'+k%3)), k%3
		old[k].Policy = []dataset.PolicyEntry{{Action: 0, Prob: 1}} // not a target any search makes
	}
	set := smallSettings()
	set.Search = spreadSettings()
	set.GamesInFlight = 5 // batches of 5, the last short
	dir := t.TempDir()
	job := ReanalyseJob{Variant: v, Settings: set, Samples: old, Generation: 9, Model: 7, ShardDir: dir, Seed: 3,
		NewEvaluator: func(int) (mcts.Evaluator, error) { return spreadEvaluator(t, v, false), nil }}
	st, err := Reanalyse(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if st.Positions != int64(len(old)) || st.Skipped != 0 {
		t.Fatalf("%d positions searched, %d skipped; want %d and 0", st.Positions, st.Skipped, len(old))
	}
	files, err := dataset.ShardFiles(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("%d shards (%v), want 1", len(files), err)
	}
	info, err := dataset.Inspect(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if !IsReanalysed(info) || info.Metadata[ReanalysedKey] != "7" {
		t.Fatalf("metadata %v: want %s=7", info.Metadata, ReanalysedKey)
	}
	if n, err := CountGames(dir); err != nil || n != 0 {
		t.Fatalf("the shard counts as %d games (%v), want 0", n, err)
	}
	got, err := dataset.ReadShard(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(old) {
		t.Fatalf("%d samples written, want %d", len(got), len(old))
	}
	changed := 0
	for k, s := range got {
		o := &old[k]
		if s.Position != o.Position || s.GameID != o.GameID || s.Ply != o.Ply || s.Outcome != o.Outcome || s.Repetitions != o.Repetitions {
			t.Fatalf("sample %d is not the old one's position, game, ply and outcome: %+v against %+v", k, s, *o)
		}
		if s.Generation != 9 || !s.Full || s.Simulations < 32 {
			t.Fatalf("sample %d: generation %d, full %v, %d simulations: want 9, true, 32 or more", k, s.Generation, s.Full, s.Simulations)
		}
		sum := float32(0)
		for _, e := range s.Policy {
			sum += e.Prob
			if !v.IsLegal(&s.Position, v.ActionAt(int(e.Action))) {
				t.Fatalf("sample %d: the target names an illegal action", k)
			}
		}
		if sum < 0.999 || sum > 1.001 {
			t.Fatalf("sample %d: the target sums to %v", k, sum)
		}
		if !(s.RootValue >= 0 && s.RootValue <= 1) {
			t.Fatalf("sample %d: root value %v", k, s.RootValue)
		}
		if topAction(s.Policy) != topAction(o.Policy) {
			changed++
		}
	}
	if int64(changed) != st.Changed || changed == 0 {
		t.Fatalf("%d targets changed their top action, stats say %d; want some", changed, st.Changed)
	}
}

func TestReanalyse_SkipsPositionsTheRulesEndAndWritesNothingWhenCancelled(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	smp := spreadSamples(t, v, 4)
	for k := range smp {
		smp[k].GameID = "g"
	}
	smp[1].Repetitions = v.RepetitionDraw // drawn by repetition at its root
	set := smallSettings()
	set.Search = spreadSettings()
	newEval := func(int) (mcts.Evaluator, error) { return spreadEvaluator(t, v, false), nil }
	st, err := Reanalyse(context.Background(), ReanalyseJob{Variant: v, Settings: set, Samples: smp, Model: 1, ShardDir: t.TempDir(), NewEvaluator: newEval})
	if err != nil {
		t.Fatal(err)
	}
	if v.RepetitionDraw > 0 && (st.Skipped != 1 || st.Positions != 3) {
		t.Fatalf("%d searched, %d skipped: want 3 and 1", st.Positions, st.Skipped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := Reanalyse(ctx, ReanalyseJob{Variant: v, Settings: set, Samples: smp, Model: 1, ShardDir: dir, NewEvaluator: newEval}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
	if files, _ := dataset.ShardFiles(dir); len(files) != 0 {
		t.Fatalf("a cancelled reanalysis wrote %d shards", len(files))
	}
	if _, err := Reanalyse(context.Background(), ReanalyseJob{Variant: v, Settings: set, Samples: smp, ShardDir: dir}); err == nil {
		t.Fatal("no model: want an error")
	}
}
