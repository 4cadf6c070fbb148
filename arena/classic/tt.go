package classic

import (
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// Bound says what a stored score is: exact, or a bound on the true value.
const (
	boundNone  uint8 = 0
	boundUpper uint8 = 1 // the true value is at most the score (no move reached alpha)
	boundLower uint8 = 2 // the true value is at least the score (a move reached beta)
	boundExact uint8 = boundUpper | boundLower
)

// entry is one slot of the transposition table, 16 bytes.
type entry struct {
	key   uint64        // the full key of the position, 0 when empty
	move  engine.Action // the best or refuting action found, 0 if none
	score int16         // the score for the side to move, wins relative to the node (see toTT)
	depth int8          // the remaining depth searched
	bound uint8         // boundUpper, boundLower, boundExact
	age   uint8         // the search that wrote it
	_     [1]byte
}

// table is the transposition table: buckets of two entries, the first kept
// for the deeper search, the second always replaced. It is allocated once.
type table struct {
	e    []entry
	mask uint64 // len(e)/2-1: the bucket of a key is key&mask
	age  uint8
}

// newTable makes a table of about mb megabytes (a power of two of
// entries, at least 1024).
func newTable(mb int) table {
	n := uint64(mb) << 20 / 16
	if n < 1024 {
		n = 1024
	}
	n = 1 << (63 - bits.LeadingZeros64(n)) // round down to a power of two
	t := table{e: make([]entry, n), mask: n/2 - 1}
	// Touch every page now, so that the first search does not pay the
	// page faults of a fresh allocation node by node.
	for i := 0; i < len(t.e); i += 4096 / 16 {
		t.e[i].age = 1
		t.e[i].age = 0
	}
	return t
}

// clear empties the table.
func (t *table) clear() {
	clear(t.e)
	t.age = 0
}

// probe returns the entry of key, or nil.
func (t *table) probe(key uint64) *entry {
	b := t.e[(key&t.mask)*2:]
	if b[0].key == key {
		return &b[0]
	}
	if b[1].key == key {
		return &b[1]
	}
	return nil
}

// store records a search's result for key.
func (t *table) store(key uint64, move engine.Action, score int16, depth int, bound uint8) {
	b := t.e[(key&t.mask)*2:]
	d := int8(depth)
	var e *entry
	switch {
	case b[0].key == key:
		e = &b[0]
	case b[1].key == key:
		e = &b[1]
	case b[0].age != t.age || d >= b[0].depth:
		b[1] = b[0] // the deeper slot's old entry is demoted, not lost
		e = &b[0]
	default:
		e = &b[1]
	}
	if e.key == key && move == 0 {
		move = e.move // keep the known best action when this search found none
	}
	*e = entry{key: key, move: move, score: score, depth: d, bound: bound, age: t.age}
}
