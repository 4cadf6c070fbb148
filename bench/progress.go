package bench

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/builtin"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/store"
)

// generationsOf is the generations of hours (ModelHours), oldest first.
func generationsOf(hours map[int]float64) ([]int, error) {
	if len(hours) == 0 {
		return nil, errors.New("no models to choose from")
	}
	gens := slices.Collect(maps.Keys(hours))
	slices.Sort(gens)
	return gens, nil
}

// PickModels chooses models of a run from their hours (ModelHours): with
// every > 0 the model nearest each multiple of every hours, and the newest
// (a multiple within a quarter step of the newest's hours is left to it);
// else n models spread evenly over the run, the newest the last (the first
// at 1/n of the run's hours). Oldest first.
func PickModels(hours map[int]float64, n int, every float64) ([]int, error) {
	gens, err := generationsOf(hours)
	if err != nil {
		return nil, err
	}
	newest := gens[len(gens)-1]
	total := hours[newest]
	var targets []float64
	switch {
	case every > 0:
		for h := every; h < total-every/4; h += every {
			targets = append(targets, h)
		}
	case n >= 2:
		for k := 1; k < n; k++ {
			targets = append(targets, total*float64(k)/float64(n))
		}
	default:
		return nil, fmt.Errorf("choose %d models every %v hours: want two models or more, or every > 0", n, every)
	}
	out := nearestModels(gens, hours, targets, newest)
	out = append(out, newest)
	if len(out) < 2 {
		return nil, fmt.Errorf("only one model to choose, the newest (generation %d at %.2f hours): want two; choose more models or a shorter step", newest, total)
	}
	return out, nil
}

// PickHours chooses the models of a run nearest each of the run hours at
// (ascending, as a doubling 0.25,0.5,1,2,4,8), from their hours
// (ModelHours); hours past the run's end name its newest model, and a
// model nearest several of them is met once. Oldest first.
func PickHours(hours map[int]float64, at []float64) ([]int, error) {
	for i, h := range at {
		if !(h > 0) || (i > 0 && h <= at[i-1]) {
			return nil, fmt.Errorf("hours %v: want positive hours, ascending, each once", at)
		}
	}
	gens, err := generationsOf(hours)
	if err != nil {
		return nil, err
	}
	out := nearestModels(gens, hours, at, -1)
	if len(out) < 2 {
		newest := gens[len(gens)-1]
		return nil, fmt.Errorf("hours %v name %d model of a run of %.2f hours (generation %d its newest): want two; name earlier hours", at, len(out), hours[newest], newest)
	}
	return out, nil
}

// nearestModels is, of gens (sorted), the model nearest each of the run
// hours targets (ascending), each once, never skip (-1: none).
func nearestModels(gens []int, hours map[int]float64, targets []float64, skip int) []int {
	var out []int
	for _, t := range targets {
		best := gens[0]
		for _, g := range gens {
			if math.Abs(hours[g]-t) < math.Abs(hours[best]-t) {
				best = g
			}
		}
		if best != skip && (len(out) == 0 || best > out[len(out)-1]) {
			out = append(out, best)
		}
	}
	return out
}

// ProgressChoice says which models of a run a ProgressBench meets: the
// Generations given (oldest first), else those nearest the Hours given
// (PickHours), else PickModels(Models, EveryHours).
type ProgressChoice struct {
	Generations []int
	Hours       []float64
	Models      int
	EveryHours  float64
}

