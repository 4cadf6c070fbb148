package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
)

// benchSpeed is the speed measurements of bench WHAT, which share the
// bench command's flags.
func benchSpeed() []string { return []string{"engine", "mcts", "model", "selfplay"} }

// benchStrength is the strength measurements under bench, in the order
// help lists them: commands of their own, each with its flags.
func benchStrength() []string {
	return []string{"strength", "progress", "targets", "fit", "diagnose", "openings"}
}

// benchSubs maps each of benchStrength to its command.
func benchSubs() map[string]func([]string, io.Writer) error {
	return map[string]func([]string, io.Writer) error{"strength": runBenchStrength,
		"progress": runBenchProgress, "targets": runBenchTargets, "fit": runBenchFit, "diagnose": runBenchDiagnose, "openings": runBenchOpenings}
}

// benchSummary is bench's line in millzero help: every measurement.
func benchSummary() string {
	return "measure speed (" + strings.Join(benchSpeed(), ", ") + ") and strength (" + strings.Join(benchStrength(), ", ") + ")"
}

// benchWhat is every measurement bench takes, for its usage and errors.
func benchWhat() string {
	all := append(benchSpeed(), benchStrength()...)
	return strings.Join(all[:len(all)-1], ", ") + " or " + all[len(all)-1]
}

func runBench(args []string, out io.Writer) (err error) {
	subs := benchSubs()
	if len(args) > 0 && subs[args[0]] != nil {
		return subs[args[0]](args[1:], out)
	}
	fs := newFlags("bench", "WHAT [flags]   (WHAT: "+benchWhat()+")", []string{
		"millzero bench engine",
		"millzero bench mcts --variant moulin-rouge",
		"millzero bench model --batches 1,16,64,256",
		"millzero bench selfplay --sims 40 --seconds 60",
		"millzero bench selfplay --cpuprofile sp.pprof && go tool pprof -top bin/millzero sp.pprof",
		"millzero bench selfplay --features 3 --search minimax_weight=0.25   # what a search setting costs self-play",
		"millzero bench strength --run runs/nine   (against the classical engine at 0.1, 0.3 and 1 s a move; --help for its flags)",
		"millzero bench progress --run runs/nine   (the run's models against each other; --help for its flags)",
		"millzero bench targets --run runs/nine    (how self-play's policy targets vary between searches; --help for its flags)",
		"millzero bench fit --run runs/nine        (fresh networks of several sizes fitted to the run's games, their held-out losses; --help for its flags)",
		"millzero bench diagnose --games DIR       (where a player's recorded games lose value against a deep search; --help for its flags)",
		"millzero bench openings --run runs/nine   (how varied the run's own games are in the opening; --help for its flags)",
	}, out)
	variant := fs.String("variant", "nine", "variant to measure (engine always measures nine: its start, as the reference engine did, and a moving-phase position)")
	repeat := fs.Int("repeat", 3, "engine: measure this many times and report the best and the median")
	seconds := fs.Float64("seconds", 30, "model, selfplay: measure for this long (model: per batch size)")
	sims := fs.Int("sims", 0, "mcts, selfplay: simulations per move (0: the default settings')")
	search := fs.String("search", "", "selfplay: search settings laid over self-play's defaults, comma separated, named as in a run config (minimax_weight=0.25)")
	batches := fs.String("batches", "1,16,64,256", "model: batch sizes to measure")
	width := fs.Int("width", model.DefaultConfig().Width, "model, selfplay: network width")
	blocks := fs.Int("blocks", model.DefaultConfig().Blocks, "model, selfplay: residual blocks")
	features := fs.Int("features", model.EncoderBoard, "model, selfplay: the feature encoder, as model.features (1 the board; 2 and the mills; 3 and the tactics a move ahead)")
	kind := fs.String("kind", model.DefaultConfig().Kind, "model, selfplay: the network's structure, as model.kind (mlp, or graph: --width channels a point)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the measurement to FILE (go tool pprof)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one of: %s", benchWhat())
	}
	if *repeat < 1 || *seconds <= 0 || *sims < 0 {
		return fmt.Errorf("--repeat %d, --seconds %v, --sims %d: want positive values", *repeat, *seconds, *sims)
	}
	if *sims > 0 {
		if err := checkVisits("sims", *sims); err != nil {
			return err
		}
	}
	v, err := engine.Load(*variant)
	if err != nil {
		return err
	}
	mc := model.Config{Width: *width, Blocks: *blocks, Features: *features, Kind: *kind}
	if err := mc.Validate(); err != nil {
		return err
	}
	dur := time.Duration(*seconds * float64(time.Second))
	endProfile, err := cpuProfile(*profile)
	if err != nil {
		return err
	}
	defer endProfile(&err)
	switch rest[0] {
	case "engine":
		err = bench.Engine(out, *repeat)
	case "mcts":
		err = bench.MCTS(out, v, *sims)
	case "model":
		bs, err := listFlag("batches", *batches, "a batch size", func(b int) bool { return b >= 1 })
		if err != nil {
			return err
		}
		err = bench.Model(out, v, mc, bs, dur)
	case "selfplay":
		set := selfplay.DefaultSettingsFor(v.Players)
		if *sims > 0 {
			set.Search.Simulations = *sims
			set.FastSimulations = min(set.FastSimulations, *sims)
		}
		if *search != "" {
			if set.Search, err = arena.SearchOptions(set.Search, strings.Split(*search, ",")); err != nil {
				return fmt.Errorf("--search: %w", err)
			}
			fmt.Fprintf(out, "selfplay: search settings laid over the defaults: %s\n", *search)
		}
		err = bench.Selfplay(out, v, mc, set, dur)
	default:
		return fmt.Errorf("bench %q: want one of: %s", rest[0], benchWhat())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "peak resident size: %s\n", bench.PeakRSS())
	return nil
}
