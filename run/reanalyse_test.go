package run

import (
	"context"
	"fmt"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/selfplay"
)

// loop.reanalyse: after each generation played by a model, positions of
// the window's earlier training games are searched again and written as
// one shard of no games beside the generation's games, once, however
// often the generation is resumed.
func TestLoop_ReanalyseWritesFreshTargetsOfOlderGamesOnce(t *testing.T) {
	l := runConfig(t, "variant: three\nmodel: {width: 16, blocks: 1}\n"+
		"loop: {generations: 3, games: 16, steps: 4, window_generations: 3, val_fraction: 0.2, reanalyse: 0.5}\n"+
		"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n"+
		"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n")
	games := map[string]int{} // the generation of every game played
	st := statusOf(t, l.wd.Store(), l.loc)
	for g := range 3 {
		files, err := dataset.ShardFiles(l.dir.ShardDir(g))
		if err != nil {
			t.Fatal(err)
		}
		recorded, reanalysed := 0, 0
		for _, f := range files {
			info, err := dataset.Inspect(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			samples, err := dataset.ReadShard(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !selfplay.IsReanalysed(info) {
				recorded += len(samples)
				for _, s := range samples {
					games[s.GameID] = g
				}
				continue
			}
			if g == 0 {
				t.Fatal("generation 0, played without a model, was reanalysed")
			}
			if by := info.Metadata[selfplay.ReanalysedKey]; by != fmt.Sprint(g) {
				t.Errorf("generation %d: reanalysed by model %s, want the best, %d", g, by, g)
			}
			for _, s := range samples {
				from, ok := games[s.GameID]
				if !ok || from >= g {
					t.Fatalf("generation %d: reanalysed a position of game %s, not of an earlier generation's", g, s.GameID)
				}
				if dataset.InValidation(s.GameID, 0.2) {
					t.Fatalf("generation %d: reanalysed a position of validation game %s", g, s.GameID)
				}
				if s.Generation != g || !s.Full {
					t.Fatalf("generation %d: a reanalysed sample of generation %d, full %v", g, s.Generation, s.Full)
				}
			}
			reanalysed += len(samples)
		}
		if g > 0 && (reanalysed == 0 || reanalysed > (recorded+1)/2) {
			t.Errorf("generation %d: %d positions reanalysed for %d recorded, want some and at most half", g, reanalysed, recorded)
		}
		if n, err := selfplay.CountGames(l.dir.ShardDir(g)); err != nil || n != 16 {
			t.Errorf("generation %d: %d games (%v), want 16: a reanalysed shard holds none", g, n, err)
		}
		wantRe := min(g, 1)
		if gs := st.PerGen[g]; gs.Shards != len(files)-wantRe || gs.Reanalysed != wantRe || gs.Games != 16 {
			t.Errorf("status of generation %d: %d shards of %d games and %d reanalysed, want %d, 16 and %d",
				g, gs.Shards, gs.Games, gs.Reanalysed, len(files)-wantRe, wantRe)
		}
	}
	gens := mustLoad(t, l.gens)
	if secs := gens.column("reanalyse_s"); len(secs) != 3 || secs[0] != 0 || !(secs[1] > 0 && secs[2] > 0) {
		t.Errorf("reanalyse_s %v: want 0 for generation 0 and time for 1 and 2", secs)
	}
	before, _ := dataset.ShardFiles(l.dir.ShardDir(2))
	if err := l.reanalyse(context.Background(), 2, 2); err != nil {
		t.Fatal(err)
	}
	if after, _ := dataset.ShardFiles(l.dir.ShardDir(2)); len(after) != len(before) {
		t.Fatalf("reanalysing generation 2 again wrote %d more shards", len(after)-len(before))
	}
}

func TestConfig_ReanalyseOutOfRangeIsRefused(t *testing.T) {
	for _, bad := range []string{"-0.5", "5"} {
		if _, err := loadConfigText(t, "loop: {reanalyse: "+bad+"}\n"); err == nil {
			t.Errorf("reanalyse %s: accepted", bad)
		}
	}
}