// NewProgressBench is the ProgressBench of the run at loc (a directory or
// a store URL, whose run.yaml, metrics and chosen models are brought into
// the cache first) over the models c chooses, with the run's variant. Out
// is RUN/bench/progress of the local directory; the caller sets the
// search and match settings.
func NewProgressBench(ctx context.Context, loc, cache string, c ProgressChoice) (*ProgressBench, error) {
	dir, err := store.Fetch(ctx, loc, cache, store.GenerationsTable)
	if err != nil {
		return nil, err
	}
	hours, err := run.ModelHours(dir)
	if err != nil {
		return nil, err
	}
	chosen := c.Generations
	for i, g := range chosen {
		if _, ok := hours[g]; !ok {
			return nil, fmt.Errorf("%q is not a generation of run %s (it has 1..%d)", strconv.Itoa(g), loc, len(hours))
		}
		if i > 0 && g <= chosen[i-1] {
			return nil, fmt.Errorf("generations %v: want them oldest first, each once", chosen)
		}
	}
	switch {
	case len(chosen) > 0:
	case len(c.Hours) > 0:
		if chosen, err = PickHours(hours, c.Hours); err != nil {
			return nil, fmt.Errorf("run %s: %w", loc, err)
		}
	default:
		if chosen, err = PickModels(hours, c.Models, c.EveryHours); err != nil {
			return nil, fmt.Errorf("run %s: %w", loc, err)
		}
	}
	names := make([]string, len(chosen))
	for i, g := range chosen {
		names[i] = store.CheckpointObject(g)
	}
	if dir, err = store.Fetch(ctx, loc, cache, names...); err != nil {
		return nil, err
	}
	v, err := run.VariantOf(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", loc, err)
	}
	return &ProgressBench{Dir: dir, Variant: v, Generations: chosen, Out: filepath.Join(string(dir), "bench", "progress")}, nil
}

// ProgressBench measures what a run's hours bought where the fixed
// yardsticks no longer can: its models, chosen over the run, play a round
// robin against each other (arena.RoundRobin) at a fixed search budget from
// shared seeded openings, and one Elo fit rates them against the oldest.
type ProgressBench struct {
	Dir          store.Dir       // the run
	Variant      *engine.Variant // the run's; nil: Run loads it from the run's config
	Generations  []int           // the models met, oldest first (PickModels chooses them)
	Simulations  int             // visits a move
	Pairs        int             // pairs of games a match
	OpeningPlies int             // random legal actions that open each pair
	Seed         uint64          // the openings' seed
	Workers      int             // games at once; 0 one per core
	Tables       mcts.Prover     // nil: the models play every position with their network; else table positions perfectly
	Out          string          // the games (kept and reused), progress.csv and progress.png; "" keeps nothing

	// Reference, when not nil, is a frozen model met by every model of
	// the run, and the anchor of the Elo fit (0) instead of the first
	// model: a scale that neither saturates nor moves with the run, on
	// which the hour's and the night's curves can be laid together.
	Reference     *model.Checkpoint
	ReferenceName string // its player name, "reference" when empty

	// With is the directories of earlier measurements (their
	// progress.csv) whose lines progress.png draws beside this run's: the
	// seeds of one config, or the hour and the night, on one figure. Their
	// Elo is over their own anchor; give them all the same Reference.
	With []string
}

// Players is the number of players Run meets: the models, and the
// reference when there is one.
func (b *ProgressBench) Players() int {
	if b.Reference != nil {
		return len(b.Generations) + 1
	}
	return len(b.Generations)
}

// Matches is the number of matches Run plays or finds: one between every
// two of its players.
func (b *ProgressBench) Matches() int {
	n := b.Players()
	return n * (n - 1) / 2
}

// ProgressRow is one model's rating.
type ProgressRow struct {
	Model      string             `json:"model"`
	Generation int                `json:"generation"`
	Hours      float64            `json:"hours"`
	Games      int                `json:"games"`
	Score      float64            `json:"score"` // its mean score over all its games
	Elo        float64            `json:"elo"`   // over the first model, which is 0
	Low        float64            `json:"elo_low"`
	High       float64            `json:"elo_high"`
	Previous   *arena.StrengthRow `json:"previous,omitempty"` // its match against the model before it (interval from the pairs)
}

