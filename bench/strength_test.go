package bench

import (
	"slices"
	"testing"

	"github.com/millzero/millzero/arena"
)

func TestClassicYardsticks_OptionsStayWithTheirSpec(t *testing.T) {
	ps, err := ClassicYardsticks("classic@100ms, classic@1s,weights=hand,classic:10")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	if want := []string{"classic@100ms", "classic@1s,weights=hand", "classic:10"}; !slices.Equal(names, want) {
		t.Errorf("players %q, want %q", names, want)
	}
	if c := ps[1].(arena.Classic); c.Weights == nil || c.Weights.Name != "hand" {
		t.Errorf("classic@1s,weights=hand: weights %+v", c.Weights)
	}
	for _, bad := range []string{"weights=hand", "classic@1s,weights=nonesuch", "random"} {
		if _, err := ClassicYardsticks(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
