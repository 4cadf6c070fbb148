package classic

import (
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// Move-ordering keys: an action is tried in decreasing key order. Keys at
// keyBreak and above are tactical (a mill, a block, a removal); below
// keyQuiet an action is quiet and may be searched reduced; the killers lie
// between.
const (
	keyHash    = 1 << 29 // the table's best action, added to its own key
	keyMill    = 1 << 26 // the action forms a mill
	keyBlock   = 1 << 25 // the action fills the empty point of an opponent's two
	keyBreak   = 1 << 24 // a removal (more when it breaks an opponent's two)
	keyThreat  = 1 << 23 // the action makes a two with its third point empty: a mill to close next
	keyQuiet   = 1 << 22 // the killers sit just above
	historyMax = 1 << 20 // history is halved when an entry passes this
)

// orderKeys sets the ordering key of each of p's actions at ply.
func (s *Searcher) orderKeys(p *engine.Position, ply int, moves []engine.Action, keys []int32, hashMove engine.Action) {
	for i, a := range moves {
		k := s.orderKey(p, ply, a)
		if a == hashMove && hashMove != 0 {
			k += keyHash
		}
		keys[i] = k
	}
}

// orderKey is the ordering key of action a of p at ply, without the hash
// move's bonus.
func (s *Searcher) orderKey(p *engine.Position, ply int, a engine.Action) int32 {
	side := int(p.Side) & 1
	own, opp := p.Pieces[side], p.Pieces[side^1]
	empty := s.v.Board.All &^ (own | opp)
	var key int32
	threat := false
	switch a.Kind() {
	case engine.Place, engine.Move:
		t := a.To()
		after := own | 1<<t
		if a.Kind() == engine.Move {
			after &^= 1 << a.From()
		}
		for j := 0; j < int(s.nLinesAt[t]); j++ {
			l := s.linesAt[t][j]
			al, ol := after&l, opp&l
			if al == l {
				key += keyMill
			}
			if ol&(ol-1) != 0 { // two of theirs (three cannot be: t was empty)
				key += keyBlock
			}
			if ol == 0 && al != l && al&(al-1) != 0 {
				threat = true // two of ours, the third point empty
			}
		}
		if key != 0 {
			return key
		}
	case engine.Remove:
		t := a.To()
		key = keyBreak
		for j := 0; j < int(s.nLinesAt[t]); j++ {
			l := s.linesAt[t][j]
			switch {
			case bits.OnesCount32(opp&l) == 2 && l&empty != 0:
				key += 1 << 12 // a threat of theirs gone
			case bits.OnesCount32(own&l) == 2:
				key += 1 << 11 // one of our twos opened
			}
		}
		return key + int32(bits.OnesCount32(s.v.Board.Adjacent[t]&empty))
	}
	switch a {
	case s.killers[ply][0]:
		return keyQuiet + 2
	case s.killers[ply][1]:
		return keyQuiet + 1
	}
	key = s.history[side][a&4095]
	switch {
	case a.Kind() == engine.Rotate:
	case threat:
		return keyThreat + key/64 // a new mill to close: searched in full, like a block
	default:
		key += s.quietGuess(a, own, opp)
	}
	return key
}

// quietGuess is a small static preference among quiet places and moves:
// points with many neighbours, and lines open to the mover; moving a
// piece off a point that blocks an opponent's two is discouraged.
func (s *Searcher) quietGuess(a engine.Action, own, opp uint32) int32 {
	t := a.To()
	g := 4 * int32(s.degree[t])
	if a.Kind() == engine.Move {
		for j := 0; j < int(s.nLinesAt[t]); j++ {
			if l := s.linesAt[t][j]; opp&l == 0 && bits.OnesCount32(own&l) == 1 {
				g += 32
			}
		}
		f := a.From()
		for j := 0; j < int(s.nLinesAt[f]); j++ {
			if ol := opp & s.linesAt[f][j]; ol&(ol-1) != 0 {
				g -= 64
			}
		}
	}
	return g
}

// pickBest moves the action with the highest key among moves[i:] to i.
func pickBest(moves []engine.Action, keys []int32, i int) {
	b := i
	for j := i + 1; j < len(keys); j++ {
		if keys[j] > keys[b] {
			b = j
		}
	}
	if b != i {
		moves[i], moves[b] = moves[b], moves[i]
		keys[i], keys[b] = keys[b], keys[i]
	}
}
