package run

import (
	"strings"
	"testing"
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
