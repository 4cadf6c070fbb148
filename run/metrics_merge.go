package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"

	"github.com/millzero/millzero/store"
)

// leaseColumn is the column of generations.csv and losses.csv that holds
// the token (leaseTag) of the trainer's lease under which a row was
// written: two trainers that overlapped (a lease broken, or taken in an
// outage) write rows that can be told apart.
const leaseColumn = "lease"

// leaseTag is the short form of a lease token written in the metrics.
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
func (l *Loop) reconcileMetrics(ctx context.Context) error {
	return l.commit(ctx, l.reconcileTables)
}

// reconcileTables is reconcileMetrics under the lease.
func (l *Loop) reconcileTables(ctx context.Context) error {
	tables := []struct {
		s    *series
		name string
	}{{l.gens, store.GenerationsTable}, {l.loss, store.LossesTable}, {l.elo, store.EloTable}, {l.str, store.StrengthTable}, {l.phases, store.PhasesTable}}
	for _, t := range tables {
		s, name := t.s, t.name
		local, err := s.load()
		if err != nil {
			return err
		}
		rows, store := local.rows, local.rows
		if !l.wd.Local() {
			if store, err = l.storeCopy(ctx, name, s.header); err != nil {
				return err
			}
			rows = mergeByGeneration(local.rows, store, slices.Index(s.header, leaseColumn))
		}
		if s == l.gens {
			var why string
			if rows, why = repairGenerations(rows); why != "" {
				l.prog.Done("run %s: %s", l.loc, why)
			}
		}
		if s == l.loss {
			gens, err := l.gens.load()
			if err != nil {
				return err
			}
			genLease := map[int]string{}
			at := slices.Index(l.gens.header, leaseColumn)
			for _, r := range gens.rows {
				if g, err := strconv.Atoi(r[0]); err == nil {
					genLease[g] = r[at]
				}
			}
			rows = keepCommittedLosses(rows, slices.Index(s.header, leaseColumn), genLease)
		}
		same := func(a, b [][]string) bool { return slices.EqualFunc(a, b, slices.Equal) }
		if !same(rows, local.rows) {
			if err := s.write(rows); err != nil {
				return err
			}
		}
		if !same(rows, store) {
			if err := l.wd.Push(ctx, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// storeCopy reads the store's copy of the metrics table name (none: no
// rows), its columns mapped onto header as openSeries maps an older file's.
func (l *Loop) storeCopy(ctx context.Context, name string, header []string) ([][]string, error) {
	data, err := l.wd.Store().Get(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", "millzero-metrics-*.csv")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	s := &series{path: tmp.Name(), header: header}
	rows, _, err := s.read()
	if err != nil {
		return nil, fmt.Errorf("the store's %s: %w", name, err)
	}
	return rows, nil
}
