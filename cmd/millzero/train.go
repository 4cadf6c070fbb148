package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/train"
)

func runTrain(args []string, out io.Writer) error {
	fs := newFlags("train", "[--config FILE] [--run DIR] [--generations N] [--hours H]", []string{
		"millzero train                                  # Nine Men's Morris, embedded config, run in runs/nine",
		"millzero train --run runs/nine                  # the same command again resumes where it stopped",
		"millzero train --config three-test --run runs/three --generations 5",
		"millzero train --config my.yaml --run runs/mine --hours 8",
	}, out)
	cfgPath := fs.String("config", "", "run config: a YAML file, or an embedded one (nine, nine-long, three-test); default: the embedded nine config")
	runPath := fs.String("run", "", "run directory, created if new and resumed if not (default runs/VARIANT)")
	gens := fs.Int("generations", -1, "stop after this many generations in all (overrides loop.generations; 0 = no limit; -1 keeps the config's)")
	hours := fs.Float64("hours", -1, "stop after this many hours of this invocation (overrides loop.hours; 0 = no limit; -1 keeps the config's)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := openLoop(*runPath, *cfgPath, out)
	if err != nil {
		return err
	}
	if *gens >= 0 {
		l.cfg.Loop.Generations = *gens
	}
	if *hours >= 0 {
		l.cfg.Loop.Hours = *hours
	}
	why, err := l.run(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "stopped: %s\n", why)
	return nil
}

// loop is `millzero train`: generation after generation of self-play,
// training, and the arena, each step resumable from what is on disk.
type loop struct {
	dir   runDir
	cfg   runConfig
	v     *engine.Variant
	out   io.Writer
	prog  *progress
	log   *slog.Logger
	gens  *series // one row per finished generation: the commit point of a generation
	loss  *series // training and validation losses
	elo   *series // the best model's rating after each generation
	start time.Time
	base  float64 // run hours before this invocation
	nets  map[int]*model.Network
}

// openLoop opens (or creates) the run directory. A new run stores the
// resolved config as run.yaml; an existing run uses its run.yaml, and a
// --config that resolves differently is an error.
func openLoop(runPath, cfgPath string, out io.Writer) (*loop, error) {
	cfg, text, err := loadRunConfig(cfgPath)
	if err != nil {
		return nil, err
	}
	if runPath == "" {
		runPath = filepath.Join("runs", cfg.Variant)
	}
	dir := runDir(runPath)
	if _, err := os.Stat(dir.config()); err == nil {
		storedCfg, storedText, err := loadRunConfig(dir.config())
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", runPath, err)
		}
		if cfgPath != "" && !bytes.Equal(storedText, text) {
			return nil, fmt.Errorf("run %s was started with another config (%s): leave out --config to resume it, or use a new --run", runPath, dir.config())
		}
		cfg = storedCfg
	} else if !os.IsNotExist(err) {
		return nil, err
	} else if err := writeFileAtomic(dir.config(), text); err != nil {
		return nil, fmt.Errorf("run %s: %w", runPath, err)
	}
	v, err := cfg.variant()
	if err != nil {
		return nil, err
	}
	if err := dir.removeTemp(); err != nil {
		return nil, fmt.Errorf("run %s: %w", runPath, err)
	}
	l := &loop{dir: dir, cfg: cfg, v: v, out: out, prog: newProgress(out), start: time.Now(),
		nets: map[int]*model.Network{},
		log:  slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if l.gens, err = openSeries(filepath.Join(dir.metrics(), "generations.csv"),
		"generation", "hours", "games", "moves_per_s", "train_loss", "val_loss", "candidate", "decision", "llr", "pairs", "best", "best_elo"); err != nil {
		return nil, err
	}
	if l.loss, err = openSeries(filepath.Join(dir.metrics(), "losses.csv"),
		"generation", "step", "split", "lr", "total", "policy", "outcome", "l2"); err != nil {
		return nil, err
	}
	if l.elo, err = openSeries(filepath.Join(dir.metrics(), "elo.csv"),
		"generation", "hours", "player", "elo", "low", "high", "games"); err != nil {
		return nil, err
	}
	if h := l.gens.column("hours"); len(h) > 0 {
		l.base = h[len(h)-1]
	}
	return l, nil
}

func (l *loop) hours() float64 { return l.base + time.Since(l.start).Hours() }

// run plays generations until the budget is spent or ctx ends, and says
// why it stopped.
func (l *loop) run(ctx context.Context) (string, error) {
	if l.cfg.Loop.Hours > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(l.cfg.Loop.Hours*float64(time.Hour)))
		defer cancel()
	}
	fmt.Fprintf(l.out, "run %s: %s, network %v, %d games and %d steps a generation\n", l.dir, l.v.Name,
		model.NewArch(l.v, l.cfg.Model), l.cfg.Loop.Games, l.cfg.Loop.Steps)
	for {
		g := len(l.gens.rows)
		if n := l.cfg.Loop.Generations; n > 0 && g >= n {
			return fmt.Sprintf("reached the budget of %d generations (run %s)", n, l.dir), nil
		}
		err := l.generation(ctx, g)
		switch {
		case err == nil:
			continue
		case errors.Is(err, context.DeadlineExceeded):
			return fmt.Sprintf("the budget of %g hours is spent in generation %d; run the same command to go on", l.cfg.Loop.Hours, g), nil
		case errors.Is(err, context.Canceled):
			return fmt.Sprintf("interrupted in generation %d; run the same command to resume", g), nil
		}
		return "", fmt.Errorf("generation %d: %w", g, err)
	}
}

