package bench

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/millzero/millzero/dataset"
)

// fitRunText is a run of three of three generations of 48 games, every
// search a full one (a policy target), trained a few steps each.
const fitRunText = "variant: three\ntablebase: \"\"\nmodel: {width: 16, blocks: 1}\nloop: {generations: 3, games: 48, steps: 4}\n" +
	"selfplay: {workers: 1, games_in_flight: 8, full_fraction: 1, search: {simulations: 8}, fast_simulations: 4}\n" +
	"gate: {max_games: 0}\n"

// fitBench opens FitBench on the run in dir, all its generations, 30%
// of the newest's games held out, at batch 16 on one thread.
func fitBench(t *testing.T, dir string) *FitBench {
	t.Helper()
	b, err := NewFitBench(dir, 0, 2, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	b.Train.BatchSize, b.Train.Threads = 16, 1
	return b
}

// gameIDs are the games of the samples of a window over b's games.
func gameIDs(t *testing.T, b *FitBench, opts dataset.WindowOptions) map[string]bool {
	t.Helper()
	w, err := dataset.OpenWindow(b.games, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ids := map[string]bool{}
	for {
		var s dataset.Sample
		if err := w.Next(&s); errors.Is(err, io.EOF) {
			return ids
		} else if err != nil {
			t.Fatal(err)
		}
		ids[s.GameID] = true
	}
}

func TestFitBench_OnARunsGames(t *testing.T) {
	dir := string(trainRun(t, fitRunText))

	t.Run("TheHeldOutGamesAreTheNewestGenerationsAndNeverTrainedOn", func(t *testing.T) {
		b := fitBench(t, dir)
		if b.From != 0 || b.To != 2 || b.Generations != 3 || b.Games != 3*48 {
			t.Fatalf("generations %d-%d, %d with games, %d games: want 0-2, 3 and 144", b.From, b.To, b.Generations, b.Games)
		}
		held := map[string]bool{}
		for _, s := range b.HeldOut {
			held[s.GameID] = true
		}
		trained := gameIDs(t, b, dataset.WindowOptions{Split: dataset.Train, ValFraction: b.ValFraction, HoldoutNewest: true, FullOnly: true})
		all := gameIDs(t, b, dataset.WindowOptions{FullOnly: true})
		newest := gameIDs(t, b, dataset.WindowOptions{Generations: 1, FullOnly: true})
		for id := range held {
			if trained[id] || !newest[id] {
				t.Errorf("held-out game %s: trained on %v, of the newest generation %v: want false, true", id, trained[id], newest[id])
			}
		}
		if len(held) != b.HeldGames || len(held) < 5 || len(held) > 30 || len(trained)+len(held) != len(all) {
			t.Errorf("%d held-out games (HeldGames %d), %d trained, %d in all: want about 30%% of the newest generation's 48, the rest trained",
				len(held), b.HeldGames, len(trained), len(all))
		}
	})

	t.Run("EveryNetIsEvaluatedEveryIntervalAndTheLast", func(t *testing.T) {
		b := fitBench(t, dir)
		nets, err := ParseFitNets("8x1, 16x0")
		if err != nil {
			t.Fatal(err)
		}
		var evaluated int
		res, err := b.Run(context.Background(), nets, 25, 10, func(p FitProgress) {
			if p.Row != nil {
				evaluated++
			}
			if p.Of != 2 || p.Steps != 25 || p.Step < 1 || p.Step > 25 {
				t.Errorf("progress %+v: want net K of 2 at a step of 1..25", p)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Nets) != 2 || evaluated != 6 || res.ValPositions != 16*(len(b.HeldOut)/16) || res.HeldGames != b.HeldGames {
			t.Fatalf("%d nets, %d evaluations, %d positions evaluated of %d held out: want 2, 6, every whole batch", len(res.Nets), evaluated, res.ValPositions, len(b.HeldOut))
		}
		for i, n := range res.Nets {
			if n.Net != nets[i].String() || n.Params < 1 || len(n.Rows) != 3 {
				t.Fatalf("net %d: %+v: want %s with 3 rows", i, n, nets[i])
			}
			for k, r := range n.Rows {
				if want := []int64{10, 20, 25}[k]; r.Step != want {
					t.Errorf("net %s, row %d: step %d, want %d", n.Net, k, r.Step, want)
				}
				for _, x := range []float64{r.TrainPolicy, r.TrainOutcome, r.TrainTotal, r.ValPolicy, r.ValOutcome, r.ValTotal} {
					if !(x > 0) || math.IsInf(x, 0) {
						t.Errorf("net %s, row %d: %+v: want finite positive losses", n.Net, k, r)
						break
					}
				}
				if n.BestPolicy > r.ValPolicy || n.BestOutcome > r.ValOutcome {
					t.Errorf("net %s: best %v, %v above row %d's %+v", n.Net, n.BestPolicy, n.BestOutcome, k, r)
				}
			}
		}
		var out strings.Builder
		res.Write(&out)
		for _, want := range []string{"net 8x1", "net 16x0", "the lowest held-out losses", "elapsed"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("Write lacks %q:\n%s", want, out.String())
			}
		}
	})

	t.Run("TheHeldOutLossFallsAsASmallNetTrains", func(t *testing.T) {
		b := fitBench(t, dir)
		res, err := b.Run(context.Background(), []FitNet{{Width: 16, Blocks: 1}}, 200, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows := res.Nets[0].Rows
		first, last := rows[0], rows[len(rows)-1]
		if !(last.ValPolicy < first.ValPolicy && last.ValOutcome < first.ValOutcome) {
			t.Errorf("held-out policy %.4f -> %.4f, outcome %.4f -> %.4f from step %d to %d: want both lower",
				first.ValPolicy, last.ValPolicy, first.ValOutcome, last.ValOutcome, first.Step, last.Step)
		}
	})

	t.Run("AnInterruptKeepsWhatWasMeasured", func(t *testing.T) {
		b := fitBench(t, dir)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := b.Run(ctx, []FitNet{{Width: 8, Blocks: 1}, {Width: 16, Blocks: 1}}, 40, 10, func(p FitProgress) {
			if p.Row != nil && p.Step == 20 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "net 8x1") || res == nil || len(res.Nets) != 1 || len(res.Nets[0].Rows) != 2 {
			t.Fatalf("%v, %+v: want the cancellation naming net 8x1 and its two rows", err, res)
		}
	})

	t.Run("BadInputIsAnErrorNamingIt", func(t *testing.T) {
		for _, c := range []struct {
			from, to int
			frac     float64
			want     string
		}{
			{5, 9, 0.3, "generations 5-9: no games"},
			{2, 1, 0.3, "generations 2-1: an empty range"},
			{0, 2, 0, "validation fraction 0"},
			{0, 2, 1, "validation fraction 1"},
		} {
			if _, err := NewFitBench(dir, c.from, c.to, c.frac); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("generations %d-%d, fraction %v: %v, want an error with %q", c.from, c.to, c.frac, err, c.want)
			}
		}
		if _, err := NewFitBench(t.TempDir(), -1, -1, 0.3); err == nil || !strings.Contains(err.Error(), "run.yaml") {
			t.Errorf("a directory of no run: %v, want an error naming run.yaml", err)
		}
		b := fitBench(t, dir)
		one := []FitNet{{Width: 8, Blocks: 1}}
		for _, c := range []struct {
			nets         []FitNet
			steps, every int
			batch        int
			want         string
		}{
			{one, 0, 10, 16, "steps 0"},
			{one, 10, 0, 16, "every 0"},
			{nil, 10, 10, 16, "no nets"},
			{one, 10, 10, 100000, "fewer than one batch of 100000"},
			{one, 10, 10, 0, "batch_size 0"},
		} {
			b.Train.BatchSize = c.batch
			if _, err := b.Run(context.Background(), c.nets, c.steps, c.every, nil); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, %d steps every %d, batch %d: %v, want an error with %q", c.nets, c.steps, c.every, c.batch, err, c.want)
			}
		}
		links := b.games
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(links); !os.IsNotExist(err) {
			t.Errorf("the linked games after Close: %v, want them gone", err)
		}
		if files, err := generationShards(b.Dir, 2); err != nil || len(files) == 0 {
			t.Errorf("the run's shards after Close: %v, %v: want them kept", files, err)
		}
	})
}

func TestParseFitNets_WidthByBlocksOrAnErrorNamingTheSpec(t *testing.T) {
	nets, err := ParseFitNets("32x2, 64x2,32x4,16x0")
	if err != nil || len(nets) != 4 || nets[1] != (FitNet{Width: 64, Blocks: 2}) || nets[3].String() != "16x0" {
		t.Fatalf("%+v, %v: want 32x2, 64x2, 32x4 and 16x0", nets, err)
	}
	for _, spec := range []string{"32", "32x", "x2", "32x2x1", "0x2", "-8x2", "32x-1", "32x65", "9000x1", "abcx2", "32X2", ""} {
		if _, err := ParseFitNets("16x1," + spec); err == nil || !strings.Contains(err.Error(), `"`+spec+`"`) {
			t.Errorf("%q: %v, want an error naming it", spec, err)
		}
	}
}
