package dataset

import (
	"fmt"
	"testing"
)

func TestInValidation_SameAnswerForAGameAtEveryFraction(t *testing.T) {
	for _, tc := range []struct {
		fraction float64
		min, max int // of 10000 ids
	}{
		{0, 0, 0},
		{0.01, 60, 140},
		{0.2, 1850, 2150},
		{0.5, 4850, 5150},
		{1, 10000, 10000},
	} {
		n := 0
		for i := 0; i < 10000; i++ {
			id := fmt.Sprintf("host-%d-%d", i%7, i)
			in := InValidation(id, tc.fraction)
			if in != InValidation(id, tc.fraction) {
				t.Fatalf("%s: two answers at fraction %v", id, tc.fraction)
			}
			// Growing the fraction only adds games to validation.
			if in && !InValidation(id, tc.fraction+0.1) {
				t.Fatalf("%s: in validation at %v but not at %v", id, tc.fraction, tc.fraction+0.1)
			}
			if in {
				n++
			}
		}
		if n < tc.min || n > tc.max {
			t.Errorf("fraction %v: %d of 10000 games in validation, want %d..%d", tc.fraction, n, tc.min, tc.max)
		}
	}
}