// generation runs the phases of generation g; each skips what is done.
func (l *loop) generation(ctx context.Context, g int) error {
	best, err := l.dir.best()
	if errors.Is(err, errNoModel) {
		best = 0
	} else if err != nil {
		return err
	}
	if err := l.ladder(ctx, best); err != nil {
		return err
	}
	moves, err := l.selfplay(ctx, g, best)
	if err != nil {
		return err
	}
	trainLoss, valLoss, err := l.train(ctx, g)
	if err != nil {
		return err
	}
	res, err := l.gate(ctx, g+1, best)
	if err != nil {
		return err
	}
	decision := gateDecision(res, l.cfg.Gate)
	if decision != "rejected" {
		if err := l.dir.setBest(g + 1); err != nil {
			return err
		}
		best = g + 1
		if err := l.ladder(ctx, best); err != nil {
			return err
		}
	}
	eloBest, err := l.ratings(g)
	if err != nil {
		return err
	}
	games, err := selfplay.CountGames(dataset.GenerationDir(l.dir.games(), g))
	if err != nil {
		return err
	}
	p := res.Penta
	if err := l.gens.add(g, l.hours(), games, moves, trainLoss, valLoss, modelName(g+1), decision, res.LLR,
		fmt.Sprintf("%d/%d/%d/%d/%d", p[0], p[1], p[2], p[3], p[4]), modelName(best), eloBest); err != nil {
		return err
	}
	l.prog.done("generation %d: %s %s (LLR %.2f, pairs %v); best %s, Elo %.0f", g, modelName(g+1), decision, res.LLR, p, modelName(best), eloBest)
	return l.plots()
}

// modelName is the arena name of a generation's model; generation 0 is the
// search with random-rollout values that plays before any model exists.
func modelName(gen int) string { return fmt.Sprintf("gen-%06d", gen) }

// network loads generation gen's network (cached).
func (l *loop) network(gen int) (*model.Network, error) {
	if n, ok := l.nets[gen]; ok {
		return n, nil
	}
	ck, err := model.LoadCheckpointFor(l.dir.model(gen), l.v)
	if err != nil {
		return nil, err
	}
	l.nets[gen] = ck.Net
	return ck.Net, nil
}

