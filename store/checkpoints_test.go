package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckpoints_OnlyCheckpointNamesCount: temporary files, other names
// and directories in models/ are not checkpoints.
func TestCheckpoints_OnlyCheckpointNamesCount(t *testing.T) {
	r := Dir(t.TempDir())
	if err := os.MkdirAll(filepath.Join(r.Models(), "gen-000009.safetensors"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gen-000003.safetensors", "gen-000001.safetensors", "gen-1234567.safetensors",
		"gen-000002.safetensors.tmp", "gen-2.safetensors", "gen-0000004.safetensors", "gen-00000x.safetensors", "best"} {
		if err := os.WriteFile(filepath.Join(r.Models(), name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 3, 1234567}; !slices.Equal(got, want) {
		t.Errorf("checkpoints %v, want %v", got, want)
	}
}

// TestChooseCheckpoint_TheAskedTheBestOrTheNewest: a generation asked for
// wins, then the best's checkpoint, then the newest; a missing one is
// named with the ones there are.
func TestChooseCheckpoint_TheAskedTheBestOrTheNewest(t *testing.T) {
	r := Dir(t.TempDir())
	if _, _, err := r.ChooseCheckpoint(-1); err == nil || !strings.Contains(err.Error(), "no checkpoint in") {
		t.Errorf("empty run: %v, want no checkpoint", err)
	}
	for _, g := range []int{1, 2, 3} {
		if err := os.MkdirAll(r.Models(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.Model(g), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if p, _, err := r.ChooseCheckpoint(-1); err != nil || p != r.Model(3) {
		t.Errorf("no best: %s, %v; want the newest", p, err)
	}
	if err := r.SetBest(2); err != nil {
		t.Fatal(err)
	}
	if p, _, err := r.ChooseCheckpoint(-1); err != nil || p != r.Model(2) {
		t.Errorf("best 2: %s, %v; want generation 2", p, err)
	}
	if p, _, err := r.ChooseCheckpoint(1); err != nil || p != r.Model(1) {
		t.Errorf("asked 1: %s, %v; want generation 1", p, err)
	}
	if _, _, err := r.ChooseCheckpoint(7); err == nil || !strings.Contains(err.Error(), "checkpoints: [1 2 3]") {
		t.Errorf("asked 7: %v, want an error naming the checkpoints there are", err)
	}
}

func TestParseModelName_OnlyTheFormModelNameWrites(t *testing.T) {
	for name, want := range map[string]int{"gen-000000": 0, "gen-000007": 7, "gen-1234567": 1234567} {
		if g, ok := ParseModelName(name); !ok || g != want {
			t.Errorf("ParseModelName(%q) = %d, %v; want %d", name, g, ok, want)
		}
	}
	for _, name := range []string{"gen-7", "gen-0000007", "gen--00001", "gen-+00001", "gen-00000x", "gen-", "model-000007", "gen-000007.safetensors"} {
		if g, ok := ParseModelName(name); ok {
			t.Errorf("ParseModelName(%q) = %d; want no model name", name, g)
		}
	}
}
