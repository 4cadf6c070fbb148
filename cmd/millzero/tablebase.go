package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/internal/progress"
)

func runTablebase(args []string, out io.Writer) error {
	sub := map[string]func([]string, io.Writer) error{
		"build": runTablebaseBuild,
		"probe": runTablebaseProbe,
		"stats": runTablebaseStats,
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(out, `Usage: millzero tablebase build|probe|stats [flags]   (millzero tablebase SUB --help)

Endgame tables: every material of w v b pieces on the board (none in hand),
solved by retrograde analysis, exact under the variant's no-capture and 3 v 3
draw rules.

  build   solve every material up to --pieces pieces and write one file each
  probe   the value of a position, its distance and the best moves
  stats   wins, draws and losses per material, and the longest distance

Examples:
  millzero tablebase build --variant nine --pieces 8 --out tables/nine
  millzero tablebase probe --variant nine --dir tables/nine "O*O*****/***@****/*@*O**@* w m s 3 0 3 0 0 0 0 0 0 0 0 0 1"
  millzero tablebase stats --variant nine tables/nine
`)
		if len(args) == 0 {
			return fmt.Errorf("want a subcommand: build, probe or stats")
		}
		return nil
	}
	f, ok := sub[args[0]]
	if !ok {
		return fmt.Errorf("tablebase %q: unknown subcommand: want build, probe or stats", args[0])
	}
	return f(args[1:], out)
}

func runTablebaseBuild(args []string, out io.Writer) error {
	fs := newFlags("tablebase build", "--variant V --pieces N --out DIR",
		[]string{
			"millzero tablebase build --variant nine --pieces 8 --out tables/nine",
			"millzero tablebase build --variant nine-diagonal --pieces 7 --out tables/nine-diagonal",
			"millzero tablebase build --variant my-variant.yaml --pieces 7 --out tables/mine",
		}, out)
	variant := fs.String("variant", "nine", "variant name, or a variant file (.yaml)")
	pieces := fs.Int("pieces", 8, "build every material with at most this many pieces on the board (6 = 3 v 3)")
	dir := fs.String("out", "", "directory of the table files; materials already there are reused (resumable)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 0 || *dir == "" {
		fs.Usage()
		return fmt.Errorf("want --out DIR and no arguments")
	}
	v, err := engine.LoadNameOrFile(*variant)
	if err != nil {
		return err
	}
	prog := progress.New(os.Stderr)
	defer prog.Close()
	start := time.Now()
	var total int64
	_, err = tablebase.Build(v, tablebase.BuildOptions{
		Pieces: *pieces, Dir: *dir, Workers: *workers,
		Progress: func(p tablebase.Progress) {
			switch p.Phase {
			case "init":
				prog.Phase(p.Done, p.Total)
				prog.Update("%s %s: moves %3.0f%% (%d of %d positions), %d resolved, %s",
					v.Name, p.Material, 100*float64(p.Done)/float64(max(1, p.Total)), p.Done, p.Total, p.Resolved, p.Elapsed.Round(time.Second))
			default:
				prog.Update("%s %s: distance %d of at most %d, %d resolved, %s",
					v.Name, p.Material, p.Level+1, p.Total, p.Resolved, p.Elapsed.Round(time.Second))
			}
		},
		Done: func(m tablebase.Material, path string, reused bool) {
			st, _ := os.Stat(path)
			size := int64(0)
			if st != nil {
				size = st.Size()
				total += size
			}
			what := "built"
			if reused {
				what = "reused"
			}
			prog.Done("%s %s: %s %s (%.1f MB) at %s", v.Name, m, what, path, float64(size)/1e6, time.Since(start).Round(100*time.Millisecond))
		},
	})
	prog.Close()
	if err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(out, "%s: every material up to %d pieces in %s: %.1f MB on disk, %.0f MB of memory from the system\n",
		v.Name, *pieces, time.Since(start).Round(100*time.Millisecond), float64(total)/1e6, float64(ms.Sys)/1e6)
	return nil
}

func runTablebaseProbe(args []string, out io.Writer) error {
	fs := newFlags("tablebase probe", "--variant V --dir DIR FEN|POSITION",
		[]string{
			`millzero tablebase probe --variant nine --dir tables/nine "O*O*****/***@****/*@*O**@* w m s 3 0 3 0 0 0 0 0 0 0 0 0 1"`,
			`millzero tablebase probe --variant nine --dir tables/nine --endgame 6 "O*O*****/***@****/*@*O**@* b m s 3 0 3 0 0 0 0 0 0 0 0 6 4"`,
		}, out)
	variant := fs.String("variant", "nine", "variant name, or a variant file (.yaml)")
	dir := fs.String("dir", "tablebase", "directory of the table files")
	endgame := fs.Int("endgame", 0, "plies since both sides were down to 3 pieces (FEN does not hold it)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one position (FEN or position string), got %d arguments", len(rest))
	}
	v, err := engine.LoadNameOrFile(*variant)
	if err != nil {
		return err
	}
	p, err := v.ParseFENOrPosition(rest[0])
	if err != nil {
		return fmt.Errorf("position %q: %w", rest[0], err)
	}
	if *endgame < 0 || *endgame > 60000 {
		return fmt.Errorf("--endgame %d: want 0..60000", *endgame)
	}
	if *endgame > 0 {
		p.Endgame = uint16(*endgame)
	}
	set, err := tablebase.Open(v, *dir, 0)
	if err != nil {
		return err
	}
	if err := set.WriteProbe(out, &p); err != nil {
		return fmt.Errorf("position %q: %w", rest[0], err)
	}
	return nil
}

func runTablebaseStats(args []string, out io.Writer) error {
	fs := newFlags("tablebase stats", "--variant V DIR",
		[]string{"millzero tablebase stats --variant nine tables/nine"}, out)
	variant := fs.String("variant", "nine", "variant name, or a variant file (.yaml)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one DIR argument, got %d", len(rest))
	}
	v, err := engine.LoadNameOrFile(*variant)
	if err != nil {
		return err
	}
	set, err := tablebase.Open(v, rest[0], 0)
	if err != nil {
		return err
	}
	set.WriteStats(out)
	return nil
}