// selfplay tops generation g's games up to loop.games, played by model
// generation best (0: rollouts). It returns the moves per second played
// now (NaN when nothing was left to play).
func (l *loop) selfplay(ctx context.Context, g, best int) (float64, error) {
	genDir := dataset.GenerationDir(l.dir.games(), g)
	have, err := selfplay.CountGames(genDir)
	if err != nil {
		return 0, err
	}
	need := l.cfg.Loop.Games - have
	if need <= 0 {
		return math.NaN(), nil
	}
	set := l.cfg.SelfPlay
	job := selfplay.Job{Variant: l.v, Settings: set, Games: need, Generation: g, GamesDir: l.dir.games(),
		Seed: l.cfg.Loop.Seed ^ uint64(g)<<20 ^ uint64(have), ProgressEvery: time.Second}
	if best > 0 {
		net, err := l.network(best)
		if err != nil {
			return 0, err
		}
		maxBatch := set.GamesInFlight * set.Search.BatchSize
		job.NewEvaluator = func(i int) (mcts.Evaluator, error) {
			return model.NewEvaluator(l.v, net, maxBatch, true, job.Seed+uint64(i))
		}
	}
	job.Progress = func(s selfplay.Stats) {
		l.prog.update("generation %d self-play (%s): %d/%d games, %.0f moves/s, mean length %.0f, wins %v draws %d",
			g, modelName(best), have+int(s.Games), l.cfg.Loop.Games, s.MovesPerSecond(), s.MeanLength(), s.Wins[:l.v.Players], s.Draws)
	}
	st, err := selfplay.Run(ctx, job)
	if err != nil {
		return 0, err
	}
	l.prog.done("generation %d self-play (%s): %d games, %.0f moves/s, %d positions, mean length %.0f, draws %d (ply cap %d)",
		g, modelName(best), have+int(st.Games), st.MovesPerSecond(), st.Positions, st.MeanLength(), st.Draws, st.Reasons[engine.PlyCapDraw])
	return st.MovesPerSecond(), nil
}

// train fits the candidate of generation g+1 on the newest games, from the
// newest checkpoint (weights and optimizer state), and saves it. Losses go
// to metrics/losses.csv before the checkpoint, replacing any rows of a
// run killed before its checkpoint, so they are never counted twice.
func (l *loop) train(ctx context.Context, g int) (float64, float64, error) {
	path := l.dir.model(g + 1)
	if _, err := os.Stat(path); err == nil {
		return l.lastLoss(g, "train"), l.lastLoss(g, "val"), nil
	}
	var net *model.Network
	var from *model.Checkpoint
	for k := g; k >= 1; k-- {
		if _, err := os.Stat(l.dir.model(k)); err == nil {
			ck, err := model.LoadCheckpointFor(l.dir.model(k), l.v)
			if err != nil {
				return 0, 0, err
			}
			from, net = ck, ck.Net.Clone()
			break
		}
	}
	if net == nil {
		var err error
		net, err = model.New(l.v.Name, model.NewArch(l.v, l.cfg.Model), rand.New(rand.NewPCG(l.cfg.Loop.Seed, 0x6e6574)))
		if err != nil {
			return 0, 0, err
		}
	}
	tr, err := train.New(l.v, net, l.cfg.Train)
	if err != nil {
		return 0, 0, err
	}
	defer tr.Close()
	if from != nil {
		if err := tr.Restore(from); err != nil {
			return 0, 0, err
		}
	}
	lc := l.cfg.Loop
	src, vsrc, err := train.OpenSplits(l.dir.games(), dataset.WindowOptions{Generations: lc.WindowGenerations,
		Samples: lc.WindowSamples, Shuffle: lc.Shuffle, Seed: lc.Seed ^ uint64(g)*0x9e37, FullOnly: true, Logger: l.log},
		lc.ValFraction)
	if err != nil {
		return 0, 0, err
	}
	defer src.Close()
	defer vsrc.Close()
	var rows [][]any
	trainLoss := math.NaN()
	every := max(1, lc.Steps/10)
	_, err = tr.Fit(ctx, src, lc.Steps, every, func(step int64, s train.Stats) {
		rows = append(rows, []any{g, step, "train", s.LR, s.Total, s.Policy, s.Outcome, s.L2})
		trainLoss = s.Total
		l.prog.update("generation %d training: step %d, %s", g, step, s)
	})
	if err != nil {
		return 0, 0, err
	}
	valLoss := math.NaN()
	if lc.ValBatches > 0 && lc.ValFraction > 0 {
		if s, err := tr.Validate(vsrc, lc.ValBatches); err == nil {
			valLoss = s.Total
			rows = append(rows, []any{g, tr.Steps(), "val", 0.0, s.Total, s.Policy, s.Outcome, s.L2})
		} else {
			l.prog.done("generation %d: no validation loss: %v", g, err)
		}
	}
	if err := l.replaceLossRows(g, rows); err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(l.dir.models(), 0o755); err != nil {
		return 0, 0, err
	}
	if err := tr.Checkpoint(g + 1).Save(path); err != nil {
		return 0, 0, err
	}
	l.prog.done("generation %d training: %d steps in all, loss %.4f, validation %.4f -> %s", g, tr.Steps(), trainLoss, valLoss, filepath.Base(path))
	return trainLoss, valLoss, nil
}

