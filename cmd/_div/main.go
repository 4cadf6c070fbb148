package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
)

func main() {
	v, _ := engine.Load("nine")
	for _, dir := range os.Args[1:] {
		files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
		byPly := map[int]map[uint64]int{}
		games := map[string]bool{}
		full, all := 0, 0
		for _, f := range files {
			ss, err := dataset.ReadShard(f)
			if err != nil {
				panic(err)
			}
			for _, s := range ss {
				games[s.GameID] = true
				all++
				if s.Full {
					full++
				}
				p := int(s.Ply)
				if byPly[p] == nil {
					byPly[p] = map[uint64]int{}
				}
				c := v.MapPosition(v.CanonicalSymmetry(&s.Position), s.Position)
				byPly[p][uint64(c.Pieces[0])<<32|uint64(c.Pieces[1])]++
			}
		}
		fmt.Printf("%s: %d games, %d positions (%d full)\n", dir, len(games), all, full)
		for _, p := range []int{2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 30, 40} {
			m := byPly[p]
			n, top := 0, 0
			for _, c := range m {
				n += c
				top = max(top, c)
			}
			counts := []int{}
			for _, c := range m {
				counts = append(counts, c)
			}
			sort.Sort(sort.Reverse(sort.IntSlice(counts)))
			fmt.Printf("  ply %2d: %4d recorded, %4d distinct, most common %3d\n", p, n, len(m), top)
		}
	}
}
