// Package seed derives every seed of a run from the run's one seed and a
// purpose: the self-play of a generation, a worker's search, a game of a
// match. A run given the same seed then plays, trains and measures the
// same, and two purposes never share a random stream by accident.
package seed

import (
	"encoding/binary"
	"hash/fnv"
)

// Derive is the seed for purpose (a short fixed name such as "selfplay")
// and its parts (a generation, a worker, a game) under base: FNV-1a over
// all of them, then the splitmix64 finaliser, so that seeds of neighbouring
// parts are unrelated.
func Derive(base uint64, purpose string, parts ...uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], base)
	h.Write(b[:])
	h.Write([]byte(purpose))
	for _, p := range parts {
		binary.LittleEndian.PutUint64(b[:], p)
		h.Write(b[:])
	}
	return mix(h.Sum64())
}

// mix is splitmix64's finaliser: every bit of x moves about half the bits
// of the result.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
