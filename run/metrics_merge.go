package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"

	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// leaseTag is the short form of a lease token written in the metrics
// (runmetrics.LeaseColumn).
func leaseTag(l *store.Lease) string {
	if l == nil {
		return ""
	}
	tok := l.Info().Token
	return tok[:min(12, len(tok))]
}

// genRows is a table's rows grouped by generation (the first cell), in
// order of first appearance; rows whose first cell is not a generation
// are dropped.
func genRows(rows [][]string) map[int][][]string {
	out := map[int][][]string{}
	for _, r := range rows {
		if g, err := strconv.Atoi(r[0]); err == nil && g >= 0 {
			out[g] = append(out[g], r)
		}
	}
	return out
}

// filled is how many cells of rows are not empty.
func filled(rows [][]string) int {
	n := 0
	for _, r := range rows {
		for _, c := range r {
			if c != "" {
				n++
			}
		}
	}
	return n
}

// mergeByGeneration merges two copies of one metrics table, the trainer's
// local one and the store's, generation by generation, so that an older
// copy never overwrites newer rows: a generation only one copy has is
// taken from it; a generation both have is taken from the store when the
// two were written under different leases (another trainer committed it),
// else from the copy with more rows, then more filled cells (the local
// copy of a trainer whose uploads failed in an outage); on a tie the
// store's. leaseAt is the index of the lease column, or -1.
func mergeByGeneration(local, store [][]string, leaseAt int) [][]string {
	lg, sg := genRows(local), genRows(store)
	var gens []int
	for g := range lg {
		gens = append(gens, g)
	}
	for g := range sg {
		if _, ok := lg[g]; !ok {
			gens = append(gens, g)
		}
	}
	slices.Sort(gens)
	var out [][]string
	for _, g := range gens {
		l, s := lg[g], sg[g]
		pick := s
		switch {
		case s == nil:
			pick = l
		case l == nil:
		case leaseAt >= 0 && l[len(l)-1][leaseAt] != s[len(s)-1][leaseAt]:
		case len(l) > len(s), len(l) == len(s) && filled(l) > filled(s):
			pick = l
		}
		out = append(out, pick...)
	}
	return out
}

// repairGenerations makes generations.csv's rows one per generation from 0
// up without a gap: of a generation written twice (two trainers that
// overlapped) the last row is kept; rows after a missing generation are
// dropped (the loop makes them again from what is saved: a generation
// whose candidate is saved is not trained again). It returns the rows and
// what it changed, for the user ("" when nothing).
func repairGenerations(rows [][]string) ([][]string, string) {
	byGen := genRows(rows)
	var out [][]string
	for g := 0; ; g++ {
		rs, ok := byGen[g]
		if !ok {
			break
		}
		out = append(out, rs[len(rs)-1])
	}
	if len(out) == len(rows) {
		return rows, ""
	}
	return out, fmt.Sprintf("generations.csv had %d rows for %d generations in a row from 0 (a generation written twice, or one missing): kept one row each for generations 0 to %d",
		len(rows), len(out), len(out)-1)
}

// keepCommittedLosses drops the loss rows of a generation written under
// another lease than the one generations.csv commits it with (genLease:
// generation -> tag), when rows of the committing lease exist: of two
// trainers that trained one generation, the losses of the one whose
// candidate went on.
func keepCommittedLosses(rows [][]string, leaseAt int, genLease map[int]string) [][]string {
	have := map[int]map[string]bool{}
	for _, r := range rows {
		g, err := strconv.Atoi(r[0])
		if err != nil {
			continue
		}
		if have[g] == nil {
			have[g] = map[string]bool{}
		}
		have[g][r[leaseAt]] = true
	}
	return slices.DeleteFunc(rows, func(r []string) bool {
		g, err := strconv.Atoi(r[0])
		if err != nil {
			return false
		}
		want, ok := genLease[g]
		return ok && want != "" && have[g][want] && r[leaseAt] != want
	})
}

// reconcileMetrics is the trainer's first step on a run's metrics: the
// store's copy of each table is merged with the local one by generation
// (mergeByGeneration; a run in a local directory has one copy), then
// generations.csv is repaired (repairGenerations) and losses.csv keeps the
// committed lease's rows; a table is written where it changed and uploaded
// where the store's copy differs. It is one commit.
func (t *Trainer) reconcileMetrics(ctx context.Context) error {
	return t.commit(ctx, t.reconcileTables)
}

// rawTable is a metrics table read and written as text
// (runmetrics.Table's), as the merges of reconcileTables take it.
type rawTable interface {
	Raw() ([][]string, error)
	WriteRaw(rows [][]string) error
	Header() []string
}

// reconcileTables is reconcileMetrics under the lease.
func (t *Trainer) reconcileTables(ctx context.Context) error {
	for _, tb := range []struct {
		table rawTable
		name  string
	}{{t.gens, store.GenerationsTable}, {t.loss, store.LossesTable}, {t.elo, store.EloTable}, {t.str, store.StrengthTable}, {t.phases, store.PhasesTable}} {
		if err := t.reconcileTable(ctx, tb.table, tb.name); err != nil {
			return err
		}
	}
	return nil
}

// reconcileTable merges and repairs the metrics table name (as
// reconcileMetrics says), writing and uploading it where it changed.
func (t *Trainer) reconcileTable(ctx context.Context, table rawTable, name string) error {
	local, err := table.Raw()
	if err != nil {
		return err
	}
	rows, stored := local, local
	if !t.wd.Local() {
		if stored, err = t.storeCopy(ctx, name, table.Header()); err != nil {
			return err
		}
		rows = mergeByGeneration(local, stored, slices.Index(table.Header(), runmetrics.LeaseColumn))
	}
	switch name {
	case store.GenerationsTable:
		var why string
		if rows, why = repairGenerations(rows); why != "" {
			t.prog.Done("run %s: %s", t.loc, why)
		}
	case store.LossesTable:
		gens, err := t.gens.Rows()
		if err != nil {
			return err
		}
		genLease := map[int]string{}
		for _, r := range gens {
			genLease[r.Generation] = r.Lease
		}
		rows = keepCommittedLosses(rows, slices.Index(table.Header(), runmetrics.LeaseColumn), genLease)
	}
	same := func(a, b [][]string) bool { return slices.EqualFunc(a, b, slices.Equal) }
	if !same(rows, local) {
		if err := table.WriteRaw(rows); err != nil {
			return err
		}
	}
	if !same(rows, stored) {
		return t.wd.Push(ctx, name)
	}
	return nil
}

// storeCopy reads the store's copy of the metrics table name (none: no
// rows), its columns mapped onto header as an older file's are.
func (t *Trainer) storeCopy(ctx context.Context, name string, header []string) ([][]string, error) {
	data, err := t.wd.Store().Get(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := runmetrics.ReadRaw(name, header, data)
	if err != nil {
		return nil, fmt.Errorf("the store's %s: %w", name, err)
	}
	return rows, nil
}
