package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/runconfig"
)

func runArena(args []string, out io.Writer) (err error) {
	fs := newFlags("arena", "PLAYER PLAYER... [--variant V] [--games N | --pairs N] [--run DIR] [--seed S] [--gauntlet]",
		[]string{
			"millzero arena random alphabeta:2 alphabeta:4 --games 20",
			"millzero arena alphabeta:4 random --pairs 50 --run runs/nine",
			"millzero arena model:runs/nine/models/gen-000007.safetensors@200 alphabeta:4 random --gauntlet --run runs/nine",
			"millzero arena \"engine:/usr/local/bin/sanmill\" alphabeta:4 --movetime 500ms --games 10",
			"millzero arena model:runs/nine/models/gen-000007.safetensors alphabeta:4 --tablebase tables/nine",
			"millzero arena model:default@400 model:default@200 --pairs 100 --book book.txt   # pairs from an opening book (millzero openings build)",
		}, out)
	variant := fs.String("variant", "nine", "variant name (millzero variants lists them) or variant file")
	games := fs.Int("games", 0, "games per match (rounded up to whole pairs, or rounds of one game per seat); overrides --pairs")
	pairs := fs.Int("pairs", 10, "openings per match, each played once per seating: twice with seats swapped (3-4 players: each player against copies of the other, in every seat)")
	runPath := fs.String("run", "", "run directory or store URL: every game is stored as Parquet under RUN/arena (none without it)")
	cache := cacheFlag(fs)
	all := fs.Bool("all", false, "rate every game under RUN/arena, not only this invocation's")
	seed := fs.Uint64("seed", 1, "seed of the openings and of the players' randomness")
	openings := fs.Int("opening-plies", arena.DefaultOpeningPlies, "random legal actions that open each pair")
	bookPath := fs.String("book", "", "an opening book (millzero openings build): each pair opens from one of its positions, chosen by --seed, instead of random actions")
	workers := fs.Int("workers", 0, "games played at once (0: one per core)")
	sims := fs.Int("sims", arena.DefaultVisits, "search visits per move of model: and rollout: players without @N")
	moveTime := fs.Duration("movetime", time.Second, "time per move of engine: players (and of search players when --search-time)")
	searchTime := fs.Bool("search-time", false, "search players use --movetime per move instead of a fixed number of visits (visits then cap it)")
	gauntlet := fs.Bool("gauntlet", false, "the first player meets each of the others (default: every pair meets)")
	tables := fs.String("tablebase", "", "endgame tables of the variant (millzero tablebase build, or auto: those a run built in the user cache): model:, rollout: and classic players play table positions perfectly (their names get +tb)")
	fs.Usage = wrapUsage(fs.Usage, out)
	specs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(specs) < 2 {
		fs.Usage()
		return fmt.Errorf("want two players or more, got %d", len(specs))
	}
	v, err := engine.LoadNameOrFile(*variant)
	if err != nil {
		return err
	}
	if *games < 0 || *pairs < 1 {
		return fmt.Errorf("--games %d / --pairs %d: want a positive number of games", *games, *pairs)
	}
	if *games > 0 {
		*pairs = (*games + v.Players - 1) / v.Players
	}
	if *all && *runPath == "" {
		return fmt.Errorf("--all needs --run")
	}
	tset, err := openTables(v, *tables)
	if err != nil {
		return err
	}
	prover := runconfig.Prover(tset)
	book, err := loadBook(*bookPath, v)
	if err != nil {
		return err
	}
	ctx, stop := stopContext()
	defer stop()
	dir := ""
	if *runPath != "" {
		rs, err := run.OpenRecords(ctx, *runPath, *cache)
		if err != nil {
			return err
		}
		defer rs.Close()
		if err := rs.CheckVariant(ctx, v); err != nil {
			return err
		}
		defer func() {
			// What was played goes up, also after an interruption.
			if perr := rs.Push(context.WithoutCancel(ctx)); perr != nil && err == nil {
				err = fmt.Errorf("--run %s: %w", *runPath, perr)
			}
		}()
		dir = rs.Dir()
		if *all {
			if err := rs.Pull(ctx); err != nil {
				return err
			}
		}
	}
	set := arena.DefaultSpecSettings()
	set.Simulations = *sims
	set.MoveTime = *moveTime
	players, err := arena.ParsePlayers(specs, v, set, *searchTime, prover)
	if err != nil {
		return err
	}
	t := arena.Tournament{Variant: v, Players: players, Gauntlet: *gauntlet, Pairs: *pairs, OpeningPlies: *openings, Book: book,
		Seed: *seed, Workers: *workers, Dir: dir}
	matches, total, done := t.Matches(), t.Games(), 0
	start := time.Now()
	prog := progress.New(out) // on a terminal, a bar of the games with an ETA below the lines
	defer prog.Close()
	lines := prog.Writer()
	recs, err := t.Run(ctx, func(k int, mp arena.Pairing) {
		prog.Budget(progress.Budget{Start: start, Done: done, Total: total, Unit: "games"})
		fmt.Fprintf(lines, "match %d/%d: %s vs %s, %d pair(s) of %s\n", k+1, len(matches), mp.A.Name(), mp.B.Name(), *pairs, v.Name)
	}, func(r *arena.Record) {
		done++
		prog.Budget(progress.Budget{Start: start, Done: done, Total: total, Unit: "games"})
		fmt.Fprintf(lines, "  [%d/%d] pair %d game %d: %s  %-7s  %s, %d plies\n",
			done, total, r.Pair+1, r.Game+1, r.Lineup(), r.ResultString(), r.Reason, r.Plies)
	})
	prog.Close()
	if err != nil {
		if len(recs) > 0 {
			fmt.Fprintf(out, "stopped after %d games: %v\n", len(recs), err)
			arena.WriteRatings(out, recs)
			arena.WriteUnfinished(out, recs)
		}
		return err
	}
	fmt.Fprintf(out, "%d games in %.1fs\n", len(recs), time.Since(start).Seconds())
	if dir != "" {
		fmt.Fprintf(out, "games stored under %s\n", dir)
	}
	if *all {
		allRecs, err := arena.ReadRecordDir(dir)
		if err != nil {
			return err
		}
		recs = allRecs
		fmt.Fprintf(out, "rating all %d games under %s\n", len(recs), dir)
	}
	if err := arena.WriteRatings(out, recs); err != nil {
		return err
	}
	arena.WriteUnfinished(out, recs)
	if v.Players == 2 {
		arena.WritePairs(out, recs, matches)
	}
	return nil
}

// wrapUsage appends the list of player specs to a command's usage.
func wrapUsage(usage func(), out io.Writer) func() {
	return func() {
		usage()
		fmt.Fprintf(out, "\nPlayers:\n  %s\n", strings.ReplaceAll(arena.SpecHelp, "\n", "\n  "))
	}
}
