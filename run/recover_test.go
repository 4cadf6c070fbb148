package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// progressBuf records the loop's lasting lines.
type progressBuf struct{ bytes.Buffer }

func (p *progressBuf) Update(string, ...any) {}
func (p *progressBuf) Done(format string, args ...any) {
	p.WriteString(strings.TrimSpace(fmt.Sprintf(format, args...)) + "\n")
}

// With the newest checkpoint deleted (the best model's), the run resumes:
// the best falls back to the newest earlier checkpoint, said so, and the
// next generation trains from there; no generation is skipped or doubled.
func TestRun_ResumeWithTheBestCheckpointDeleted_FallsBackToTheLastOne(t *testing.T) {
	if testing.Short() {
		t.Skip("three quick generations")
	}
	dir := t.TempDir()
	l := quickLoop(t, dir, nil)
	l.Config().Gate.MaxGames = 0 // every candidate is accepted: the newest is the best
	l.Config().Loop.Generations = 2
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if best, err := l.dir.Best(); err != nil || best != 2 {
		t.Fatalf("best = %d, %v; want 2", best, err)
	}
	if err := os.Remove(l.dir.Model(2)); err != nil {
		t.Fatal(err)
	}
	var prog progressBuf
	l, err := OpenTrainer(context.Background(), dir, "", TrainerOptions{Options: Options{Progress: &prog}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := l.Config()
	c.SelfPlay.Workers, c.Loop.Games, c.Loop.Steps, c.Loop.Generations = 1, 64, 20, 3
	c.Gate.MaxGames, c.Gate.LadderPairs = 0, 0
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatalf("resume with the best checkpoint deleted: %v\n%s", err, prog.String())
	}
	if !strings.Contains(prog.String(), "falling back to gen-000001") {
		t.Errorf("no word of the fallback:\n%s", prog.String())
	}
	gens := mustLoad(t, l.gens).text("generation")
	if strings.Join(gens, ",") != "0,1,2" {
		t.Errorf("generations.csv generations %v; want 0,1,2", gens)
	}
	if best, err := l.dir.Best(); err != nil || best != 3 {
		t.Errorf("best after the resumed generation = %d, %v; want 3", best, err)
	}
}
