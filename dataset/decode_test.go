package dataset

import (
	"testing"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// rowOf deconstructs s into a parquet.Row of rowSchema.
func rowOf(s *Sample) parquet.Row {
	var r row
	r.fromSample(s)
	return rowSchema.Deconstruct(nil, &r)
}

func TestDecode_ReusesThePolicyStorageAndTheGameID(t *testing.T) {
	samples := playGames(t, "nine", 1, 41, 0, 10)
	var d decoder
	var s Sample
	s.Policy = make([]PolicyEntry, 0, 64)
	storage := &s.Policy[:1][0]
	var id *byte
	for i := range samples {
		if err := d.decode(rowOf(&samples[i]), &s); err != nil {
			t.Fatal(err)
		}
		if &s.Policy[0] != storage {
			t.Fatalf("row %d: the policy was reallocated", i)
		}
		if i > 0 && unsafe.StringData(s.GameID) != id {
			t.Fatalf("row %d: a new string for the game id of the row before", i)
		}
		id = unsafe.StringData(s.GameID)
	}
	r := rowOf(&samples[3])
	if allocs := testing.AllocsPerRun(100, func() {
		if err := d.decode(r, &s); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("decode allocates %v times per row", allocs)
	}
}

func TestDecode_PolicyColumnsOfUnequalLengthAreAnError(t *testing.T) {
	samples := playGames(t, "nine", 1, 42, 0, 3)
	r := rowOf(&samples[1])
	// Drop the last probability of the policy list.
	last := -1
	for i, v := range r {
		if fieldOf[v.Column()] == fProb {
			last = i
		}
	}
	short := append(append(parquet.Row(nil), r[:last]...), r[last+1:]...)
	var d decoder
	var s Sample
	if err := d.decode(short, &s); err == nil {
		t.Fatal("decode accepted a policy with an action missing its probability")
	}
}
