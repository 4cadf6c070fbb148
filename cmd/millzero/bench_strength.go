package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/internal/progress"
	"github.com/millzero/millzero/play"
	"github.com/millzero/millzero/runconfig"
)

// runBenchStrength is `millzero bench strength`: a model with a fixed
// search against the classical yardsticks (the classical engine at a few
// times a move, and the alpha-beta depths asked for), the same openings
// for every model measured.
func runBenchStrength(args []string, out io.Writer) error {
	fs := newFlags("bench strength", "--run DIR | --model FILE [flags]", []string{
		"millzero bench strength --run runs/nine",
		"millzero bench strength --model runs/nine/models/gen-000117.safetensors --classic classic@300ms --pairs 20",
		"millzero bench strength --run runs/nine --classic none --depths 2,4,6,8   # the alpha-beta yardsticks of older figures",
		"millzero bench strength --run runs/nine --json > strength.json",
		"millzero bench strength --run runs/nine --classic classic@1s --pairs 100 --games runs/nine/bench/classic-1s   # run again after a stop to go on",
		"millzero bench strength --run runs/nine --tablebase tables/nine   # also count the endgames it threw away",
		"millzero bench strength --run runs/nine --search root=puct,c_puct=2   # another search at the same visits",
		"millzero bench strength --run runs/nine --classic classic@1s --pairs 100 --book book.txt   # pairs from an opening book",
	}, out)
	pc := play.PlayerConfig{}
	fs.StringVar(&pc.Model, "model", "", "checkpoint file of the model measured, or default: the built-in model")
	fs.StringVar(&pc.Run, "run", "", "run directory: measure its best generation")
	sims := fs.Int("sims", arena.DefaultVisits, "search visits per model move (fresh tree settings of the arena)")
	search := fs.String("search", "", "search settings laid over a model player's (a Gumbel root), comma separated, named as in a run config (root=puct or min_q_spread=0: the searches of older figures in the experiment record)")
	classicFlag := fs.String("classic", bench.DefaultClassic, "classical-engine players met, comma separated: classic@TIME (a move's time) or classic:N (N plies), each with any ,weights=W; none for no classical engine")
	depths := fs.String("depths", "", "alpha-beta depths met, comma separated (2,4,6,8: the yardsticks of older figures)")
	pairs := fs.Int("pairs", 50, "pairs of games against each depth (one random opening per pair, seats swapped)")
	openings := fs.Int("opening-plies", arena.DefaultOpeningPlies, "random legal actions that open each pair")
	bookPath := fs.String("book", "", "an opening book (millzero openings build): each pair opens from one of its positions, chosen by --seed, instead of random actions")
	seed := fs.Uint64("seed", 1, "seed of the openings: keep it to compare models on the same positions")
	workers := fs.Int("workers", 0, "games played at once (0: one per core)")
	tables := fs.String("tablebase", "", "endgame tables of the variant (millzero tablebase build, or auto: those a run built in the user cache): count the lost games in which the model had reached a table position it held (the model plays without them)")
	asJSON := fs.Bool("json", false, "print the rows as JSON instead of a table")
	gamesDir := fs.String("games", "", "directory to keep every game in, as Parquet files of arena records written every five minutes as games finish (as millzero arena --run stores them; DuckDB reads them), none without it; the games found there of the same players, search, seed and openings are not played again, so a benchmark stopped early goes on where it stopped (one directory for each model measured: a model is known by its generation's name)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	if pc.Model == "" && pc.Run == "" {
		fs.Usage()
		return fmt.Errorf("give --run or --model")
	}
	if err := checkVisits("sims", *sims); err != nil {
		return err
	}
	if *pairs < 1 || *openings < 0 || *workers < 0 {
		return fmt.Errorf("--pairs %d, --opening-plies %d, --workers %d: want positive counts", *pairs, *openings, *workers)
	}
	opponents, err := bench.ClassicYardsticks(*classicFlag)
	if err != nil {
		return fmt.Errorf("--classic %q: %w", *classicFlag, err)
	}
	byDepth, err := bench.DepthYardsticks(*depths)
	if err != nil {
		return fmt.Errorf("--depths %q: %w", *depths, err)
	}
	opponents = append(opponents, byDepth...)
	if len(opponents) == 0 {
		return fmt.Errorf("--classic none and no --depths: no yardstick to meet")
	}
	src, err := play.LoadSource(pc)
	if err != nil {
		return err
	}
	if src.Checkpoint == nil {
		return fmt.Errorf("%s: the strength benchmark measures a model", src.Desc)
	}
	v, err := src.VariantFor("")
	if err != nil {
		return err
	}
	if v.Players != 2 {
		return fmt.Errorf("variant %s has %d players: the strength benchmark is for two-player variants (arena plays 3-4)", v.Name, v.Players)
	}
	set, err := openTables(v, *tables)
	if err != nil {
		return err
	}
	prover := runconfig.Prover(set)
	book, err := loadBook(*bookPath, v)
	if err != nil {
		return err
	}
	var opts []string
	if *search != "" {
		opts = strings.Split(*search, ",")
	}
	player, err := bench.StrengthPlayer(v, src.Checkpoint, *sims, opts)
	if err != nil {
		return fmt.Errorf("--search: %w", err)
	}
	s := arena.Strength{Variant: v, Player: player, Opponents: opponents, Pairs: *pairs,
		OpeningPlies: *openings, Book: book, Seed: *seed, Workers: *workers, Dir: *gamesDir, Tables: prover}

	ctx, stop := stopContext()
	defer stop()
	names := make([]string, len(opponents))
	for i, o := range opponents {
		names[i] = o.Name()
	}
	fmt.Fprintf(os.Stderr, "strength: %s, %d visits a move, against %s, %d pairs each %s, %s\n",
		src.Desc, *sims, strings.Join(names, ", "), *pairs, openingsOf(*openings, *bookPath), v.Name)
	prog, start := progress.New(os.Stderr), time.Now()
	defer prog.Close()
	total := 2 * *pairs * len(opponents)
	played, found := 0, 0 // games played now, and found in --games
	rows, err := s.Run(ctx, func(opp, n int) {
		found += n
		if n > 0 {
			prog.Done("strength: %d games against %s found in %s", n, opponents[opp].Name(), *gamesDir)
		}
	}, func(opp int, r *arena.Record) {
		played++
		// The ETA counts only the games played now.
		prog.Budget(progress.Budget{Start: start, Done: played, Total: total - found, Unit: "games"})
		prog.Update("strength: %s, %d of %d games in all, %.0fs", opponents[opp].Name(), played+found, total, time.Since(start).Seconds())
	})
	prog.Done("strength: %d games played in %.0fs", played, time.Since(start).Seconds())
	prog.Close()
	if len(rows) > 0 {
		if *asJSON {
			if err := writeJSON(out, rows); err != nil {
				return err
			}
		} else {
			arena.WriteStrength(out, player.Name(), rows)
		}
	}
	if ctx.Err() != nil {
		switch {
		case len(rows) == 0:
			fmt.Fprintf(out, "stopped before a game finished\n")
		case *gamesDir != "":
			fmt.Fprintf(out, "\nstopped: the rows above are the games finished; they are kept in %s, and the same command plays only the games missing\n", *gamesDir)
		default:
			fmt.Fprintf(out, "\nstopped: the rows above are the games finished (none kept: --games DIR keeps them, and the same command then goes on)\n")
		}
		return exitStatus(130) // interrupted
	}
	return err
}
