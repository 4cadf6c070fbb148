package train

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/store"
)

// recordingSource notes the game of every sample it passes on.
type recordingSource struct {
	Source
	games map[string]bool
}

func (r *recordingSource) Next(s *dataset.Sample) error {
	err := r.Source.Next(s)
	if err == nil {
		r.games[s.GameID] = true
	}
	return err
}

func TestSplitsFromAGamesDirectoryAreDisjointByGame(t *testing.T) {
	v := mustVariant(t, "three")
	dir := t.TempDir()
	w, err := dataset.NewShardWriter(filepath.Join(dir, store.ModelName(0)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(randomSamples(t, v, 600, 21)...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	trainSrc, valSrc, err := OpenSplits(dir, dataset.WindowOptions{Shuffle: 64, Seed: 1}, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	c := plainConfig()
	c.BatchSize = 32
	tr := newTrainer(t, v, newNet(t, v, model.Config{Width: 16, Blocks: 1}, 1), c)
	seenTrain := &recordingSource{Source: trainSrc, games: map[string]bool{}}
	if n, err := tr.Fit(t.Context(), seenTrain, 30, 0, nil); err != nil || n != 30 {
		t.Fatalf("Fit on the repeating training split: %d steps, %v", n, err)
	}
	seenVal := &recordingSource{Source: valSrc, games: map[string]bool{}}
	s, err := tr.Validate(seenVal, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Samples == 0 || len(seenVal.games) == 0 || len(seenTrain.games) == 0 {
		t.Fatalf("validation over %d samples of %d games, training saw %d games", s.Samples, len(seenVal.games), len(seenTrain.games))
	}
	for g := range seenVal.games {
		if seenTrain.games[g] {
			t.Errorf("game %s in both splits", g)
		}
		if !dataset.InValidation(g, 0.3) {
			t.Errorf("game %s in validation, InValidation says no", g)
		}
	}
	var x dataset.Sample
	if err := valSrc.Next(&x); !errors.Is(err, io.EOF) {
		t.Errorf("validation split after Validate: %v, want io.EOF (read once)", err)
	}
}

// Validation measures the newest generation's held-out games, not the
// oldest samples of the window: those are the games the candidate is
// about to play like.
func TestSplits_ValidationReadsTheNewestGenerationOnly(t *testing.T) {
	v := mustVariant(t, "three")
	dir := t.TempDir()
	for gen := 0; gen < 3; gen++ {
		w, err := dataset.NewShardWriter(filepath.Join(dir, store.ModelName(gen)), nil)
		if err != nil {
			t.Fatal(err)
		}
		samples := randomSamples(t, v, 300, uint64(30+gen))
		for i := range samples {
			samples[i].Generation = gen
		}
		if err := w.Write(samples...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	_, valSrc, err := OpenSplits(dir, dataset.WindowOptions{Generations: 3, Seed: 1}, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	defer valSrc.Close()
	n := 0
	for {
		var s dataset.Sample
		if err := valSrc.Next(&s); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		n++
		if s.Generation != 2 {
			t.Fatalf("validation sample %d of game %s is of generation %d, want only the newest (2)", n, s.GameID, s.Generation)
		}
	}
	if n == 0 {
		t.Fatal("no validation samples")
	}
}

// Only the newest generation's validation games are held out: an older
// generation's, validated on when it was newest, are training data since.
func TestSplits_OlderGenerationsValidationGamesAreTrainedOn(t *testing.T) {
	v := mustVariant(t, "three")
	dir := t.TempDir()
	for gen := 0; gen < 2; gen++ {
		w, err := dataset.NewShardWriter(filepath.Join(dir, store.ModelName(gen)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(randomSamples(t, v, 300, uint64(40+gen))...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	trainSrc, valSrc, err := OpenSplits(dir, dataset.WindowOptions{Generations: 2, Seed: 1}, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	defer trainSrc.Close()
	defer valSrc.Close()
	oldVal := 0
	for range 600 { // a pass over both generations
		var s dataset.Sample
		if err := trainSrc.Next(&s); err != nil {
			t.Fatal(err)
		}
		if dataset.InValidation(s.GameID, 0.3) {
			if strings.HasPrefix(s.GameID, "g41-") {
				t.Fatalf("training read game %s, a validation game of the newest generation", s.GameID)
			}
			oldVal++
		}
	}
	if oldVal == 0 {
		t.Error("training read none of generation 0's validation games")
	}
}
