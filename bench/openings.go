package bench

import (
	"fmt"
	"io"
	"os"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/store"
)

// OpeningRow is how varied a run's self-play games are at one ply: of the
// positions its games recorded there, how many differ up to the board's
// symmetries, and the share of the commonest.
type OpeningRow struct {
	Ply       int     `json:"ply"`
	Positions int     `json:"positions"` // recorded at this ply
	Distinct  int     `json:"distinct"`  // of them, different up to the board's symmetries
	Commonest float64 `json:"commonest"` // the share of the commonest of them
}

// OpeningSpread counts, for each ply of plies, the positions of samples
// recorded at that ply and how many of them differ up to v's symmetries:
// how much a run's own games vary where the strength measurements open
// theirs with random plies.
func OpeningSpread(v *engine.Variant, samples []dataset.Sample, plies []int) []OpeningRow {
	counts := make(map[int]map[engine.Position]int, len(plies))
	for _, p := range plies {
		counts[p] = map[engine.Position]int{}
	}
	for i := range samples {
		s := &samples[i]
		m, ok := counts[s.Ply]
		if !ok {
			continue
		}
		key := v.MapPosition(v.CanonicalSymmetry(&s.Position), s.Position)
		key.Ply, key.Hash = 0, 0 // one position however reached
		m[key]++
	}
	rows := make([]OpeningRow, 0, len(plies))
	for _, p := range plies {
		r := OpeningRow{Ply: p, Distinct: len(counts[p])}
		top := 0
		for _, n := range counts[p] {
			r.Positions += n
			top = max(top, n)
		}
		if r.Positions > 0 {
			r.Commonest = float64(top) / float64(r.Positions)
		}
		rows = append(rows, r)
	}
	return rows
}

// WriteOpenings prints rows, OpeningSpread of generation gen's games, as
// a table.
func WriteOpenings(w io.Writer, gen int, rows []OpeningRow) {
	fmt.Fprintf(w, "generation %d's self-play games: the positions recorded at each ply, and how many differ up to the board's symmetries\n", gen)
	fmt.Fprintf(w, "%5s %10s %9s %10s\n", "ply", "positions", "distinct", "commonest")
	for _, r := range rows {
		fmt.Fprintf(w, "%5d %10d %9d %9.1f%%\n", r.Ply, r.Positions, r.Distinct, 100*r.Commonest)
	}
	fmt.Fprintln(w, "\nOnly full searches are recorded (selfplay.full_fraction): a ply holds about that share of the games.")
}

// RunOpenings reads the self-play games of generation gen of the local run
// at dir (gen < 0: the newest generation with games) and returns the
// generation and OpeningSpread of its recorded positions.
func RunOpenings(dir string, gen int, plies []int) (int, []OpeningRow, error) {
	r := store.Dir(dir)
	v, err := runconfig.VariantOf(r)
	if err != nil {
		return 0, nil, err
	}
	if gen < 0 {
		entries, err := os.ReadDir(r.Games())
		if err != nil {
			return 0, nil, fmt.Errorf("no games: %w", err)
		}
		for _, e := range entries {
			if g, ok := store.ParseModelName(e.Name()); ok && g > gen {
				if files, _ := generationShards(r, g); len(files) > 0 {
					gen = g
				}
			}
		}
		if gen < 0 {
			return 0, nil, fmt.Errorf("no games in %s", r.Games())
		}
	}
	files, err := generationShards(r, gen)
	if err != nil {
		return 0, nil, err
	}
	if len(files) == 0 {
		return 0, nil, fmt.Errorf("generation %d: no games in %s", gen, r.ShardDir(gen))
	}
	var samples []dataset.Sample
	for _, f := range files {
		ss, err := dataset.ReadShardFor(f, v)
		if err != nil {
			return 0, nil, err
		}
		samples = append(samples, ss...)
	}
	return gen, OpeningSpread(v, samples, plies), nil
}
