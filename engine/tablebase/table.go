package tablebase

import "fmt"

// Outcome is a position's result with perfect play, for the side to move.
type Outcome uint8

// The outcomes. unused marks the indices of a table that are not the
// canonical index of any position (see index).
const (
	Draw   Outcome = 0
	Win    Outcome = 1
	Loss   Outcome = 2
	unused Outcome = 3
)

func (o Outcome) String() string {
	switch o {
	case Draw:
		return "draw"
	case Win:
		return "win"
	case Loss:
		return "loss"
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// flip is the outcome for the other side.
func (o Outcome) flip() Outcome {
	switch o {
	case Win:
		return Loss
	case Loss:
		return Win
	}
	return o
}

// maxNeed is the largest distance an entry holds (14 bits).
const maxNeed = 1<<14 - 1

// Table is one material's solved values: for each canonical position, its
// outcome for the side to move and the distance of a win or loss (see
// Value). It is immutable; share it freely.
type Table struct {
	x     *index
	width int    // bytes per entry: 1 (2 bits outcome, 6 bits distance) or 2 (2 bits, 14 bits)
	data  []byte // the entries, little-endian
	path  string // the file it was read from, or "" when built in memory
}

// Material is the table's material.
func (t *Table) Material() Material { return t.x.mat }

// Entries is the number of indices of the table (canonical or not).
func (t *Table) Entries() uint64 { return t.x.size }

// Bytes is the size of the table's entries in memory.
func (t *Table) Bytes() int { return len(t.data) }

// entry is the outcome and distance stored at index i.
func (t *Table) entry(i uint64) (Outcome, int) {
	if t.width == 1 {
		e := t.data[i]
		return Outcome(e >> 6), int(e & 63)
	}
	e := uint16(t.data[2*i]) | uint16(t.data[2*i+1])<<8
	return Outcome(e >> 14), int(e & maxNeed)
}

// encode packs solved work entries (outcome in bits 14..15, distance in
// 0..13; the rest is ignored)
// into a table's bytes, one byte each when every distance fits in 6 bits.
func encode(work []uint32) (width int, data []byte) {
	most := 0
	for _, w := range work {
		most = max(most, int(w&maxNeed))
	}
	if most < 64 {
		data = make([]byte, len(work))
		for i, w := range work {
			e := uint16(w)
			data[i] = byte(e>>14)<<6 | byte(e&63)
		}
		return 1, data
	}
	data = make([]byte, 2*len(work))
	for i, w := range work {
		e := uint16(w)
		data[2*i], data[2*i+1] = byte(e), byte(e>>8)
	}
	return 2, data
}

// Stats are the counts of a table's positions (one per symmetry class)
// and its longest distance.
type Stats struct {
	Wins, Draws, Losses int64   // positions won, drawn, lost for the side to move
	MaxPlies            int     // the longest distance of a win or loss
	MaxOutcome          Outcome // the outcome at that distance
	MaxMover, MaxOpp    uint32  // a position at that distance: the mover's and the opponent's points
}

// Stats counts the table's outcomes and finds its longest distance.
func (t *Table) Stats() Stats {
	var s Stats
	at := uint64(0)
	for i := range t.x.size {
		o, d := t.entry(i)
		switch o {
		case Win:
			s.Wins++
		case Draw:
			s.Draws++
		case Loss:
			s.Losses++
		}
		if o != unused && d > s.MaxPlies {
			s.MaxPlies, s.MaxOutcome, at = d, o, i
		}
	}
	s.MaxMover, s.MaxOpp = t.x.position(at)
	return s
}

// Path is the file the table was read from or written to, or "".
func (t *Table) Path() string { return t.path }