// replaceLossRows puts rows in place of generation g's loss rows.
func (l *loop) replaceLossRows(g int, rows [][]any) error {
	gen := fmt.Sprint(g)
	kept := l.loss.rows[:0]
	for _, r := range l.loss.rows {
		if r[0] != gen {
			kept = append(kept, r)
		}
	}
	l.loss.rows = kept
	for _, r := range rows {
		if err := l.loss.add(r...); err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		return l.loss.add(g, 0, "none", 0.0, math.NaN(), math.NaN(), math.NaN(), math.NaN())
	}
	return nil
}

// lastLoss is generation g's last recorded loss of a split, or NaN.
func (l *loop) lastLoss(g int, split string) float64 {
	gen := fmt.Sprint(g)
	total := l.loss.column("total")
	x := math.NaN()
	for i, r := range l.loss.rows {
		if r[0] == gen && r[2] == split {
			x = total[i]
		}
	}
	return x
}

// player is the arena player of model generation gen.
func (l *loop) player(gen int) (arena.Player, error) {
	p := &arena.SearchPlayer{Label: modelName(gen), Settings: arena.ArenaSettings(l.cfg.Gate.Simulations)}
	if gen == 0 {
		set := l.cfg.SelfPlay
		p.NewEvaluator = func(v *engine.Variant, seed uint64) (mcts.Evaluator, error) {
			return mcts.NewRolloutEvaluator(v, set.RolloutPlayouts, set.RolloutPlies, seed)
		}
		return p, nil
	}
	net, err := l.network(gen)
	if err != nil {
		return nil, err
	}
	batch := p.Settings.BatchSize
	p.NewEvaluator = func(v *engine.Variant, seed uint64) (mcts.Evaluator, error) {
		return model.NewEvaluator(v, net, batch, false, seed)
	}
	return p, nil
}

// gate plays the candidate against the best until the SPRT decides or
// gate.max_games are played. Every finished game is journalled as it ends,
// so a killed run loses none and replays none; the games go to one
// Parquet file when the gate is over.
func (l *loop) gate(ctx context.Context, cand, best int) (arena.GateResult, error) {
	gc := l.cfg.Gate
	test := gc.sprt()
	res := arena.GateResult{}
	res.Lower, res.Upper = test.Bounds()
	a, err := l.player(cand)
	if err != nil {
		return res, err
	}
	b, err := l.player(best)
	if err != nil {
		return res, err
	}
	id := "gate-" + modelName(cand)
	recs, err := l.matchGames(ctx, id, arena.Match{Variant: l.v, A: a, B: b, OpeningPlies: gc.OpeningPlies}, gc.MaxGames,
		func(recs []arena.Record) bool {
			res.Penta, res.Decision, res.LLR = pentaOf(recs, a.Name(), test)
			l.prog.update("generation %d arena: %s vs %s: %d games, pairs %v, LLR %.2f in [%.2f, %.2f]",
				cand-1, a.Name(), b.Name(), len(recs), res.Penta, res.LLR, res.Lower, res.Upper)
			return res.Decision != arena.Continue
		})
	if err != nil {
		return res, err
	}
	res.Penta, res.Decision, res.LLR = pentaOf(recs, a.Name(), test)
	res.Records = recs
	return res, nil
}

