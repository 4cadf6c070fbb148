package play

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/millzero/millzero/engine"
)

// Seats is a set of seats, bit s for seat s: the seats people play in a
// game (the model plays the others).
type Seats uint8

// SeatsOf is the set holding just seat.
func SeatsOf(seat int) Seats { return Seats(1) << seat }

// Has reports whether seat is in the set.
func (s Seats) Has(seat int) bool { return seat >= 0 && seat < 8 && s>>seat&1 != 0 }

// First is the lowest seat in the set, or 0 when it is empty.
func (s Seats) First() int {
	if s == 0 {
		return 0
	}
	return bits.TrailingZeros8(uint8(s))
}

// List is the seats in the set, lowest first.
func (s Seats) List() []int {
	var l []int
	for m := s; m != 0; m &= m - 1 {
		l = append(l, bits.TrailingZeros8(uint8(m)))
	}
	return l
}

// For is the set as it applies to a game of v: its seats that v has, or,
// when none of them is, the seat closest to its first.
func (s Seats) For(v *engine.Variant) Seats {
	if t := s & (1<<v.Players - 1); t != 0 {
		return t
	}
	return SeatsOf(min(s.First(), v.Players-1))
}

// ParseSeats reads the seats people play: one seat as ParseSeat reads it,
// several separated by commas ("1,3": two people, the model on the other
// seats), or "all" (every seat a person: a game passed round one screen).
func ParseSeats(v *engine.Variant, s string) (Seats, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") {
		return 1<<v.Players - 1, nil
	}
	var set Seats
	for _, part := range strings.Split(s, ",") {
		seat, err := ParseSeat(v, part)
		if err != nil {
			return 0, err
		}
		if set.Has(seat) {
			return 0, fmt.Errorf("seats %q: seat %d named twice", s, seat+1)
		}
		set |= SeatsOf(seat)
	}
	return set, nil
}
