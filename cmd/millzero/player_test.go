package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// saveTestCheckpoint writes a small random network for variant as
// generation gen of a run directory, and marks it best.
func saveTestCheckpoint(t *testing.T, run runDir, variant string, gen int) string {
	t.Helper()
	v, err := engine.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	n, err := model.New(variant, model.NewArch(v, model.Config{Width: 16, Blocks: 1}), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(run.models(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := run.model(gen)
	if err := (&model.Checkpoint{Net: n, Generation: gen}).Save(path); err != nil {
		t.Fatal(err)
	}
	if err := run.setBest(gen); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadSource_RunPlaysItsBestModelInItsVariant(t *testing.T) {
	run := runDir(t.TempDir())
	src, err := loadSource(playerConfig{Run: string(run)})
	if err != nil || src.ck != nil || !strings.Contains(src.desc, "has no model yet") {
		t.Fatalf("run without a model: %+v, %v; want rollouts and a note", src, err)
	}
	if err := os.WriteFile(run.config(), []byte("variant: three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = loadSource(playerConfig{Run: string(run)})
	if v, err2 := src.variantFor(""); err != nil || err2 != nil || v.Name != "three" {
		t.Fatalf("run of three without a model: variant %v, %v, %v; want three", v, err, err2)
	}
	path := saveTestCheckpoint(t, run, "three", 3)
	src, err = loadSource(playerConfig{Run: string(run)})
	if err != nil {
		t.Fatal(err)
	}
	if src.ck == nil || !strings.Contains(src.desc, filepath.Base(path)) || !strings.Contains(src.desc, "generation 3") {
		t.Fatalf("source %q: want the checkpoint %s of generation 3", src.desc, path)
	}
	v, err := src.variantFor("")
	if err != nil || v.Name != "three" {
		t.Fatalf("variant %v, %v: want the model's, three", v, err)
	}
	if _, err := src.variantFor("nine"); err == nil || !strings.Contains(err.Error(), "three") {
		t.Errorf("a three model asked to play nine: error %v, want one naming both", err)
	}
	var out bytes.Buffer
	if err := playMain([]string{"--model", path, "--sims", "8"}, strings.NewReader("b2\nquit\n"), &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "Model: checkpoint ") || !strings.Contains(got, "black plays ") {
		t.Errorf("a game against the checkpoint:\n%s", got)
	}
}

func TestModelPlayer_FollowsTheGameAndStartsAfreshAfterUndo(t *testing.T) {
	v, _ := engine.Load("nine")
	bot := rolloutPlayer(t, v, 64)
	g := engine.NewGame(v)
	a, res, err := bot.act(context.Background(), g, 0, 0)
	if err != nil || res.Visited < 64 {
		t.Fatalf("first move: %v, %d visits", err, res.Visited)
	}
	g.Play(a)
	g.PlayString(firstLegal(g))
	bot.search.Follow(g)
	if root := bot.search.Root(); root != g.Pos {
		t.Fatal("after two actions the root is not the game's position")
	}
	if kept := bot.search.Result().Visited; kept == 0 {
		t.Error("the subtree of the actions played was not kept")
	}
	g.Undo()
	g.Undo()
	g.PlayString("a7")
	bot.search.Follow(g)
	if root := bot.search.Root(); root != g.Pos || bot.search.Result().Visited != 0 {
		t.Errorf("after undo and another action: root is the game's %v, %d visits; want the game's position, fresh",
			root == g.Pos, bot.search.Result().Visited)
	}
	if _, _, err := bot.act(context.Background(), g, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func TestModelPlayer_MoveTimeSearchesUntilTheTimeIsUp(t *testing.T) {
	v, _ := engine.Load("nine")
	bot := rolloutPlayer(t, v, 16)
	g := engine.NewGame(v)
	start := time.Now()
	res, err := bot.think(context.Background(), g, 0, 50*time.Millisecond)
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// Without a cap the visits are not the player's 16; the time is kept
	// to within a step of 32 visits (well under a second here).
	if res.Visited <= 16 || el < 50*time.Millisecond || el > time.Second {
		t.Errorf("%d visits in %s: want more than 16, in about 50ms", res.Visited, el)
	}
	bot = rolloutPlayer(t, v, 16) // a fresh tree: the start's is reused
	res, err = bot.think(context.Background(), engine.NewGame(v), 40, time.Minute)
	if err != nil || res.Visited < 40 || res.Visited > 40+32 {
		t.Errorf("capped at 40 visits: %d, %v", res.Visited, err)
	}
	over := engine.NewGame(v)
	for _, m := range strings.Fields("a7 d6 d7 f4 g7") {
		over.PlayString(m)
	}
	if _, err := bot.think(context.Background(), over, 0, 0); err != nil {
		t.Errorf("a removal to choose: %v", err)
	}
}

func TestTopChoices_MostVisitedFirstWithShares(t *testing.T) {
	v, _ := engine.Load("three")
	bot := rolloutPlayer(t, v, 10) // few visits: ties
	res, err := bot.think(context.Background(), engine.NewGame(v), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	top := topChoices(v, res, 3)
	if len(top) != 3 || top[0].Action != v.FormatAction(res.Best) {
		t.Fatalf("top %+v: want 3, the best (%s) first", top, v.FormatAction(res.Best))
	}
	sum := 0.0
	for i, c := range topChoices(v, res, 100) {
		sum += c.Share
		if i > 0 && c.Visits > top[0].Visits {
			t.Errorf("%+v is after the first but has more visits", c)
		}
	}
	if len(topChoices(v, res, 100)) != 9 || sum < 0.999 || sum > 1.001 {
		t.Errorf("all 9 choices share %v of the visits, want 1", sum)
	}
}
