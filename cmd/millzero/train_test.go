package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/bench"
	"github.com/millzero/millzero/configs"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/solve"
	"github.com/millzero/millzero/internal/atomicfile"
	"github.com/millzero/millzero/internal/syncbuf"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/run"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/store"
)

// TestMain lets a test run the command as a child process: with
// MILLZERO_TEST_MAIN=1 the test binary is millzero.
func TestMain(m *testing.M) {
	if os.Getenv("MILLZERO_TEST_MAIN") == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// waitForLimit bounds waitFor. It is a bound on a stuck child, not a
// timing: on a loaded machine (the whole suite on two cores, other work
// beside it) a generation of three-test played by two workers was seen to
// take more than 30 s.
const waitForLimit = 5 * time.Minute

// waitFor waits until out holds text (or waitForLimit passes): a child's
// start up or progress, before a signal it must handle.
func waitFor(t *testing.T, out *syncbuf.Buffer, text string) {
	t.Helper()
	for end := time.Now().Add(waitForLimit); !strings.Contains(out.String(), text); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the child did not print %q:\n%s", text, out.String())
		}
	}
}

// child starts the command in a child process.
func child(t *testing.T, out *syncbuf.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MILLZERO_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkRun asserts that a finished run of the three-test config has every
// generation once, every game once, every checkpoint, and nothing half
// written.
func checkRun(t *testing.T, dir string, gens int) {
	t.Helper()
	checkRunOf(t, dir, gens, false)
}

// checkRunOf is checkRun; with overlapped (two trainers ran at once for a
// while) a generation may have more games than loop.games: the games a
// trainer that lost its lease finished before it stopped, played as a
// worker's would be.
func checkRunOf(t *testing.T, dir string, gens int, overlapped bool) {
	t.Helper()
	cfg, _, err := runconfig.LoadConfig("three-test")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := engine.Load(cfg.Variant)
	rows := readCSV(t, filepath.Join(dir, "metrics", "generations.csv"))
	if len(rows) != gens+1 {
		t.Fatalf("generations.csv has %d rows, want %d generations:\n%v", len(rows)-1, gens, rows)
	}
	// Self-play's draw share and game length: a generation whose games a
	// killed process played leaves them unknown (an empty cell), never a
	// wrong figure; the others have them.
	share, plies := slices.Index(rows[0], "draw_share"), slices.Index(rows[0], "game_plies")
	if share < 0 || plies < 0 {
		t.Fatalf("generations.csv %v: no draw_share or game_plies column", rows[0])
	}
	known := 0
	for _, r := range rows[1:] {
		if r[share] == "" && r[plies] == "" {
			continue
		}
		d, derr := strconv.ParseFloat(r[share], 64)
		n, nerr := strconv.ParseFloat(r[plies], 64)
		if derr != nil || nerr != nil || d < 0 || d > 1 || n < 1 {
			t.Fatalf("generation %s: draw_share %q, game_plies %q: want a share 0..1 and a length of 1 ply or more", r[0], r[share], r[plies])
		}
		known++
	}
	if known == 0 {
		t.Fatalf("generations.csv %v: no generation with its draw share and game length", rows[0])
	}
	for g := 0; g < gens; g++ {
		if rows[g+1][0] != fmt.Sprint(g) {
			t.Fatalf("row %d is generation %s", g+1, rows[g+1][0])
		}
		n, err := selfplay.CountGames(store.Dir(dir).ShardDir(g))
		if err != nil || n != cfg.Loop.Games && !(overlapped && n > cfg.Loop.Games) {
			t.Fatalf("generation %d has %d games (%v), want exactly %d", g, n, err, cfg.Loop.Games)
		}
		if _, err := model.LoadCheckpointFor(filepath.Join(dir, "models", fmt.Sprintf("gen-%06d.safetensors", g+1)), v); err != nil {
			t.Fatalf("checkpoint of generation %d: %v", g+1, err)
		}
	}
	seen := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(dir, "metrics", "losses.csv"))[1:] {
		key := r[0] + "/" + r[1] + "/" + r[2]
		if seen[key] {
			t.Fatalf("loss row %s written twice", key)
		}
		seen[key] = true
	}
	err = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		// A temporary file of a process killed while writing it is
		// swept when the run resumes (its writer is gone); nothing is
		// left half written.
		if atomicfile.IsTemp(path) || strings.HasSuffix(path, ".jsonl") {
			t.Errorf("left behind: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "arena", "*"+arena.RecordExt))
	for _, f := range files {
		recs, err := arena.ReadRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		games := map[string]bool{}
		for _, r := range recs {
			k := fmt.Sprintf("%s/%d/%d", r.Match, r.Pair, r.Game)
			if games[k] {
				t.Fatalf("%s: game %s recorded twice", f, k)
			}
			games[k] = true
		}
		base := filepath.Base(f)
		switch {
		case strings.HasPrefix(base, "gate-") && len(recs) > cfg.Gate.MaxGames:
			t.Fatalf("%s: %d games, more than max_games %d", f, len(recs), cfg.Gate.MaxGames)
		case strings.HasPrefix(base, "ladder-") && len(recs) != 2*cfg.Gate.LadderPairs:
			t.Fatalf("%s: %d games, want %d", f, len(recs), 2*cfg.Gate.LadderPairs)
		}
	}
	for _, f := range []string{"metrics/elo.png", "metrics/loss.png", "metrics/selfplay.png", "arena/ratings.csv", "run.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestTrain_RunsToItsBudgetAndSaysWhy(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	code, out, errOut := runCmd("train", "--config", "three-test", "--run", dir, "--generations", "2", "--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "stopped: reached the budget of 2 generations") {
		t.Fatalf("output does not say why it stopped:\n%s", out)
	}
	checkRun(t, dir, 2)
	// The profile is complete (a gzipped protobuf), under its own name only.
	if b, err := os.ReadFile(prof); err != nil || len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("--cpuprofile %s: %d bytes, %v; want a gzipped profile", prof, len(b), err)
	}
	if left, _ := filepath.Glob(prof + ".*"); len(left) > 0 {
		t.Errorf("temporary profiles left: %v", left)
	}
	if code, _, errOut := runCmd("train", "--run", dir, "--cpuprofile", filepath.Join(dir, "no", "such", "cpu.pprof")); code == 0 || !strings.Contains(errOut, "--cpuprofile") {
		t.Errorf("a profile in a missing directory: exit %d, %q; want an error naming --cpuprofile", code, errOut)
	}
	// Run again: nothing left to do, nothing redone.
	code, out, _ = runCmd("train", "--run", dir, "--generations", "2")
	if code != 0 || strings.Contains(out, "self-play") {
		t.Fatalf("a finished run did work again (exit %d):\n%s", code, out)
	}
}

// Kill the loop at several moments (SIGINT once, then SIGKILL ten times),
// resume it each time with the same command, and check that no shard,
// checkpoint or arena game is lost or counted twice, and no temporary file
// is left.
func TestTrain_KilledAndResumed_LosesNothingAndCountsNothingTwice(t *testing.T) {
	dir := t.TempDir()
	args := []string{"train", "--config", "three-test", "--run", dir, "--generations", "3"}
	var out syncbuf.Buffer
	cmd := child(t, &out, args...)
	waitFor(t, &out, "run "+dir) // the loop has started, and handles SIGINT
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	interrupted := strings.Contains(out.String(), "stopped: interrupted in generation")
	if code := cmd.ProcessState.ExitCode(); interrupted && code != 130 || !interrupted && code != 0 {
		t.Fatalf("after SIGINT: exit %d, want 130 when interrupted (0 when done)\n%s", code, out.String())
	}
	if !interrupted && !strings.Contains(out.String(), "reached the budget") {
		t.Fatalf("SIGINT: output does not say it was interrupted:\n%s", out.String())
	}
	killed := 0
	for _, d := range []time.Duration{150, 350, 250, 600, 450, 200, 500, 300, 700, 400} {
		out.Reset()
		cmd := child(t, &out, args...)
		time.Sleep(d * time.Millisecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			if err := cmd.Wait(); err != nil {
				killed++
			}
		}
	}
	if killed == 0 {
		t.Log("every child finished before its kill: the run was too quick to interrupt")
	}
	code, o, errOut := runCmd(args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s\n%s", code, errOut, o)
	}
	checkRun(t, dir, 3)
	t.Logf("%d children killed mid-run", killed)
}

func TestTrain_BadConfigNamesTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	cases := []struct{ text, want string }{
		{"loop:\n  gamez: 3\n", "gamez"},
		{"loop:\n  games: 0\n", "games 0"},
		{"selfplay:\n  full_fraction: 2\n", "full_fraction"},
		{"gate:\n  ladder: [stockfish]\n", "stockfish"},
		{"variant: ninety\n", "ninety"},
		{"train:\n  optimizer: adagrad\n", "adagrad"},
		{"selfplay:\n  search: {simulations: 10000000}\n", "simulations 10000000"},
		{"gate:\n  simulations: 10000000\n", "gate: mcts settings: simulations 10000000"},
		{"loop:\n  visits: [{generation: 5, simulations: 10000000}]\n", "simulations 10000000"},
	}
	for _, c := range cases {
		os.WriteFile(path, []byte(c.text), 0o644)
		code, _, errOut := runCmd("train", "--config", path, "--run", t.TempDir())
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want an error naming %q", c.text, code, errOut, c.want)
		}
	}
	code, _, errOut := runCmd("train", "--config", filepath.Join(t.TempDir(), "none.yaml"))
	if code == 0 || !strings.Contains(errOut, "none.yaml") {
		t.Errorf("a missing config: exit %d, %q", code, errOut)
	}
}

