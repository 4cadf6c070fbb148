package run

import (
	"context"
	"strings"
	"testing"

	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// rowsOf parses "g,a,lease;g,a,lease" into rows.
func rowsOf(s string) [][]string {
	var out [][]string
	for _, r := range strings.Split(s, ";") {
		if r != "" {
			out = append(out, strings.Split(r, ","))
		}
	}
	return out
}

func joinRows(rows [][]string) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, strings.Join(r, ","))
	}
	return strings.Join(parts, ";")
}

func TestMergeByGeneration_AnOlderStoreCopyNeverOverwritesNewerLocalRows(t *testing.T) {
	for _, c := range []struct{ name, local, store, want string }{
		{"the store lacks what an outage kept from it",
			"0,a,T;1,b,T;1,c,T;2,d,T", "0,a,T", "0,a,T;1,b,T;1,c,T;2,d,T"},
		{"empty cells in the store's older row are filled from the same lease's",
			"0,a,T;1,x,T", "0,a,T;1,,T", "0,a,T;1,x,T"},
		{"another trainer committed a generation: the store's rows win",
			"0,a,T;1,mine,T", "0,a,T;1,theirs,U;2,more,U", "0,a,T;1,theirs,U;2,more,U"},
		{"only the store has the run", "", "0,a,T;1,b,T", "0,a,T;1,b,T"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := joinRows(mergeByGeneration(rowsOf(c.local), rowsOf(c.store), 2))
			if got != c.want {
				t.Fatalf("merge = %s; want %s", got, c.want)
			}
		})
	}
}

func TestRepairGenerations_OneRowPerGenerationWithoutGaps(t *testing.T) {
	rows, why := repairGenerations(rowsOf("0,a;1,b;2,c;2,d;3,e;4,f;6,g"))
	if got := joinRows(rows); got != "0,a;1,b;2,d;3,e;4,f" || why == "" {
		t.Fatalf("repair = %s (%q); want 0,a;1,b;2,d;3,e;4,f and a reason", got, why)
	}
	rows, why = repairGenerations(rowsOf("0,a;1,b"))
	if joinRows(rows) != "0,a;1,b" || why != "" {
		t.Fatalf("a sound table changed: %s (%q)", joinRows(rows), why)
	}
}

func TestKeepCommittedLosses_TheCommittingTrainersRowsOnly(t *testing.T) {
	rows := keepCommittedLosses(rowsOf("0,1,T;1,1,T;1,1,U;1,2,U;2,1,V"), 2, map[int]string{0: "T", 1: "U"})
	if got := joinRows(rows); got != "0,1,T;1,1,U;1,2,U;2,1,V" {
		t.Fatalf("losses = %s", got)
	}
}

// A trainer whose uploads failed (an outage) has newer metrics in its cache
// than the store: when it opens the run again, the store's older copy does
// not overwrite them, and the store gets them.
func TestReconcileMetrics_TheStoresOlderCopyNeverOverwritesTheCache(t *testing.T) {
	ctx := context.Background()
	st := sharedStore(t)
	cache := t.TempDir()
	open := func() *Trainer {
		l, err := openTrainerOn(ctx, st, "mem://test", trainerRequest(t, "three-test"), TrainerOptions{Options: Options{Cache: cache}})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open()
	tag := leaseTag(l.lease)
	row := func(g int) runmetrics.GenRow {
		return runmetrics.GenRow{Generation: g, Hours: 0.1, Games: 16, MovesPerS: 1, TrainLoss: 2, ValLoss: 2.1, Candidate: store.ModelName(g + 1),
			Decision: "accepted", Pairs: "0/0/0/0/0", Best: store.ModelName(g + 1), SelfplayS: 1, TrainS: 1, GateS: 1, LadderS: 1,
			SearchKL: 0.1, DrawShare: 0.2, GamePlies: 30, TargetEntropy: 0.5, Lease: tag}
	}
	if err := l.gens.Add(row(0)); err != nil {
		t.Fatal(err)
	}
	if err := l.wd.Push(ctx, "metrics/generations.csv"); err != nil { // the store has generation 0
		t.Fatal(err)
	}
	if err := l.gens.Add(row(1)); err != nil { // generation 1's upload failed
		t.Fatal(err)
	}
	for g := range 2 {
		if err := l.loss.Replace(g, runmetrics.LossRow{Generation: g, Step: 10, Split: "train", LR: 0.002, Total: 2, Policy: 1, Outcome: 1, Lease: tag}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	l = open()
	defer l.lease.Release(ctx)
	if got := strings.Join(mustLoad(t, l.gens).text("generation"), ","); got != "0,1" {
		t.Errorf("the cache's generations.csv has %s after reopening; want 0,1", got)
	}
	if got := strings.Join(mustLoad(t, l.loss).text("generation"), ","); got != "0,1" {
		t.Errorf("the cache's losses.csv has generations %s; want 0,1", got)
	}
	data, err := st.Get(ctx, "metrics/generations.csv")
	if err != nil || strings.Count(string(data), "\n") != 3 {
		t.Errorf("the store's generations.csv after reopening:\n%s (%v); want the header and two rows", data, err)
	}
}