// gateDecision is "accepted" when the SPRT accepted the candidate;
// "accepted-leaning" when the games ran out undecided with the evidence on
// the candidate's side (LLR > 0) and gate.accept_leaning is set; else
// "rejected".
func gateDecision(res arena.GateResult, gc gateConfig) string {
	switch {
	case res.Accepted():
		return "accepted"
	case gc.AcceptLean && res.Decision == arena.Continue && res.LLR > 0:
		return "accepted-leaning"
	}
	return "rejected"
}

// pentaOf counts the candidate's pair scores over the finished pairs of
// recs and applies the test.
func pentaOf(recs []arena.Record, cand string, test arena.SPRT) (arena.Penta, arena.Decision, float64) {
	type key struct {
		match string
		pair  int32
	}
	half := map[key]float64{}
	var p arena.Penta
	for i := range recs {
		r := &recs[i]
		seat := 0
		if r.Player1 == cand {
			seat = 1
		}
		k := key{r.Match, r.Pair}
		if first, ok := half[k]; ok {
			delete(half, k)
			p.Add(first + r.Score(seat))
		} else {
			half[k] = r.Score(seat)
		}
	}
	d, llr := test.Decide(p)
	return p, d, llr
}

// ladder plays model generation gen against every reference player, once
// per generation that becomes best.
func (l *loop) ladder(ctx context.Context, gen int) error {
	if l.cfg.Gate.LadderPairs == 0 {
		return nil
	}
	me, err := l.player(gen)
	if err != nil {
		return err
	}
	for _, spec := range l.cfg.Gate.Ladder {
		ref, err := referencePlayer(spec)
		if err != nil {
			return err
		}
		id := "ladder-" + modelName(gen) + "-" + strings.ReplaceAll(spec, ":", "")
		_, err = l.matchGames(ctx, id, arena.Match{Variant: l.v, A: me, B: ref, OpeningPlies: l.cfg.Gate.OpeningPlies},
			2*l.cfg.Gate.LadderPairs, func(recs []arena.Record) bool {
				l.prog.update("ladder: %s vs %s: %d/%d games", me.Name(), spec, len(recs), 2*l.cfg.Gate.LadderPairs)
				return false
			})
		if err != nil {
			return err
		}
	}
	return nil
}