// The proof that the loop learns, at test size: Three Men's Morris from
// nothing until the newest model, searching 16 simulations a move, reaches
// the game-theoretic result against the exact solver on both seats, from
// the start and from every one-ply opening, where the untrained network
// with the same search does not. Both kinds of network: three-test's MLP,
// and a graph network on three-test's settings otherwise, given 12
// generations. Self-play runs on one worker and training on two threads
// whatever the machine, so that a run is the same games and the same
// weights on every try (on two workers the order in which games finish
// varies, and the graph network, which reached the result at generation
// 5, 5, 6, 6 and 7 in five such runs, once stayed at 18 of 20 games
// through generation 12).
func TestTrain_ThreeLearnsToPlayPerfectly(t *testing.T) {
	t.Run("mlp", func(t *testing.T) { threeLearns(t, func(*runconfig.Config) {}) })
	t.Run("graph", func(t *testing.T) {
		threeLearns(t, func(c *runconfig.Config) {
			c.Model = model.Config{Kind: model.KindGraph, Width: 32, Blocks: 2, Features: 1}
			c.Loop.Generations = 12
		})
	})
}

// threeLearns trains three-test as change leaves it, its self-play on one
// worker and its training on two threads, a generation at a time until
// its newest model plays perfectly from every opening, and fails if none
// does within the config's generations.
func threeLearns(t *testing.T, change func(*runconfig.Config)) {
	cfg, _, err := runconfig.LoadConfig("three-test")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.Workers, cfg.Train.Threads = 1, 2
	change(&cfg)
	text, err := yaml.Marshal(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "three.yaml")
	if err := os.WriteFile(config, text, 0o644); err != nil {
		t.Fatal(err)
	}
	want := cfg
	if cfg, _, err = runconfig.LoadConfig(config); err != nil || cfg.Variant != "three" || cfg.SelfPlay.Workers != 1 || cfg.Train.Threads != 2 ||
		cfg.Model != want.Model || cfg.Loop.Generations != want.Loop.Generations {
		t.Fatalf("%s: %v, variant %q, %d workers, %d threads, %+v, %d generations: want three on one self-play worker and two training threads, %+v, %d generations",
			config, err, cfg.Variant, cfg.SelfPlay.Workers, cfg.Train.Threads, cfg.Model, cfg.Loop.Generations, want.Model, want.Loop.Generations)
	}
	dir := t.TempDir()
	v, _ := cfg.LoadVariant()
	table, err := solve.Solve(v)
	if err != nil {
		t.Fatal(err)
	}
	score := func(label string, net *model.Network) int {
		games, err := arena.AgainstPerfect(context.Background(), table, bench.NetworkPlayer(label, net, 16))
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for _, g := range games {
			if g.Got == g.Want {
				right++
			}
		}
		t.Logf("%s with 16 simulations: the game-theoretic result in %d of %d games", label, right, len(games))
		return right
	}
	untrained, err := model.New(v.Name, model.NewArch(v, cfg.Model), rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	total := 2 * (1 + 9) // both seats, from the start and the 9 first placements
	if got := score("untrained", untrained); got == total {
		t.Fatal("the untrained network already plays perfectly: the test proves nothing")
	}
	for gen := 1; gen <= cfg.Loop.Generations; gen++ {
		if code, out, errOut := runCmd("train", "--config", config, "--run", dir, "--generations", fmt.Sprint(gen)); code != 0 {
			t.Fatalf("train: exit %d: %s\n%s", code, errOut, out)
		}
		ck, err := model.LoadCheckpointFor(store.Dir(dir).Model(gen), v)
		if err != nil {
			t.Fatal(err)
		}
		if score(store.ModelName(gen), ck.Net) == total {
			return
		}
	}
	t.Fatalf("after %d generations no model reaches the game-theoretic result in every game", cfg.Loop.Generations)
}

func TestTrain_ASecondTrainerOnTheRunExitsAtOnceNamingTheFirst(t *testing.T) {
	dir := t.TempDir()
	var out syncbuf.Buffer
	first := child(t, &out, "train", "--config", "three-test", "--run", dir, "--generations", "3")
	defer func() {
		first.Process.Signal(syscall.SIGINT)
		first.Wait()
	}()
	waitFor(t, &out, "run "+dir)
	start := time.Now()
	code, _, errOut := runCmd("train", "--run", dir)
	if code == 0 || !strings.Contains(errOut, `held by "train"`) || !strings.Contains(errOut, fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Fatalf("second trainer: exit %d, %q; want an error naming the first", code, errOut)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the second trainer took %s to stop", el)
	}
}

// Every argument is checked before the first game: a budget flag out of
// range, and arena --run naming a run of another variant.
func TestTrainAndArena_ArgumentsAreCheckedBeforeTheFirstGame(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"--generations", "-5"}, {"--hours", "-2"}, {"--run-hours", "-1.5"}} {
		code, out, errOut := runCmd(append([]string{"train", "--config", "three-test", "--run", dir}, args...)...)
		if code == 0 || !strings.Contains(errOut, args[0]) || strings.Contains(out, "self-play") {
			t.Errorf("train %v: exit %d, stderr %q, want an error naming %s before any game:\n%s", args, code, errOut, args[0], out)
		}
	}
	l, err := run.OpenTrainer(context.Background(), dir, "three-test", run.TrainerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	code, out, errOut := runCmd("arena", "random", "alphabeta:1", "--games", "2", "--variant", "nine", "--run", dir)
	if code == 0 || !strings.Contains(errOut, "nine") || !strings.Contains(errOut, "three") || strings.Contains(out, "pair 1") {
		t.Errorf("arena of nine into a run of three: exit %d, stderr %q, want an error before any game:\n%s", code, errOut, out)
	}
}

