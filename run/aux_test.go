package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/model"
)

// train.*_weight: the models of a run have the auxiliary heads of the
// weights above 0, from the first candidate on; a run resumed with other
// weights goes on with the heads they name, the other weights kept; an
// MLP with heads is refused by name.
func TestLoop_AuxHeadsFollowTheTrainWeights(t *testing.T) {
	dir := t.TempDir()
	run := func(weights string, generations int) *Trainer {
		text := "variant: three\nmodel: {kind: graph, width: 8, blocks: 1}\n" +
			fmt.Sprintf("train: {%s}\n", weights) +
			fmt.Sprintf("loop: {generations: %d, games: 16, steps: 4}\n", generations) +
			"selfplay: {workers: 1, games_in_flight: 8, search: {simulations: 8}, fast_simulations: 4}\n" +
			"gate: {max_games: 0, ladder: [random], ladder_pairs: 1}\n"
		cfg := filepath.Join(dir, fmt.Sprintf("c%d.yaml", generations))
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenTrainer(context.Background(), filepath.Join(dir, "run"), cfg, TrainerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if _, err := l.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return l
	}
	run("ownership_weight: 1.5, score_weight: 0.5, reply_weight: 0.15", 2)
	l := run("reply_weight: 0", 3) // laid over the run's run.yaml: the other weights stay
	all := model.AuxOwnership | model.AuxScore | model.AuxReply
	for gen, want := range map[int]model.Aux{1: all, 2: all, 3: model.AuxOwnership | model.AuxScore} {
		ck, err := model.LoadCheckpointFor(l.dir.Model(gen), l.v)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Net.Arch.Aux != want {
			t.Errorf("model %d: %v, want heads %v", gen, ck.Net.Arch, want)
		}
	}
	_, err := loadConfigText(t, "model: {kind: mlp}\ntrain: {score_weight: 0.5}\n")
	if err == nil || !strings.Contains(err.Error(), "graph network's") {
		t.Errorf("an MLP with a score head: %v", err)
	}
}
