package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/arena/classic/tune"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
	"github.com/millzero/millzero/internal/progress"
)

// runClassic is `millzero classic WHAT`: the classical engine's tools.
func runClassic(args []string, out io.Writer) error {
	if len(args) > 0 && args[0] == "tune" {
		return runClassicTune(args[1:], out)
	}
	fs := newFlags("classic", "tune [flags]", []string{
		"millzero classic tune --games runs/nine/games --out nine.json   (fit the evaluation's weights to games; --help for its flags)",
	}, out)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	fs.Usage()
	return fmt.Errorf("want: tune")
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// runClassicTune is `millzero classic tune`: the evaluation's weights
// fitted to the outcomes of games and the tables' values.
func runClassicTune(args []string, out io.Writer) error {
	fs := newFlags("classic tune", "--games DIR [--games DIR]... --out FILE [flags]", []string{
		"millzero classic tune --games runs/nine/games --out nine.json",
		"millzero classic tune --games runs/nine/arena --games runs/nine/games --tables auto --out nine.json   (table positions valued exactly)",
		"millzero classic tune --variant twelve --games runs/twelve/games --grain 10 --out twelve.json",
		"millzero arena classic@1s,weights=nine.json classic@1s --pairs 100   (play the weights against the default)",
	}, out)
	var games stringsFlag
	fs.Var(&games, "games", "games to fit: self-play shards (RUN/games), arena records (RUN/arena), a Parquet file or a directory holding them; repeatable")
	variant := fs.String("variant", "nine", "variant name (millzero variants lists them) or variant file")
	outPath := fs.String("out", "", "write the weights to FILE (play them as classic@1s,weights=FILE)")
	tables := fs.String("tables", "", "endgame tables of the variant (millzero tablebase build, or auto: those in the user cache): a game position they hold is fitted to their exact value, not the game's result")
	tablePos := fs.Int("table-positions", 0, "with --tables: also this many random positions of each material, valued exactly")
	start := fs.String("start", "", "weights the fit is measured against, and whose grain it keeps: a named set ("+strings.Join(classic.NamedWeights(), ", ")+") or a file (default: the variant's default)")
	grain := fs.Int("grain", 0, "round the evaluation's positional part to this many hundredths of a piece in play (0: the --start weights' grain)")
	heldOut := fs.Float64("held-out", 0.1, "the fraction of games (and table positions) held out to measure the fit")
	maxPos := fs.Int("max-positions", 3_000_000, "fit a uniform sample of at most this many game positions (0: all)")
	prior := fs.Float64("prior", tune.DefaultPrior, "how many positions the --start weights count for: the fit's pull towards them")
	seed := fs.Uint64("seed", 1, "seed of the samples")
	workers := fs.Int("workers", 0, "goroutines of the fit (0: one per core)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || len(games) == 0 || *outPath == "" {
		fs.Usage()
		return fmt.Errorf("give --games and --out, and no other arguments (got %q)", rest)
	}
	if *grain < 0 || *grain > classic.MaxGrain || *tablePos < 0 || *maxPos < 0 || *prior < 0 {
		return fmt.Errorf("--grain %d, --table-positions %d, --max-positions %d, --prior %v: want a grain of 0..%d and no negative value",
			*grain, *tablePos, *maxPos, *prior, classic.MaxGrain)
	}
	v, err := engine.LoadNameOrFile(*variant)
	if err != nil {
		return err
	}
	startW := classic.DefaultWeights(v)
	if *start != "" {
		if startW, err = classic.LoadWeights(*start); err != nil {
			return fmt.Errorf("--start: %w", err)
		}
	}
	var set *tablebase.Set
	if *tables != "" {
		if set, err = openTables(v, *tables); err != nil {
			return err
		}
	}
	prog, began := progress.New(os.Stderr), time.Now()
	defer prog.Close()
	logf := func(format string, args ...any) {
		prog.Update("%s, %.0fs", fmt.Sprintf(format, args...), time.Since(began).Seconds())
	}
	data, err := tune.Collect{Variant: v, Games: games, Tables: set, TablePositions: *tablePos, HeldOut: *heldOut,
		MaxPositions: *maxPos, Seed: *seed, Log: logf}.Run()
	if err != nil {
		return err
	}
	res, err := tune.Fit{Start: startW, Grain: *grain, Prior: *prior, Workers: *workers, Log: logf}.Run(data)
	if err != nil {
		return err
	}
	prog.Close()
	if err := classic.WriteWeights(*outPath, res.Weights); err != nil {
		return err
	}
	writeTune(out, data, res, *outPath)
	return nil
}

// writeTune prints what a fit read, its held-out losses and its weights.
func writeTune(out io.Writer, d *tune.Data, res *tune.Result, path string) {
	w := res.Weights
	fmt.Fprintf(out, "%s: %d files, %d games, %d positions (%d owing a removal and %d with no move left out); fitted %d, %d held out\n",
		d.Variant.Name, d.Files, d.Games, d.Positions, d.Skipped.Removing, d.Skipped.NoMove, w.Fit.Positions, w.Fit.HeldOut)
	if w.Fit.Rescored+w.Fit.TablePos > 0 {
		fmt.Fprintf(out, "the tables: %d game positions valued exactly, %d random table positions\n", w.Fit.Rescored, w.Fit.TablePos)
	}
	if s := d.Skipped; s.OtherVariant+s.Unfinished > 0 {
		fmt.Fprintf(out, "games left out: %d of another variant, %d unfinished or forfeited\n", s.OtherVariant, s.Unfinished)
	}
	fmt.Fprintf(out, "\nheld-out log loss of the expected score (nats; lower is better):\n")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "positions\t\tfitted\t%s\tconstant\t\n", w.Fit.Start)
	for _, g := range res.Groups {
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.4f\t%.4f\t\n", g.Group, g.Positions, g.Loss, g.Start, g.Constant)
	}
	tw.Flush()
	fmt.Fprintf(out, "\nweights, hundredths of a piece (grain %d; a logistic unit is %.0f):\n", w.Grain, w.Fit.Scale)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "feature\t")
	for ph := range classic.NumPhases {
		fmt.Fprintf(tw, "%s\t", ph)
	}
	fmt.Fprintln(tw)
	for f := range classic.NumFeatures {
		fmt.Fprintf(tw, "%s\t", f)
		for ph := range classic.NumPhases {
			fmt.Fprintf(tw, "%d\t", w.W[ph][f])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(out, "\nwrote %s: play it as classic@1s,weights=%s\n", path, path)
}