// A trainer whose lease another breaks commits nothing more and stops,
// naming the trainer that took the run; the breaker finishes the run, and
// every generation is in it once.
func TestTrain_BreakLease_TheBrokenTrainerStopsAndNoGenerationIsWrittenTwice(t *testing.T) {
	for _, after := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"train", "--config", "three-test", "--run", dir, "--generations", "3"}
			var out syncbuf.Buffer
			first := child(t, &out, args...)
			waitFor(t, &out, "run "+dir)
			time.Sleep(after)
			code, o, errOut := runCmd(append(args, "--break-lease")...)
			if code != 0 {
				t.Fatalf("the breaking trainer: exit %d: %s\n%s", code, errOut, o)
			}
			first.Wait()
			if code := first.ProcessState.ExitCode(); code == 0 && !strings.Contains(out.String(), "reached the budget") {
				t.Fatalf("the broken trainer exited 0 without finishing:\n%s", out.String())
			} else if code != 0 && !strings.Contains(out.String(), "taken over by another trainer") {
				t.Fatalf("the broken trainer: exit %d without saying its lease was taken:\n%s", code, out.String())
			}
			checkRunOf(t, dir, 3, true)
		})
	}
}

// A search of the most visits a move may take stops soon after SIGINT:
// self-play asks for 100,000 visits a move, and the trainer exits, saved,
// within seconds of the signal.
func TestTrain_ASearchOfTheMostVisitsStopsAtSIGINT(t *testing.T) {
	base, err := configs.Runs.ReadFile("runs/three-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(base), "simulations: 64,", fmt.Sprintf("simulations: %d,", mcts.MaxVisits), 1)
	cfg := filepath.Join(t.TempDir(), "deep.yaml")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out syncbuf.Buffer
	cmd := child(t, &out, "train", "--config", cfg, "--run", dir, "--generations", "1")
	waitFor(t, &out, "run "+dir)
	time.Sleep(2 * time.Second) // into self-play's first searches
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("no exit within 20 s of SIGINT:\n%s", out.String())
	}
	took := time.Since(start)
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d after SIGINT; want 130:\n%s", code, out.String())
	}
	t.Logf("exit %v after SIGINT", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("exit %v after SIGINT; want within seconds", took.Round(time.Millisecond))
	}
}
