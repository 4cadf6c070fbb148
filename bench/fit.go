package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
	"github.com/millzero/millzero/train"
)

// DefaultFitGenerations is how many of a run's newest generations with
// games FitBench reads when it is given no range.
const DefaultFitGenerations = 20

// FitValBatches caps the batches of held-out positions each evaluation of
// a FitBench is over: the first so many whole batches, in the shards'
// order (all whole batches when there are fewer); every evaluation of every
// net is over the same positions.
const FitValBatches = 40

// FitBench is `millzero bench fit` on a local run: fresh networks of
// several trunks, each trained on the same fixed games of a range of the
// run's generations with the run's training, and their losses on the games
// held out as the loop holds them out (train.OpenSplits: the validation
// fraction of the range's newest generation's games, by game id). Whether a
// larger network reaches a lower held-out loss on the same data says
// whether the network's size limits the fit.
type FitBench struct {
	Dir     store.Dir
	Variant *engine.Variant
	Model   model.Config // the run's model; each net sets its width and blocks
	Train   train.Config // the run's training; a caller sets BatchSize and Threads before Run
	Seed    uint64       // seeds the networks' weights, the window's shuffle and its symmetries

	From, To    int     // the range of generations read, inclusive
	Generations int     // of them, those with games
	Games       int     // games in the shards read
	Skipped     int     // shards not read: their games cannot be counted (incomplete)
	Rows        int64   // recorded positions in the window, held-out ones included
	Capped      bool    // the run's window_samples cut the range's oldest positions off
	ValFraction float64 // the share of the newest generation's games held out
	HeldOut     []dataset.Sample
	HeldGames   int // the games HeldOut is of

	window dataset.WindowOptions // the loop's window over games, the range's shards
	games  string                // a temporary games directory: the range's shards, linked
	cache  *dataset.ShardCache   // the training window's decoded shards, carried from net to net
}

