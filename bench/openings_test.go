package bench

import (
	"math"
	"testing"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
)

// The 24 first placements of Nine Men's Morris are 4 positions up to the
// board's 16 symmetries: a corner of the outer or inner ring (8), of the
// middle ring (4), the middle of an outer or inner side (8), of a middle
// side (4).
func TestOpeningSpread_CountsPositionsUpToSymmetry(t *testing.T) {
	v, err := engine.Load("nine")
	if err != nil {
		t.Fatal(err)
	}
	var samples []dataset.Sample
	g := engine.NewGame(v)
	samples = append(samples, dataset.Sample{Ply: 0, Position: g.Pos})
	for _, a := range v.Legal(&g.Pos, nil) {
		h := engine.NewGame(v)
		if err := h.Play(a); err != nil {
			t.Fatal(err)
		}
		samples = append(samples, dataset.Sample{Ply: 1, Position: h.Pos})
	}
	rows := OpeningSpread(v, samples, []int{0, 1, 2})
	want := []OpeningRow{{0, 1, 1, 1}, {1, 24, 4, 8.0 / 24}, {2, 0, 0, 0}}
	for i, w := range want {
		r := rows[i]
		if r.Ply != w.Ply || r.Positions != w.Positions || r.Distinct != w.Distinct || math.Abs(r.Commonest-w.Commonest) > 1e-9 {
			t.Errorf("ply %d: %+v, want %+v", w.Ply, r, w)
		}
	}
}