// Run loads the models, plays the round robin (onMatch and onGame as
// arena.RoundRobin.Run's) and rates them; with Out it writes
// progress.csv and progress.png there.
func (b *ProgressBench) Run(ctx context.Context, onMatch func(arena.RoundRobinMatch), onGame func(*arena.Record)) ([]ProgressRow, error) {
	if len(b.Generations) < 2 {
		return nil, fmt.Errorf("progress of run %s: want two models or more, got %d", b.Dir, len(b.Generations))
	}
	var with []run.HoursLine // read before the matches, so that a bad one is said at once
	for _, dir := range b.With {
		l, err := ReadProgress(dir)
		if err != nil {
			return nil, err
		}
		with = append(with, l)
	}
	v := b.Variant
	if v == nil {
		var err error
		if v, err = run.VariantOf(b.Dir); err != nil {
			return nil, fmt.Errorf("progress of run %s: %w", b.Dir, err)
		}
	}
	hours, err := run.ModelHours(b.Dir)
	if err != nil {
		return nil, err
	}
	players := make([]arena.Player, len(b.Generations))
	names := make([]string, len(b.Generations))
	for i, g := range b.Generations {
		if _, ok := hours[g]; !ok {
			return nil, fmt.Errorf("progress of run %s: generation %d: no such model in metrics/generations.csv", b.Dir, g)
		}
		ck, err := model.LoadCheckpoint(b.Dir.Model(g))
		if err != nil {
			return nil, fmt.Errorf("progress of run %s: %w", b.Dir, err)
		}
		if err := ck.CheckVariant(v); err != nil {
			return nil, fmt.Errorf("progress of run %s: %s: %w", b.Dir, store.ModelName(g), err)
		}
		sp := arena.NewSearchPlayer(store.ModelName(g)+"@"+strconv.Itoa(b.Simulations), arena.ModelSettings(v, b.Simulations),
			arena.Evaluation{Net: ck.Net, RandomSymmetry: true})
		if b.Tables != nil {
			sp.Prover, sp.Label = b.Tables, sp.Label+"+tb"
		}
		players[i], names[i] = sp, sp.Name()
	}
	anchor := names[0]
	if b.Reference != nil {
		if err := b.Reference.CheckVariant(v); err != nil {
			return nil, fmt.Errorf("progress of run %s: the reference: %w", b.Dir, err)
		}
		anchor = cmp.Or(b.ReferenceName, "reference") + "@" + strconv.Itoa(b.Simulations)
		ref := arena.NewSearchPlayer(anchor, arena.ModelSettings(v, b.Simulations),
			arena.Evaluation{Net: b.Reference.Net, RandomSymmetry: true})
		if b.Tables != nil {
			ref.Prover, ref.Label = b.Tables, ref.Label+"+tb"
		}
		anchor = ref.Name()
		players = append(players, ref)
	}
	rr := arena.RoundRobin{Variant: v, Players: players, Pairs: b.Pairs, OpeningPlies: b.OpeningPlies,
		Seed: b.Seed, Workers: b.Workers, Dir: b.Out}
	recs, err := rr.Run(ctx, onMatch, onGame)
	if err != nil {
		return nil, err
	}
	ratings, err := arena.FitElo(recs, arena.EloSettings{Anchor: anchor, VirtualDraws: 1})
	if err != nil {
		return nil, fmt.Errorf("progress of run %s: %w", b.Dir, err)
	}
	byName := map[string]arena.Rating{}
	for _, r := range ratings {
		byName[r.Name] = r
	}
	rows := make([]ProgressRow, len(names))
	for i, name := range names {
		r := byName[name]
		rows[i] = ProgressRow{Model: store.ModelName(b.Generations[i]), Generation: b.Generations[i], Hours: hours[b.Generations[i]],
			Games: r.Games, Score: r.Score / float64(max(r.Games, 1)), Elo: r.Elo, Low: r.Low, High: r.High}
		if i > 0 {
			prev := arena.StrengthOf(name, names[i-1], recs)
			rows[i].Previous = &prev
		}
	}
	if b.Out != "" {
		if err := b.write(rows, v, with); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// write puts rows in Out as progress.csv and progress.png, the figure with
// the lines of earlier measurements (With) beside this run's.
func (b *ProgressBench) write(rows []ProgressRow, v *engine.Variant, with []run.HoursLine) error {
	var sb strings.Builder
	sb.WriteString(progressHeader + "\n")
	anchor := rows[0].Model
	if b.Reference != nil {
		anchor = cmp.Or(b.ReferenceName, "reference")
	}
	name := filepath.Base(string(b.Dir))
	var hours, elo, low, high []float64
	for _, r := range rows {
		fmt.Fprintf(&sb, "%s,%s,%d,%.4f,%d,%.4f,%.1f,%.1f,%.1f", name, r.Model, r.Generation, r.Hours, r.Games, r.Score, r.Elo, r.Low, r.High)
		if p := r.Previous; p != nil {
			fmt.Fprintf(&sb, ",%.4f,%.1f,%.1f,%.1f\n", p.Score, p.Elo, p.Low, p.High)
		} else {
			sb.WriteString(",,,,\n")
		}
		hours, elo = append(hours, r.Hours), append(elo, r.Elo)
		low, high = append(low, r.Low), append(high, r.High)
	}
	if err := run.SaveFile(filepath.Join(b.Out, "progress.csv"), []byte(sb.String())); err != nil {
		return err
	}
	title := fmt.Sprintf("Progress of %s (%s, %d visits, %d pairs a match, 95%% intervals)", name, v.Name, b.Simulations, b.Pairs)
	lines := append([]run.HoursLine{{Name: name, Hours: hours, Y: elo, Low: low, High: high}}, with...)
	if len(with) > 0 {
		title = fmt.Sprintf("Progress (%s, %d visits, %d pairs a match, 95%% intervals)", v.Name, b.Simulations, b.Pairs)
	}
	return run.PlotHoursLines(filepath.Join(b.Out, "progress.png"), title, "Elo over "+anchor, lines...)
}

// progressHeader is the first line of progress.csv.
const progressHeader = "run,model,generation,hours,games,score,elo,low,high,previous_score,previous_elo,previous_low,previous_high"

// ReadProgress reads the progress.csv of an earlier measurement in dir as
// a line of the figure: its run's Elo over run hours, with the intervals.
func ReadProgress(dir string) (run.HoursLine, error) {
	path := filepath.Join(dir, "progress.csv")
	f, err := os.Open(path)
	if err != nil {
		return run.HoursLine{}, fmt.Errorf("progress of an earlier measurement: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return run.HoursLine{}, fmt.Errorf("progress of an earlier measurement: %s: %w", path, err)
	}
	if len(recs) < 2 || strings.Join(recs[0], ",") != progressHeader {
		return run.HoursLine{}, fmt.Errorf("progress of an earlier measurement: %s: want a header %q and rows (made by this build's bench progress)", path, progressHeader)
	}
	var l run.HoursLine
	for i, r := range recs[1:] {
		var x [4]float64
		for k, col := range []int{3, 6, 7, 8} {
			if x[k], err = strconv.ParseFloat(r[col], 64); err != nil {
				return run.HoursLine{}, fmt.Errorf("progress of an earlier measurement: %s row %d: %s %q is not a number", path, i+1, recs[0][col], r[col])
			}
		}
		l.Name = r[0]
		l.Hours, l.Y, l.Low, l.High = append(l.Hours, x[0]), append(l.Y, x[1]), append(l.Low, x[2]), append(l.High, x[3])
	}
	return l, nil
}

// LoadReference loads the frozen model named by spec that a
// ProgressBench's models also meet: arena.BuiltinModel (the built-in
// model, named builtin), or a checkpoint file (named for it).
func LoadReference(spec string) (*model.Checkpoint, string, error) {
	if spec == arena.BuiltinModel {
		ck, err := builtin.Nine()
		return ck, "builtin", err
	}
	ck, err := model.LoadCheckpoint(spec)
	return ck, strings.TrimSuffix(filepath.Base(spec), ".safetensors"), err
}

// WriteProgress prints the rows: each model's Elo over the anchor (the
// reference named, else the first model), and its match against the
// model before it.
func WriteProgress(out io.Writer, rows []ProgressRow, reference string) {
	fmt.Fprintf(out, "%-10s %6s %6s %7s %6s %13s   %s\n", "model", "hours", "games", "score", "Elo", "95%", "against the one before")
	for i, r := range rows {
		iv := "(anchor)"
		if i > 0 || reference != "" {
			iv = fmt.Sprintf("[%+.0f, %+.0f]", r.Low, r.High)
		}
		fmt.Fprintf(out, "%-10s %6.2f %6d %6.1f%% %+6.0f %13s", r.Model, r.Hours, r.Games, 100*r.Score, r.Elo, iv)
		if p := r.Previous; p != nil {
			fmt.Fprintf(out, "   %5.1f%%, %+.0f [%+.0f, %+.0f]", 100*p.Score, p.Elo, p.Low, p.High)
		}
		fmt.Fprintln(out)
	}
	anchor := "the first model 0"
	if reference != "" {
		anchor = "the reference " + reference + " 0"
	}
	fmt.Fprintf(out, "\nElo: one maximum-likelihood fit of every match (Bradley-Terry, a draw half a win), %s, 95%% from the\n", anchor)
	fmt.Fprintln(out, "inverse Fisher information; against the one before: that match alone, the interval from its pairs' scores.")
}
