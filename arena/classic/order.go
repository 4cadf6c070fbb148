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
	switch a.Kind() {
	case engine.Place, engine.Move:
		t := a.To()
		after := own | 1<<t
		if a.Kind() == engine.Move {
			after &^= 1 << a.From()
		}
		for j := 0; j < int(s.nLinesAt[t]); j++ {
			l := s.linesAt[t][j]
			if after&l == l {
				key += keyMill
			}
			if bits.OnesCount32(opp&l) == 2 {
				key += keyBlock
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
	if a.Kind() != engine.Rotate {
		if s.threatens(a, own, opp) {
			return keyThreat + key/64 // a new mill to close: searched in full, like a block
		}
		key += s.quietGuess(a, own, opp, empty)
	}
	return key
}

// quietGuess is a small static preference among quiet places and moves:
// building a two of one's own on an open line, and points with many
// neighbours; moving a piece off a point that blocks an opponent's two is
// discouraged.
func (s *Searcher) quietGuess(a engine.Action, own, opp, empty uint32) int32 {
	t := a.To()
	var g int32
	for j := 0; j < int(s.nLinesAt[t]); j++ {
		l := s.linesAt[t][j]
		if opp&l == 0 && bits.OnesCount32(own&l) == 1 {
			g += 32
		}
	}
	g += 4 * int32(bits.OnesCount32(s.v.Board.Adjacent[t]))
	if a.Kind() == engine.Move {
		f := a.From()
		for j := 0; j < int(s.nLinesAt[f]); j++ {
			if bits.OnesCount32(opp&s.linesAt[f][j]) == 2 {
				g -= 64
			}
		}
	}
	return g
}

// threatens reports whether placing or moving a piece to a's point makes
// a two of the mover's on a line whose third point is empty (and not the
// point it left).
func (s *Searcher) threatens(a engine.Action, own, opp uint32) bool {
	t := a.To()
	after := own | 1<<t
	if a.Kind() == engine.Move {
		after &^= 1 << a.From()
	}
	for j := 0; j < int(s.nLinesAt[t]); j++ {
		l := s.linesAt[t][j]
		if opp&l == 0 && after&l != l && bits.OnesCount32(after&l) == 2 {
			return true
		}
	}
	return false
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
