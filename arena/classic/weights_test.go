package classic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWeights_FileRoundTrip(t *testing.T) {
	w := handWeights()
	w.Variant, w.Grain = "nine", 7
	w.W[Moving][FRunning] = -33
	w.Fit = &FitSummary{Sources: []string{"runs/a/games"}, Games: 3, Positions: 40, HeldOut: 4, Loss: 0.5, Scale: 120, Start: "hand"}
	path := filepath.Join(t.TempDir(), "w.json")
	if err := WriteWeights(path, w); err != nil {
		t.Fatal(err)
	}
	got, err := LoadWeights(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.W != w.W || got.Grain != 7 || got.Variant != "nine" || got.Name != path || got.Fit == nil || got.Fit.Games != 3 {
		t.Errorf("read back %+v, want %+v", got, w)
	}
	if got.ID() != w.ID() {
		t.Errorf("ID %s read back, %s written", got.ID(), w.ID())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want the weights alone (no temporary left)", len(entries))
	}
}

func TestParseWeights_RefusesWhatItCannotRead(t *testing.T) {
	every := `"placing_start": {}, "placing_end": {}, "moving": {}, "flying": {}`
	for _, c := range []struct{ file, want string }{
		{`{"grain": 0, "weights": {` + every + `}}`, "grain 0"},
		{`{"grain": 5, "weights": {"placing_start": {}, "placing_end": {}, "moving": {}}}`, "phase flying missing"},
		{`{"grain": 5, "weights": {` + every + `, "endgame": {}}}`, `phase "endgame"`},
		{`{"grain": 5, "weights": {"placing_start": {"speed": 3}, "placing_end": {}, "moving": {}, "flying": {}}}`, `feature "speed"`},
		{`{"grain": 5, "weights": {"placing_start": {"material": 99999}, "placing_end": {}, "moving": {}, "flying": {}}}`, "weight 99999"},
		{`{"grain": 5, "colour": "red", "weights": {` + every + `}}`, `unknown field "colour"`},
		{`{"grain": 5`, "read weights"},
	} {
		if _, err := ParseWeights([]byte(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.file, err, c.want)
		}
	}
}

func TestLoadWeights_NamesTheSetsItKnows(t *testing.T) {
	if _, err := LoadWeights("nonesuch"); err == nil || !strings.Contains(err.Error(), HandWeights) {
		t.Errorf("an unknown name: %v, want an error listing the named sets", err)
	}
	w, err := LoadWeights(HandWeights)
	if err != nil || w.Name != HandWeights || w.Grain != 50 {
		t.Errorf("hand: %+v, %v", w, err)
	}
}

func TestNew_RefusesWeightsOfAnotherVariant(t *testing.T) {
	w := handWeights()
	w.Name, w.Variant = "twelve.json", "twelve"
	if _, err := New(load(t, "nine"), Options{HashMB: 1, Weights: w}); err == nil || !strings.Contains(err.Error(), "twelve") {
		t.Errorf("weights of twelve for nine: %v, want an error naming the variants", err)
	}
}