// matchGames plays match m, named id, until maxGames games are finished or
// enough says so, journalling each finished game in arena/id.jsonl. When
// the match is over its games go to arena/id.parquet and the journal is
// removed; when that file exists the match is not played again.
func (l *loop) matchGames(ctx context.Context, id string, m arena.Match, maxGames int, enough func([]arena.Record) bool) ([]arena.Record, error) {
	final := filepath.Join(l.dir.arena(), id+arena.RecordExt)
	if _, err := os.Stat(final); err == nil {
		return arena.ReadRecords(final)
	}
	journal := filepath.Join(l.dir.arena(), id+".jsonl")
	recs, err := readJournal(journal)
	if err != nil {
		return nil, err
	}
	if len(recs) < maxGames && !enough(recs) {
		if err := os.MkdirAll(l.dir.arena(), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(journal, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		m.Pairs = (maxGames - len(recs) + 1) / 2
		m.Seed = l.cfg.Loop.Seed ^ hashString(id) ^ uint64(len(recs))<<32
		var werr error
		_, err = m.Run(ctx, func(r *arena.Record) error {
			line, err := json.Marshal(r)
			if err == nil {
				_, err = f.Write(append(line, '\n'))
			}
			if err == nil {
				err = f.Sync()
			}
			if err != nil {
				werr = fmt.Errorf("arena journal %s: %w", journal, err)
				return werr
			}
			recs = append(recs, *r)
			if len(recs) >= maxGames || enough(recs) {
				return arena.ErrStop
			}
			return nil
		})
		if werr != nil {
			return nil, werr
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := arena.WriteRecords(l.dir.arena(), id, recs); err != nil {
		return nil, err
	}
	if err := os.Remove(journal); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return recs, nil
}

// readJournal reads the finished games of a match's journal; a torn last
// line (a kill while writing it) is dropped.
func readJournal(path string) ([]arena.Record, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []arena.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var r arena.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			break
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// ratings fits Elo over every arena game of the run, writes the ladder to
// arena/ratings.csv and the best's rating to metrics/elo.csv, and returns
// the best's Elo.
func (l *loop) ratings(g int) (float64, error) {
	recs, err := arena.ReadRecordDir(l.dir.arena())
	if err != nil {
		return 0, err
	}
	best, err := l.dir.best()
	if errors.Is(err, errNoModel) {
		best = 0
	} else if err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return math.NaN(), nil
	}
	rs, err := arena.FitElo(recs, arena.DefaultEloSettings())
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	fmt.Fprintln(&buf, "player,games,wins,draws,losses,score,elo,low,high")
	eloBest := math.NaN()
	for _, r := range rs {
		fmt.Fprintf(&buf, "%s,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f\n", r.Name, r.Games, r.Wins, r.Draws, r.Losses, r.Score, r.Elo, r.Low, r.High)
		player := r.Name
		switch {
		case r.Name == modelName(best):
			eloBest = r.Elo
			player = "best"
		case !slices.Contains(l.cfg.Gate.Ladder, r.Name) || r.Name == arena.RandomName:
			continue // the anchor is 0 by definition; other models are in ratings.csv
		}
		if err := l.elo.add(g, l.hours(), player, r.Elo, r.Low, r.High, r.Games); err != nil {
			return 0, err
		}
	}
	return eloBest, writeFileAtomic(filepath.Join(l.dir.arena(), "ratings.csv"), buf.Bytes())
}

// plots redraws metrics/elo.png and metrics/loss.png.
func (l *loop) plots() error {
	// One line per player of metrics/elo.csv: the best model (rows named
	// "best", or older rows named by its generation) and the yardsticks.
	h, e := l.elo.column("hours"), l.elo.column("elo")
	byPlayer := map[string]*line{}
	var order []string
	for i, r := range l.elo.rows {
		name := r[2]
		if strings.HasPrefix(name, "gen-") {
			name = "best"
		}
		ln, ok := byPlayer[name]
		if !ok {
			ln = &line{name: name}
			byPlayer[name] = ln
			order = append(order, name)
		}
		ln.x, ln.y = append(ln.x, h[i]), append(ln.y, e[i])
	}
	var lines []line
	for _, name := range order {
		lines = append(lines, *byPlayer[name])
	}
	if err := plotLines(filepath.Join(l.dir.metrics(), "elo.png"), "Elo over time ("+l.v.Name+", random = 0)",
		"hours", "Elo", lines...); err != nil {
		return err
	}
	var tr, va line
	tr.name, va.name = "train", "validation"
	steps, total := l.loss.column("step"), l.loss.column("total")
	for i, r := range l.loss.rows {
		switch r[2] {
		case "train":
			tr.x, tr.y = append(tr.x, steps[i]), append(tr.y, total[i])
		case "val":
			va.x, va.y = append(va.x, steps[i]), append(va.y, total[i])
		}
	}
	return plotLines(filepath.Join(l.dir.metrics(), "loss.png"), "Loss ("+l.v.Name+")", "optimizer steps", "loss", tr, va)
}
