package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/progress"
)

// runOpenings is `millzero openings WHAT`: opening books.
func runOpenings(args []string, out io.Writer) error {
	if len(args) > 0 && args[0] == "build" {
		return runOpeningsBuild(args[1:], out)
	}
	fs := newFlags("openings", "build [flags]", []string{
		"millzero openings build --plies 6 --judge classic:8 --band 0.3,1.2 --count 500 --out book.txt   (a book of unbalanced positions; --help for its flags)",
	}, out)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	fs.Usage()
	return fmt.Errorf("want: build")
}

// runOpeningsBuild is `millzero openings build`: an opening book of
// positions in which one side is better off but not winning
// (arena.BookBuild), for matches played from it with --book.
func runOpeningsBuild(args []string, out io.Writer) error {
	fs := newFlags("openings build", "--out FILE [flags]", []string{
		"millzero openings build --plies 6 --judge classic:8 --band 0.3,1.2 --count 500 --out book.txt",
		"millzero openings build --variant twelve --plies 8 --judge classic:8,weights=hand --count 200 --seed 2 --out twelve-book.txt",
		"millzero arena model:default@400 model:default@200 --pairs 100 --book book.txt   (a match from the book)",
	}, out)
	variant := fs.String("variant", "nine", "variant name (millzero variants lists them) or variant file; two players")
	plies := fs.Int("plies", 6, "random legal actions from the start to each position")
	judge := fs.String("judge", "classic:8", "the judge of the positions: the classical engine at a fixed depth, classic:N (and ,weights=W): the same on every machine")
	band := fs.String("band", "0.3,1.2", "LOW,HIGH: keep the positions whose side better off is so by LOW to HIGH pieces in the judge's score")
	count := fs.Int("count", 500, "positions in the book, even: half with each seat better off")
	seed := fs.Uint64("seed", 1, "seed of the random openings")
	workers := fs.Int("workers", 0, "positions judged at once (0: one per core)")
	maxJudged := fs.Int("max-judged", 0, "give up after judging this many openings (0: 200 a position of the book, at least 10000)")
	outPath := fs.String("out", "", "write the book to FILE (through a temporary file renamed when complete)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *outPath == "" {
		fs.Usage()
		return fmt.Errorf("give --out, and no other arguments (got %q)", rest)
	}
	v, err := engine.LoadNameOrFile(*variant)
	if err != nil {
		return err
	}
	p, err := arena.ParsePlayer(*judge, v, arena.SpecSettings{})
	if err != nil {
		return fmt.Errorf("--judge %q: %w", *judge, err)
	}
	c, ok := p.(arena.Classic)
	if !ok || c.Depth == 0 {
		return fmt.Errorf("--judge %q: want the classical engine at a fixed depth, classic:N (a time a move judges differently on every machine)", *judge)
	}
	bounds, err := listFlag("band", *band, "a number of pieces (0 or more)", func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) })
	if err != nil {
		return err
	}
	if len(bounds) != 2 {
		return fmt.Errorf("--band %q: want LOW,HIGH in pieces (0.3,1.2)", *band)
	}
	b := arena.BookBuild{Variant: v, Plies: *plies, Judge: c, Low: int(math.Round(100 * bounds[0])), High: int(math.Round(100 * bounds[1])),
		Count: *count, Seed: *seed, Workers: *workers, MaxJudged: *maxJudged}

	ctx, stop := stopContext()
	defer stop()
	prog, start := progress.New(os.Stderr), time.Now()
	defer prog.Close()
	book, err := b.Run(ctx, func(bp arena.BookProgress) {
		prog.Phase(int64(bp.Kept[0]+bp.Kept[1]), int64(2*bp.Want))
		prog.Update("openings: %d judged, kept %d of %d with seat 0 better off and %d of %d with seat 1, %.0fs",
			bp.Judged, bp.Kept[0], bp.Want, bp.Kept[1], bp.Want, time.Since(start).Seconds())
	})
	prog.Close()
	if err != nil {
		return err
	}
	book.Header = append(book.Header, "made by: millzero openings build "+strings.Join(args, " "))
	if err := arena.WriteBook(*outPath, book); err != nil {
		return err
	}
	seat0, seat1, _ := book.SeatCounts()
	fmt.Fprintf(out, "%s: %d positions of %s (%d with seat 0 better off, %d with seat 1), %d plies, judged by %s, in %.0fs\nbook %s\n",
		*outPath, len(book.Lines), v.Name, seat0, seat1, *plies, c.Name(), time.Since(start).Seconds(), book.ID())
	return nil
}

// loadBook reads the opening book of flag --book for variant v; nil when
// path is "".
func loadBook(path string, v *engine.Variant) (*arena.Book, error) {
	if path == "" {
		return nil, nil
	}
	b, err := arena.ReadBook(path, v)
	if err != nil {
		return nil, fmt.Errorf("--book: %w", err)
	}
	return b, nil
}

// openingsOf says where a measurement's pairs open: "from random 4-ply
// openings" or "from the book FILE".
func openingsOf(plies int, book string) string {
	if book != "" {
		return "from the book " + book
	}
	return fmt.Sprintf("from random %d-ply openings", plies)
}
