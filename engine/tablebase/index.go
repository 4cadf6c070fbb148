package tablebase

import (
	"sort"
	"strconv"
)

// Material is a table's piece count: the side to move has Mover pieces on
// the board, the other side Opponent, neither has any in hand. A material
// is the same for white to move and black to move (the rules treat the
// seats alike once every piece is placed), so each file serves both.
type Material struct {
	Mover, Opponent int
}

// String is the material as "4v3": the mover's pieces first.
func (m Material) String() string { return strconv.Itoa(m.Mover) + "v" + strconv.Itoa(m.Opponent) }

// moverSets is the canonical forms of the sets of k points under the
// board's symmetries, shared by every material whose mover has k pieces.
type moverSets struct {
	k     int
	reps  []uint32  // the canonical sets (the least image of each orbit), ascending
	stab  [][]uint8 // for each, the symmetries other than the identity that fix it
	repOf []int32   // by colex rank of a set: the index of its canonical form
	symOf []uint8   // by colex rank of a set: a symmetry that maps it to its canonical form
}

func newMoverSets(r *rules, k int) *moverSets {
	n := r.binom[r.points][k]
	ms := &moverSets{k: k, repOf: make([]int32, n), symOf: make([]uint8, n)}
	canon := make([]uint32, n)
	m := uint32(1)<<k - 1
	for i := uint64(0); i < n; i, m = i+1, nextSubset(m) {
		best, bestSym := m, 0
		for s := 1; s < len(r.symBytes); s++ {
			if x := r.mapBits(s, m); x < best {
				best, bestSym = x, s
			}
		}
		canon[i] = best
		ms.symOf[i] = uint8(bestSym)
		if best == m {
			ms.reps = append(ms.reps, m) // ascending: m grows with i
		}
	}
	for i := range canon {
		ms.repOf[i] = int32(sort.Search(len(ms.reps), func(j int) bool { return ms.reps[j] >= canon[i] }))
	}
	ms.stab = make([][]uint8, len(ms.reps))
	for i, rep := range ms.reps {
		for s := 1; s < len(r.symBytes); s++ {
			if r.mapBits(s, rep) == rep {
				ms.stab[i] = append(ms.stab[i], uint8(s))
			}
		}
	}
	return ms
}

// index numbers the positions of one material: the mover's set in its
// canonical form (by the board's symmetries), times the opponent's set
// ranked among the points left. Two positions that a symmetry maps onto
// each other have one canonical index; when the mover's set is symmetric
// itself, the other images of the opponent's set have indices too, which
// are marked unused.
type index struct {
	r    *rules
	mat  Material
	ms   *moverSets
	per  uint64 // opponent sets per mover set: C(points - mover, opponent)
	size uint64
}

func newIndex(r *rules, ms *moverSets, mat Material) *index {
	per := r.binom[r.points-mat.Mover][mat.Opponent]
	return &index{r: r, mat: mat, ms: ms, per: per, size: per * uint64(len(ms.reps))}
}

// of is the canonical index of the position where the mover has the set
// mover and the other side opp.
func (x *index) of(mover, opp uint32) uint64 {
	r := x.r
	k := r.colexRank(mover)
	ri := x.ms.repOf[k]
	rep := x.ms.reps[ri]
	o := r.mapBits(int(x.ms.symOf[k]), opp)
	best := o
	for _, s := range x.ms.stab[ri] {
		if y := r.mapBits(int(s), o); y < best {
			best = y
		}
	}
	return uint64(ri)*x.per + r.rankAmong(best, r.all&^rep)
}

// position is the mover's and the opponent's sets at index i.
func (x *index) position(i uint64) (mover, opp uint32) {
	rep := x.ms.reps[i/x.per]
	return rep, x.r.unrankAmong(i%x.per, x.mat.Opponent, x.r.all&^rep)
}

// canonical reports whether the opponent's set opp, beside the canonical
// mover's set of rep index ri, is the least of its images under the
// symmetries that fix the mover's set.
func (x *index) canonical(ri int, opp uint32) bool {
	for _, s := range x.ms.stab[ri] {
		if x.r.mapBits(int(s), opp) < opp {
			return false
		}
	}
	return true
}

// each calls f for every index of mover set ri, in order, with the
// opponent's set there.
func (x *index) each(ri int, f func(i uint64, opp uint32)) {
	rep := x.ms.reps[ri]
	free := x.r.all &^ rep
	b := x.mat.Opponent
	base := uint64(ri) * x.per
	c := uint32(1)<<b - 1
	for j := uint64(0); j < x.per; j++ {
		f(base+j, deposit(c, free))
		if j+1 < x.per {
			c = nextSubset(c)
		}
	}
}
