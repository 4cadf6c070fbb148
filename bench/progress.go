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
	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/plot"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/model/builtin"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/runmetrics"
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
	Generations      []int
	Hours            []float64
	EveryGenerations int // instead: every this many generations, and the newest
	Models           int
	EveryHours       float64
}

// PickEveryGenerations chooses the models of a run (their generations the
// keys of hours) at every multiple of every generations, and the newest
// (a multiple within a quarter step of the newest is left to it). Oldest
// first.
func PickEveryGenerations(hours map[int]float64, every int) ([]int, error) {
	gens, err := generationsOf(hours)
	if err != nil {
		return nil, err
	}
	if every < 1 {
		return nil, fmt.Errorf("every %d generations: want 1 or more", every)
	}
	newest := gens[len(gens)-1]
	var out []int
	for g := every; g < newest-every/4; g += every {
		if _, ok := hours[g]; ok {
			out = append(out, g)
		}
	}
	out = append(out, newest)
	if len(out) < 2 {
		return nil, fmt.Errorf("every %d generations names only the newest model (generation %d): want two; choose a shorter step", every, newest)
	}
	return out, nil
}

// NewProgressBench is the ProgressBench of the run at loc (a directory or
// a store URL, whose run.yaml, metrics and chosen models are brought into
// the cache first) over the models c chooses, with the run's variant. Out
// is RUN/bench/progress of the local directory; the caller sets the
// search and match settings.
func NewProgressBench(ctx context.Context, loc, cache string, c ProgressChoice) (*ProgressBench, error) {
	dir, err := store.Fetch(ctx, loc, cache, store.GenerationsTable, store.LossesTable)
	if err != nil {
		return nil, err
	}
	hours, err := runmetrics.ModelHours(dir)
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
	case c.EveryGenerations > 0:
		if chosen, err = PickEveryGenerations(hours, c.EveryGenerations); err != nil {
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
	v, err := runconfig.VariantOf(dir)
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
	Book         *arena.Book     // when not nil, each pair opens from a position of the book instead (arena.Match.Book)
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

	// Axis is progress.png's x axis: AxisHours (the default, ""),
	// AxisGenerations, AxisPositions or AxisSamples. Runs that shared a
	// machine compare by generation or compute, not by wall hours.
	Axis string
}

// The x axes of progress.png (ProgressBench.Axis).
const (
	AxisHours       = "hours"       // the run's wall hours, every invocation's
	AxisGenerations = "generations" // the model's generation
	AxisPositions   = "positions"   // the positions self-play searched before the model
	AxisSamples     = "samples"     // the samples the trainer fitted before the model
)

// Axes are the x axes of progress.png, the default first.
var Axes = []string{AxisHours, AxisGenerations, AxisPositions, AxisSamples}

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
	Positions  int64              `json:"positions"` // self-play's positions searched before the model (ModelCompute)
	Samples    int64              `json:"samples"`   // the trainer's samples fitted before the model
	Games      int                `json:"games"`
	Draws      int                `json:"draws"` // of its games: strong models draw most of theirs, and an Elo near 0 says little without it
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
	axis := cmp.Or(b.Axis, AxisHours)
	if !slices.Contains(Axes, axis) {
		return nil, fmt.Errorf("progress of run %s: axis %q: want one of %s", b.Dir, b.Axis, strings.Join(Axes, ", "))
	}
	var with []ProgressLine // read before the matches, so that a bad one is said at once
	for _, dir := range b.With {
		l, err := ReadProgress(dir)
		if err != nil {
			return nil, err
		}
		if _, err := l.X(axis); err != nil {
			return nil, err
		}
		with = append(with, l)
	}
	v := b.Variant
	if v == nil {
		var err error
		if v, err = runconfig.VariantOf(b.Dir); err != nil {
			return nil, fmt.Errorf("progress of run %s: %w", b.Dir, err)
		}
	}
	compute, err := runmetrics.ModelCompute(b.Dir)
	if err != nil {
		return nil, err
	}
	players := make([]arena.Player, len(b.Generations))
	names := make([]string, len(b.Generations))
	for i, g := range b.Generations {
		if _, ok := compute[g]; !ok {
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
	rr := arena.RoundRobin{Variant: v, Players: players, Pairs: b.Pairs, OpeningPlies: b.OpeningPlies, Book: b.Book,
		Seed: b.Seed, Workers: b.Workers, Dir: b.Out}
	recs, err := rr.Run(ctx, onMatch, onGame)
	if err != nil {
		return nil, err
	}
	ratings, err := arena.FitElo(recs, rating.EloSettings{Anchor: anchor, VirtualDraws: 1})
	if err != nil {
		return nil, fmt.Errorf("progress of run %s: %w", b.Dir, err)
	}
	byName := map[string]rating.Rating{}
	for _, r := range ratings {
		byName[r.Name] = r
	}
	rows := make([]ProgressRow, len(names))
	for i, name := range names {
		r := byName[name]
		c := compute[b.Generations[i]]
		rows[i] = ProgressRow{Model: store.ModelName(b.Generations[i]), Generation: b.Generations[i], Hours: c.Hours,
			Positions: c.Positions, Samples: c.Samples,
			Games: r.Games, Draws: r.Draws, Score: r.Score / float64(max(r.Games, 1)), Elo: r.Elo, Low: r.Low, High: r.High}
		if i > 0 {
			prev := arena.StrengthOf(name, names[i-1], recs)
			rows[i].Previous = &prev
		}
	}
	if b.Out != "" {
		if err := b.write(rows, v, axis, with); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// write puts rows in Out as progress.csv and progress.png, the figure over
// axis with the lines of earlier measurements (With) beside this run's.
func (b *ProgressBench) write(rows []ProgressRow, v *engine.Variant, axis string, with []ProgressLine) error {
	var sb strings.Builder
	sb.WriteString(progressHeader + "\n")
	anchor := rows[0].Model
	if b.Reference != nil {
		anchor = cmp.Or(b.ReferenceName, "reference")
	}
	name := filepath.Base(string(b.Dir))
	this := ProgressLine{Name: name}
	for _, r := range rows {
		fmt.Fprintf(&sb, "%s,%s,%d,%.4f,%d,%.4f,%.1f,%.1f,%.1f", name, r.Model, r.Generation, r.Hours, r.Games, r.Score, r.Elo, r.Low, r.High)
		if p := r.Previous; p != nil {
			fmt.Fprintf(&sb, ",%.4f,%.1f,%.1f,%.1f", p.Score, p.Elo, p.Low, p.High)
		} else {
			sb.WriteString(",,,,")
		}
		fmt.Fprintf(&sb, ",%d,%d\n", r.Positions, r.Samples)
		this.Hours, this.Generations = append(this.Hours, r.Hours), append(this.Generations, float64(r.Generation))
		this.Positions, this.Samples = append(this.Positions, float64(r.Positions)), append(this.Samples, float64(r.Samples))
		this.Y, this.Low, this.High = append(this.Y, r.Elo), append(this.Low, r.Low), append(this.High, r.High)
	}
	if err := os.MkdirAll(b.Out, 0o777); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(b.Out, "progress.csv"), []byte(sb.String())); err != nil {
		return err
	}
	title := fmt.Sprintf("Progress of %s (%s, %d visits, %d pairs a match, 95%% intervals)", name, v.Name, b.Simulations, b.Pairs)
	if len(with) > 0 {
		title = fmt.Sprintf("Progress (%s, %d visits, %d pairs a match, 95%% intervals)", v.Name, b.Simulations, b.Pairs)
	}
	var lines []plot.Line
	for _, l := range append([]ProgressLine{this}, with...) {
		x, err := l.X(axis)
		if err != nil {
			return err
		}
		lines = append(lines, plot.Line{Name: l.Name, X: x, Y: l.Y, Low: l.Low, High: l.High})
	}
	return plot.Scaled(filepath.Join(b.Out, "progress.png"), title, axisLabels[axis], "Elo over "+anchor, true, lines...)
}

// axisLabels are the x axes' labels in progress.png.
var axisLabels = map[string]string{
	AxisHours:       "run hours (log scale)",
	AxisGenerations: "generation (log scale)",
	AxisPositions:   "positions searched by self-play (log scale)",
	AxisSamples:     "samples fitted by the trainer (log scale)",
}

// progressHeader is the first line of progress.csv; progressHeaderHours
// that of a measurement made before the compute columns were added, which
// ReadProgress still reads (by hours and generation only).
const (
	progressHeaderHours = "run,model,generation,hours,games,score,elo,low,high,previous_score,previous_elo,previous_low,previous_high"
	progressHeader      = progressHeaderHours + ",positions,samples"
)

// ProgressLine is a measurement's line of progress.png: each model's Elo
// with its 95% interval, and where the run stood when it made the model,
// by each axis.
type ProgressLine struct {
	Name                                   string
	Hours, Generations, Positions, Samples []float64 // nil: not in the measurement (Positions and Samples of an older one)
	Y, Low, High                           []float64
	path                                   string
}

// X is the line's x values by axis, or an error naming the measurement
// when it lacks them.
func (l ProgressLine) X(axis string) ([]float64, error) {
	x := map[string][]float64{AxisHours: l.Hours, AxisGenerations: l.Generations, AxisPositions: l.Positions, AxisSamples: l.Samples}[axis]
	if x == nil {
		return nil, fmt.Errorf("progress of an earlier measurement: %s has no %s column (measured before it was recorded): draw it by hours or generations", l.path, axis)
	}
	return x, nil
}

// ReadProgress reads the progress.csv of an earlier measurement in dir as
// a line of the figure: its run's Elo with the intervals, by each axis it
// holds.
func ReadProgress(dir string) (ProgressLine, error) {
	path := filepath.Join(dir, "progress.csv")
	f, err := os.Open(path)
	if err != nil {
		return ProgressLine{}, fmt.Errorf("progress of an earlier measurement: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return ProgressLine{}, fmt.Errorf("progress of an earlier measurement: %s: %w", path, err)
	}
	header := ""
	if len(recs) > 0 {
		header = strings.Join(recs[0], ",")
	}
	if len(recs) < 2 || header != progressHeader && header != progressHeaderHours {
		return ProgressLine{}, fmt.Errorf("progress of an earlier measurement: %s: want a header %q and rows (made by bench progress)", path, progressHeader)
	}
	cols := []int{3, 2, 6, 7, 8} // hours, generation, elo, low, high
	if header == progressHeader {
		cols = append(cols, 13, 14) // positions, samples
	}
	l := ProgressLine{path: path}
	for i, r := range recs[1:] {
		x := make([]float64, len(cols))
		for k, col := range cols {
			if x[k], err = strconv.ParseFloat(r[col], 64); err != nil {
				return ProgressLine{}, fmt.Errorf("progress of an earlier measurement: %s row %d: %s %q is not a number", path, i+1, recs[0][col], r[col])
			}
		}
		l.Name = r[0]
		l.Hours, l.Generations = append(l.Hours, x[0]), append(l.Generations, x[1])
		l.Y, l.Low, l.High = append(l.Y, x[2]), append(l.Low, x[3]), append(l.High, x[4])
		if len(x) > 5 {
			l.Positions, l.Samples = append(l.Positions, x[5]), append(l.Samples, x[6])
		}
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
	fmt.Fprintf(out, "%-10s %6s %6s %6s %7s %6s %13s   %s\n", "model", "hours", "games", "draws", "score", "Elo", "95%", "against the one before (draws)")
	for i, r := range rows {
		iv := "(anchor)"
		if i > 0 || reference != "" {
			iv = fmt.Sprintf("[%+.0f, %+.0f]", r.Low, r.High)
		}
		fmt.Fprintf(out, "%-10s %6.2f %6d %5.0f%% %6.1f%% %+6.0f %13s", r.Model, r.Hours, r.Games, 100*float64(r.Draws)/float64(max(r.Games, 1)), 100*r.Score, r.Elo, iv)
		if p := r.Previous; p != nil {
			fmt.Fprintf(out, "   %5.1f%%, %+.0f [%+.0f, %+.0f] (%.0f%%)", 100*p.Score, p.Elo, p.Low, p.High, 100*float64(p.Draws)/float64(max(p.Games, 1)))
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