// NewFitBench opens the local run in dir with the games of generations
// from..to (from < 0: the newest DefaultFitGenerations generations with
// games), holding out valFraction of the newest generation's games. It
// links the range's shards into a temporary directory, which Close
// removes; the run is only read.
func NewFitBench(dir string, from, to int, valFraction float64) (*FitBench, error) {
	if !(valFraction > 0 && valFraction < 1) {
		return nil, fmt.Errorf("validation fraction %v: want more than 0 and less than 1 (the share of the newest generation's games held out)", valFraction)
	}
	if from >= 0 && to < from {
		return nil, fmt.Errorf("generations %d-%d: an empty range", from, to)
	}
	r := store.Dir(dir)
	cfg, _, err := runconfig.LoadRunConfig(r.Config())
	if err != nil {
		return nil, err
	}
	v, err := cfg.LoadVariant()
	if err != nil {
		return nil, err
	}
	have, err := generationsWithGames(r)
	if err != nil {
		return nil, err
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("no games in %s", r.Games())
	}
	var gens []int
	if from < 0 {
		gens = have[max(0, len(have)-DefaultFitGenerations):]
		from, to = gens[0], gens[len(gens)-1]
	} else {
		for _, g := range have {
			if g >= from && g <= to {
				gens = append(gens, g)
			}
		}
		if len(gens) == 0 {
			return nil, fmt.Errorf("generations %d-%d: no games (the run's games are of generations %d-%d)", from, to, have[0], have[len(have)-1])
		}
	}
	b := &FitBench{Dir: r, Variant: v, Model: cfg.Model, Train: cfg.Train, Seed: cfg.Loop.Seed,
		From: from, To: to, Generations: len(gens), ValFraction: valFraction, cache: dataset.NewShardCache()}
	if b.games, err = os.MkdirTemp("", "millzero-fit-"); err != nil {
		return nil, err
	}
	if err := b.link(gens); err != nil {
		b.Close()
		return nil, err
	}
	if b.Games == 0 {
		b.Close()
		return nil, fmt.Errorf("generations %d-%d: no complete shard (%d skipped)", from, to, b.Skipped)
	}
	b.window = dataset.WindowOptions{Samples: cfg.Loop.WindowSamples, Shuffle: cfg.Loop.Shuffle, FullOnly: true, Variant: v}
	if err := b.readHeldOut(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// generationsWithGames lists the generations of r that have shards,
// oldest first.
func generationsWithGames(r store.Dir) ([]int, error) {
	entries, err := os.ReadDir(r.Games())
	if err != nil {
		return nil, fmt.Errorf("no games: %w", err)
	}
	var gens []int
	for _, e := range entries { // ReadDir sorts by name: gen-NNNNNN by generation
		if g, ok := store.ParseModelName(e.Name()); ok && e.IsDir() {
			if files, _ := generationShards(r, g); len(files) > 0 {
				gens = append(gens, g)
			}
		}
	}
	return gens, nil
}

// link makes b.games a games directory of the shards of gens, each a
// symbolic link to the run's file, so that the loop's window reads this
// range and no other generation; it counts their games.
func (b *FitBench) link(gens []int) error {
	for _, g := range gens {
		files, err := generationShards(b.Dir, g)
		if err != nil {
			return err
		}
		dir := filepath.Join(b.games, store.ModelName(g))
		if err := os.Mkdir(dir, 0o777); err != nil {
			return err
		}
		for _, f := range files {
			n, err := selfplay.ShardGames(f)
			if err != nil { // a shard still being written, or cut short
				b.Skipped++
				continue
			}
			abs, err := filepath.Abs(f)
			if err != nil {
				return err
			}
			if err := os.Symlink(abs, filepath.Join(dir, filepath.Base(f))); err != nil {
				return err
			}
			b.Games += n
		}
	}
	return nil
}

// openSplits opens the loop's two Sources over the range's games.
func (b *FitBench) openSplits() (trainSrc, valSrc *dataset.Window, err error) {
	opts := b.window
	opts.Seed, opts.Cache = seedpkg.Derive(b.Seed, "shuffle"), b.cache
	return train.OpenSplits(b.games, opts, b.ValFraction)
}

// readHeldOut reads the held-out split whole into b.HeldOut.
func (b *FitBench) readHeldOut() error {
	src, vsrc, err := b.openSplits()
	if err != nil {
		return err
	}
	defer src.Close()
	defer vsrc.Close()
	b.Rows = src.Rows()
	b.Capped = b.window.Samples > 0 && b.Rows >= int64(b.window.Samples)
	games := map[string]bool{}
	for {
		var s dataset.Sample
		if err := vsrc.Next(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("read the held-out games: %w", err)
		}
		b.HeldOut = append(b.HeldOut, s)
		games[s.GameID] = true
	}
	b.HeldGames = len(games)
	if b.HeldGames == 0 {
		return fmt.Errorf("no held-out games: none of generation %d's games falls in the validation fraction %v", b.To, b.ValFraction)
	}
	return nil
}

// Close removes the temporary games directory (the links, not the run's
// files).
func (b *FitBench) Close() error {
	if b.games == "" {
		return nil
	}
	err := os.RemoveAll(b.games)
	b.games = ""
	return err
}

// FitNet is the trunk of one network a FitBench trains.
type FitNet struct {
	Width  int `json:"width"`
	Blocks int `json:"blocks"`
}

// String is the net as its spec: WIDTHxBLOCKS.
func (n FitNet) String() string { return fmt.Sprintf("%dx%d", n.Width, n.Blocks) }

// ParseFitNets reads a comma-separated list of trunks, each WIDTHxBLOCKS
// (32x2); an error names the spec that is not one.
func ParseFitNets(list string) ([]FitNet, error) {
	var nets []FitNet
	for _, spec := range strings.Split(list, ",") {
		spec = strings.TrimSpace(spec)
		w, bl, ok := strings.Cut(spec, "x")
		width, werr := strconv.Atoi(w)
		blocks, berr := strconv.Atoi(bl)
		if !ok || werr != nil || berr != nil {
			return nil, fmt.Errorf("net %q: want WIDTHxBLOCKS, as 32x2", spec)
		}
		if err := (model.Config{Width: width, Blocks: blocks}).Validate(); err != nil {
			return nil, fmt.Errorf("net %q: %w", spec, err)
		}
		nets = append(nets, FitNet{Width: width, Blocks: blocks})
	}
	return nets, nil
}

// FitRow is one evaluation of a net: the mean training losses of the
// steps since the one before, and the held-out losses after them.
type FitRow struct {
	Step         int64   `json:"step"`
	TrainPolicy  float64 `json:"train_policy"`
	TrainOutcome float64 `json:"train_outcome"`
	TrainTotal   float64 `json:"train_total"`
	ValPolicy    float64 `json:"val_policy"`
	ValOutcome   float64 `json:"val_outcome"`
	ValTotal     float64 `json:"val_total"`
	Seconds      float64 `json:"seconds"` // since the net's training began
}

// FitNetResult is one net's evaluations, and the lowest held-out losses
// among them (the policy's and the outcome's, each at its step).
type FitNetResult struct {
	Net             string   `json:"net"`
	Arch            string   `json:"arch"`
	Params          int      `json:"params"`
	Rows            []FitRow `json:"rows"`
	BestPolicy      float64  `json:"best_val_policy"`
	BestPolicyStep  int64    `json:"best_val_policy_step"`
	BestOutcome     float64  `json:"best_val_outcome"`
	BestOutcomeStep int64    `json:"best_val_outcome_step"`
	Seconds         float64  `json:"seconds"`
}

// FitResult is what FitBench.Run measured.
type FitResult struct {
	Run          string         `json:"run"`
	From         int            `json:"from"`
	To           int            `json:"to"`
	Generations  int            `json:"generations"` // in From..To with games
	Games        int            `json:"games"`
	Skipped      int            `json:"skipped_shards"`
	Rows         int64          `json:"rows"`   // recorded positions in the window, held-out ones included
	Capped       bool           `json:"capped"` // window_samples cut the range's oldest positions off
	HeldGames    int            `json:"held_out_games"`
	HeldOut      int            `json:"held_out_positions"`
	ValFraction  float64        `json:"val_fraction"`
	ValPositions int            `json:"val_positions"` // positions each evaluation is over
	Batch        int            `json:"batch"`
	Threads      int            `json:"threads"`
	Steps        int            `json:"steps"`
	Every        int            `json:"every"`
	Seed         uint64         `json:"seed"`
	Nets         []FitNetResult `json:"nets"`
	Seconds      float64        `json:"seconds"`
}

// FitProgress is the state of a FitBench's Run: net K of Of at step Step
// of Steps, and Row after each evaluation (nil between).
type FitProgress struct {
	Net         FitNet
	K, Of       int
	Step, Steps int
	Row         *FitRow
}

// Run trains a fresh network of every trunk in nets for steps steps,
// evaluating it on the held-out games after every every steps (and the
// last). Each net is the run's model with its width and blocks, its
// weights drawn from b.Seed, trained with b.Train on the same stream of
// the range's training games. progress, if not nil, is called as training
// goes. When ctx ends, it returns what was measured so far with ctx's
// error.
func (b *FitBench) Run(ctx context.Context, nets []FitNet, steps, every int, progress func(FitProgress)) (*FitResult, error) {
	switch {
	case len(nets) == 0:
		return nil, fmt.Errorf("no nets")
	case steps < 1:
		return nil, fmt.Errorf("steps %d: want 1 or more", steps)
	case every < 1:
		return nil, fmt.Errorf("every %d steps: want 1 or more", every)
	}
	if err := b.Train.Validate(); err != nil {
		return nil, err
	}
	batch := b.Train.BatchSize
	valBatches := min(FitValBatches, len(b.HeldOut)/batch)
	if valBatches == 0 {
		return nil, fmt.Errorf("the held-out games give %d positions, fewer than one batch of %d: hold out more games or train on smaller batches", len(b.HeldOut), batch)
	}
	archs := make([]model.Arch, len(nets))
	for i, n := range nets {
		mc := b.Model
		mc.Width, mc.Blocks = n.Width, n.Blocks
		if err := mc.Validate(); err != nil {
			return nil, fmt.Errorf("net %s: %w", n, err)
		}
		archs[i] = model.NewArch(b.Variant, mc)
		if err := archs[i].Validate(); err != nil {
			return nil, fmt.Errorf("net %s: %w", n, err)
		}
	}
	res := &FitResult{Run: string(b.Dir), From: b.From, To: b.To, Generations: b.Generations, Games: b.Games, Skipped: b.Skipped, Rows: b.Rows, Capped: b.Capped,
		HeldGames: b.HeldGames, HeldOut: len(b.HeldOut), ValFraction: b.ValFraction, ValPositions: valBatches * batch,
		Batch: batch, Threads: b.Train.Workers(), Steps: steps, Every: every, Seed: b.Seed}
	start := time.Now()
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	held := b.HeldOut[:valBatches*batch]
	for i, n := range nets {
		nr := FitNetResult{Net: n.String(), Arch: archs[i].String(), Params: archs[i].ParamCount()}
		err := b.fit(ctx, archs[i], steps, every, held, valBatches, &nr, func(p FitProgress) {
			if progress != nil {
				p.Net, p.K, p.Of = n, i+1, len(nets)
				progress(p)
			}
		})
		if len(nr.Rows) > 0 {
			res.Nets = append(res.Nets, nr)
		}
		if err != nil {
			return res, fmt.Errorf("net %s: %w", n, err)
		}
	}
	return res, nil
}

// fit trains a fresh network of arch and records its evaluations in nr.
func (b *FitBench) fit(ctx context.Context, arch model.Arch, steps, every int, held []dataset.Sample, valBatches int, nr *FitNetResult, progress func(FitProgress)) error {
	start := time.Now()
	defer func() { nr.Seconds = time.Since(start).Seconds() }()
	// The loop's new network at generation 0, of this trunk.
	net, err := model.New(b.Variant.Name, arch, rand.New(rand.NewPCG(b.Seed, 0x6e6574)))
	if err != nil {
		return err
	}
	if net.Arch.Symmetric {
		if err := model.Tie(b.Variant, net); err != nil {
			return err
		}
	}
	tr, err := train.New(b.Variant, net, b.Train)
	if err != nil {
		return err
	}
	defer tr.Close()
	src, vsrc, err := b.openSplits()
	if err != nil {
		return err
	}
	defer src.Close()
	vsrc.Close() // the held-out games were read once, into held
	nr.BestPolicy, nr.BestOutcome = math.Inf(1), math.Inf(1)
	tick := max(1, min(every, 50)) // steps between progress reports
	for done := 0; done < steps; {
		n := min(every, steps-done)
		var acc fitMean
		took, err := tr.Fit(ctx, src, n, tick, func(step int64, s train.Stats) {
			acc.add(s)
			progress(FitProgress{Step: int(step), Steps: steps}) // a fresh trainer: its step is the net's
		})
		if err != nil {
			return fmt.Errorf("step %d: %w", tr.Steps(), err)
		}
		if took < n {
			return fmt.Errorf("step %d: the training games ran out", tr.Steps())
		}
		done += n
		val, err := tr.Validate(&heldOut{samples: held}, valBatches)
		if err != nil {
			return err
		}
		row := FitRow{Step: tr.Steps(), TrainPolicy: acc.mean(acc.policy), TrainOutcome: acc.mean(acc.outcome), TrainTotal: acc.mean(acc.total),
			ValPolicy: val.Policy, ValOutcome: val.Outcome, ValTotal: val.Total, Seconds: time.Since(start).Seconds()}
		nr.Rows = append(nr.Rows, row)
		if row.ValPolicy < nr.BestPolicy {
			nr.BestPolicy, nr.BestPolicyStep = row.ValPolicy, row.Step
		}
		if row.ValOutcome < nr.BestOutcome {
			nr.BestOutcome, nr.BestOutcomeStep = row.ValOutcome, row.Step
		}
		progress(FitProgress{Step: done, Steps: steps, Row: &row})
	}
	return nil
}

// fitMean is the mean of Fit's reports, weighted by their samples.
type fitMean struct {
	samples                int
	policy, outcome, total float64 // sums, weighted
}

func (m *fitMean) add(s train.Stats) {
	w := float64(s.Samples)
	m.policy += w * s.Policy
	m.outcome += w * s.Outcome
	m.total += w * s.Total
	m.samples += s.Samples
}

func (m *fitMean) mean(sum float64) float64 { return sum / float64(m.samples) }

// heldOut is a Source of the held-out samples, once through.
type heldOut struct {
	samples []dataset.Sample
	next    int
}

// Next copies the next sample into s, reusing s.Policy's storage, so the
// samples are never changed by their reader.
func (r *heldOut) Next(s *dataset.Sample) error {
	if r.next == len(r.samples) {
		return io.EOF
	}
	policy := append(s.Policy[:0], r.samples[r.next].Policy...)
	*s = r.samples[r.next]
	s.Policy = policy
	r.next++
	return nil
}

// Write prints res for people: a table of each net's evaluations, then a
// line a net of its lowest held-out losses.
func (res *FitResult) Write(out io.Writer) {
	fmt.Fprintf(out, "fit: run %s, generations %d-%d (%d with games): %d games, %d recorded positions\n",
		res.Run, res.From, res.To, res.Generations, res.Games, res.Rows)
	if res.Capped {
		fmt.Fprintf(out, "  the run's loop.window_samples caps the window at %d positions: the range's oldest are not read\n", res.Rows)
	}
	if res.Skipped > 0 {
		fmt.Fprintf(out, "  %d shards not read: incomplete (no game count in their footer)\n", res.Skipped)
	}
	fmt.Fprintf(out, "held out: %d games of generation %d (%.3g of its games, by game id as the loop holds them out), %d full-search positions; each evaluation over %d\n",
		res.HeldGames, res.To, res.ValFraction, res.HeldOut, res.ValPositions)
	threads := "threads"
	if res.Threads == 1 {
		threads = "thread"
	}
	fmt.Fprintf(out, "training: the run's train config at batch %d on %d %s, %d steps, evaluated every %d; seed %d\n",
		res.Batch, res.Threads, threads, res.Steps, res.Every, res.Seed)
	for _, n := range res.Nets {
		fmt.Fprintf(out, "\nnet %s (%s, %d parameters): %d steps in %.0fs\n", n.Net, n.Arch, n.Params, lastStep(n), n.Seconds)
		fmt.Fprintf(out, "%8s %13s %14s %11s %12s %10s %8s\n", "step", "train policy", "train outcome", "val policy", "val outcome", "val total", "seconds")
		for _, r := range n.Rows {
			fmt.Fprintf(out, "%8d %13.4f %14.4f %11.4f %12.4f %10.4f %8.0f\n", r.Step, r.TrainPolicy, r.TrainOutcome, r.ValPolicy, r.ValOutcome, r.ValTotal, r.Seconds)
		}
	}
	fmt.Fprintf(out, "\nthe lowest held-out losses of each net:\n")
	fmt.Fprintf(out, "%8s %11s %11s %8s %12s %8s %8s\n", "net", "parameters", "val policy", "at step", "val outcome", "at step", "seconds")
	for _, n := range res.Nets {
		fmt.Fprintf(out, "%8s %11d %11.4f %8d %12.4f %8d %8.0f\n", n.Net, n.Params, n.BestPolicy, n.BestPolicyStep, n.BestOutcome, n.BestOutcomeStep, n.Seconds)
	}
	fmt.Fprintf(out, "elapsed %s; the losses are cross-entropies in nats (the policy's includes its target's entropy), of the trained weights (not their moving average)\n",
		time.Duration(res.Seconds*float64(time.Second)).Round(time.Second))
}

// lastStep is the step of n's last evaluation.
func lastStep(n FitNetResult) int64 {
	if len(n.Rows) == 0 {
		return 0
	}
	return n.Rows[len(n.Rows)-1].Step
}
