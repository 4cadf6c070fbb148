package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/configs"
	"github.com/millzero/millzero/engine"
)

// TestTrain_MoulinRougeForThreeAndFourPlayersRunsGenerations trains two
// generations of each test-size multi-player config end to end: self-play,
// training, the gate (the candidate against copies of the best, in every
// seat), the ladder against random and the ratings.
func TestTrain_MoulinRougeForThreeAndFourPlayersRunsGenerations(t *testing.T) {
	for _, c := range []struct {
		config string
		seats  int
	}{{"moulin-rouge-3-test", 3}, {"moulin-rouge-4-test", 4}} {
		t.Run(c.config, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCmd("train", "--config", c.config, "--run", dir, "--generations", "2")
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, errOut, out)
			}
			rows := readCSV(t, filepath.Join(dir, "metrics", "generations.csv"))
			if len(rows) != 3 {
				t.Fatalf("generations.csv has %d rows, want 2 generations:\n%v", len(rows)-1, rows)
			}
			col := -1
			for i, h := range rows[0] {
				if h == "pairs" {
					col = i
				}
			}
			for _, r := range rows[1:] {
				// The gate's rounds: 2N(N-1)+1 cells of mean scores.
				if cells := len(strings.Split(r[col], "/")); cells != 2*c.seats*(c.seats-1)+1 {
					t.Errorf("generation %s: gate counts %q, want %d cells of rounds", r[0], r[col], 2*c.seats*(c.seats-1)+1)
				}
			}
			recs, err := arena.ReadRecords(filepath.Join(dir, "arena", "gate-gen-000001"+arena.RecordExt))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) < c.seats {
				t.Fatalf("%d gate games, want a round of %d at least", len(recs), c.seats)
			}
			for _, r := range recs {
				if r.Seats() != c.seats || r.PlayerAt(int(r.Game)) != "gen-000001" {
					t.Errorf("gate game %d/%d: %d seats, seat %d is %q; want %d seats and the candidate on seat %d",
						r.Pair, r.Game, r.Seats(), r.Game, r.PlayerAt(int(r.Game)), c.seats, r.Game)
				}
			}
			ratings := readCSV(t, filepath.Join(dir, "arena", "ratings.csv"))
			names := map[string]bool{}
			for _, r := range ratings[1:] {
				names[r[0]] = true
			}
			for _, want := range []string{"random", "alphabeta:1", "gen-000000", "gen-000001", "gen-000002"} {
				if !names[want] {
					t.Errorf("ratings.csv lacks %s:\n%v", want, ratings)
				}
			}
		})
	}
}

// TestTrain_EveryNamedVariantTrainsAGeneration trains one small generation
// of every named variant end to end (self-play, training, gate, ladder
// against random and alphabeta:1, ratings): the README's table says each
// is trainable.
func TestTrain_EveryNamedVariantTrainsAGeneration(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every variant (about 15 s on two cores)")
	}
	base, err := configs.Runs.ReadFile("runs/moulin-rouge-4-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range engine.Names() {
		v, err := engine.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(base), "variant: moulin-rouge-4", "variant: "+name, 1)
		text = strings.Replace(text, "games: 32, steps: 60", "games: 8, steps: 10", 1)
		text = strings.Replace(text, "max_games: 32", fmt.Sprintf("max_games: %d", 2*v.Players), 1)
		dir := t.TempDir()
		cfg := filepath.Join(dir, "run.yaml")
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd("train", "--config", cfg, "--run", filepath.Join(dir, "run"), "--generations", "1")
		if code != 0 {
			t.Errorf("%s: exit %d: %s\n%s", name, code, errOut, out)
			continue
		}
		if !strings.Contains(out, ": "+name+", network") {
			t.Errorf("%s: the run is not of %s:\n%s", name, name, out)
		}
		if rows := readCSV(t, filepath.Join(dir, "run", "metrics", "generations.csv")); len(rows) != 2 {
			t.Errorf("%s: generations.csv has %d rows, want one generation", name, len(rows)-1)
		}
	}
}
