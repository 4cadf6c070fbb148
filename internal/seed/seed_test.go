package seed

import (
	"math/bits"
	"testing"
)

// TestDerive_SameInputsSameSeed: a seed depends on its inputs only.
func TestDerive_SameInputsSameSeed(t *testing.T) {
	if Derive(1, "selfplay", 3, 4) != Derive(1, "selfplay", 3, 4) {
		t.Fatal("the same inputs gave two seeds")
	}
}

// TestDerive_EveryInputChangesTheSeed: the base, the purpose, each part
// and the number of parts each give another seed, with about half the bits
// changed.
func TestDerive_EveryInputChangesTheSeed(t *testing.T) {
	ref := Derive(1, "selfplay", 3, 4)
	for name, s := range map[string]uint64{
		"base":           Derive(2, "selfplay", 3, 4),
		"purpose":        Derive(1, "gate", 3, 4),
		"first part":     Derive(1, "selfplay", 2, 4),
		"second part":    Derive(1, "selfplay", 3, 5),
		"parts":          Derive(1, "selfplay", 3),
		"parts order":    Derive(1, "selfplay", 4, 3),
		"purpose joined": Derive(1, "selfplay3", 4),
	} {
		if d := bits.OnesCount64(s ^ ref); d < 12 || d > 52 {
			t.Errorf("%s: %d bits differ from the reference: want about 32", name, d)
		}
	}
}
