package classic

import (
	"fmt"
	"math/bits"

	"github.com/millzero/millzero/engine"
)

// The evaluation is a weighted sum of features of a position, each
// counted for the side to move (most as the mover's count less the other
// side's), with one weight vector per phase of the game (Weights). Its
// unit is a hundredth of a piece: the material feature's weight in the
// moving phase is a piece's worth, 100 in every weights set the engine
// ships. The material term and the positional part (every term but
// material and the removals owed) are each rounded to the set's grain: a
// coarse evaluation ties often, and ties cut a null-window search short,
// which buys depth. (The hand-written set weighs a piece 100 in every
// phase and has a grain of 50: for it only the positional part is
// rounded, as it always was.)

// Feature is one term of the evaluation.
type Feature int

// The features. Each is counted for the side to move; "less the other's"
// means the mover's count less the other side's. "Slides" is a side that
// has placed every piece and does not fly.
const (
	FMaterial    Feature = iota // pieces on the board and in hand, less the other's
	FPending                    // removals the mover owes from the other side, less those owed from its own
	FTempo                      // 1: the side to move; the first of the positional features, which the rest follow
	FMills                      // closed mills, less the other's; moving and flying: only those a piece can step out of (and back into)
	FMillsShut                  // moving and flying: closed mills no piece can step out of, less the other's
	FTwos                       // two pieces of a line with the third point empty, not closable at once, less the other's
	FThreatNow                  // 1: the mover can close a mill at once
	FOppThreat                  // 1: the other side has exactly one point where it can close a mill
	FOppThreats                 // 1: the other side has two or more such points, and the mover one turn to stop them
	FMobility                   // the mover's sliding moves (while placing: its pieces' empty neighbours; 0 when it flies)
	FOppMobility                // the other side's, as FMobility
	FBlocked                    // the mover's pieces with no empty neighbour (0 when it flies)
	FOppBlocked                 // the other side's, as FBlocked
	FOppStuck                   // moving and flying: 1 when the other side slides and has no move
	FFly                        // moving and flying: 1 when only the mover flies, -1 when only the other side does
	FWeak                       // the mover's pieces with exactly one empty neighbour
	FOppWeak                    // the other side's, as FWeak
	FLiberties                  // empty points next to a piece of the mover, less those next to one of the other's
	FJunctions                  // pieces on the points of most neighbours, less the other's (0 when every point has as many)
	FCorners                    // pieces on the points of fewest neighbours, less the other's (0 when every point has as many)
	FForks                      // empty points where a placement makes two twos, less the other's
	FRunning                    // closed mills one of whose pieces can step to close another (a running mill), less the other's
	FCramped                    // moving and flying: 3 less the mover's sliding moves, when it slides and has fewer than 3
	FOppCramped                 // the other side's, as FCramped
	NumFeatures                 // the number of features
)

// featureNames are the features' names in a weights file, in order.
var featureNames = [NumFeatures]string{
	"material", "pending", "tempo", "mills", "mills_shut", "twos", "threat_now",
	"opp_threat", "opp_threats", "mobility", "opp_mobility", "blocked", "opp_blocked",
	"opp_stuck", "fly", "weak", "opp_weak", "liberties", "junctions", "corners", "forks", "running",
	"cramped", "opp_cramped",
}

// String is the feature's name in a weights file.
func (f Feature) String() string {
	if f < 0 || f >= NumFeatures {
		return "feature?"
	}
	return featureNames[f]
}

// Phase is which weight vector of a Weights set a position uses.
type Phase int

// The phases. While either side holds pieces in hand the weights are
// blended from PlacingStart (every piece in hand) to PlacingEnd (none), in
// proportion to the pieces in hand.
const (
	PlacingStart Phase = iota // either side holds pieces: weights at the start
	PlacingEnd                // either side holds pieces: weights as the last is placed
	Moving                    // every piece placed, neither side flies
	Flying                    // every piece placed, a side flies
	NumPhases                 // the number of phases
)

// phaseNames are the phases' names in a weights file, in order.
var phaseNames = [NumPhases]string{"placing_start", "placing_end", "moving", "flying"}

// String is the phase's name in a weights file.
func (ph Phase) String() string {
	if ph < 0 || ph >= NumPhases {
		return "phase?"
	}
	return phaseNames[ph]
}

// Point is the evaluation's view of one position: its features and how
// its phases weigh them. The evaluation is the sum over phases of
// Blend[ph] times the weights of ph times the features.
type Point struct {
	X     [NumFeatures]int32 // the features, for the side to move
	Blend [NumPhases]float64 // each phase's share, summing to 1
	Lost  bool               // the side to move has no legal action: lost, whatever the weights
}

// evaluator computes features and scores of one variant's positions with
// one weights set. It allocates nothing per position.
type evaluator struct {
	v        *engine.Variant
	b        *engine.Board
	lines    []uint32                    // every line of the board
	linesAt  [engine.MaxPoints][4]uint32 // the lines through each point
	nLinesAt [engine.MaxPoints]uint8
	hands    int // pieces in hand at the start, both sides
	// junctions and corners are the points of most and of fewest
	// neighbours; both 0 when every point has as many.
	junctions, corners uint32

	grain int32
	// place[h] is the placing phase's weights with h pieces in hand in
	// all, blended from the start's and the end's; moving and flying are
	// the other phases' weights.
	place          [][NumFeatures]int32
	moving, flying [NumFeatures]int32
	// What the weights use beyond the features every set needs: the
	// features only these compute are left at 0 when no phase weighs them.
	needAdj, needWeak, needForks, needRunning, needCramped, needDegree bool
	// hand: the set is the hand-written one, evaluated by handEvaluate.
	hand bool
	// cache holds the scores of positions evaluated, by hash: the high
	// half of the hash, then the score's 32 bits; a position met again
	// (a transposition, the same leaf in the next iteration) is not
	// evaluated again. The score is a function of what the hash covers.
	cache []uint64
}

// newEvaluator prepares w's evaluation of v's positions.
func newEvaluator(v *engine.Variant, w *Weights) *evaluator {
	e := &evaluator{v: v, b: v.Board, hands: 2 * v.Pieces, grain: int32(max(w.Grain, 1))}
	e.lines = append([]uint32(nil), v.Board.Lines...)
	for _, l := range e.lines {
		for m := l; m != 0; m &= m - 1 {
			pt := bits.TrailingZeros32(m)
			if e.nLinesAt[pt] < 4 {
				e.linesAt[pt][e.nLinesAt[pt]] = l
				e.nLinesAt[pt]++
			}
		}
	}
	lo, hi := 64, 0
	for pt := range v.Board.Points {
		n := bits.OnesCount32(v.Board.Adjacent[pt])
		lo, hi = min(lo, n), max(hi, n)
	}
	for pt := range v.Board.Points {
		switch n := bits.OnesCount32(v.Board.Adjacent[pt]); {
		case lo == hi:
		case n == hi:
			e.junctions |= 1 << pt
		case n == lo:
			e.corners |= 1 << pt
		}
	}
	e.place = make([][NumFeatures]int32, e.hands+1)
	for h := range e.place {
		for f := range NumFeatures {
			s, t := float64(w.W[PlacingStart][f]), float64(w.W[PlacingEnd][f])
			x := (s*float64(h) + t*float64(e.hands-h)) / float64(max(e.hands, 1))
			if x >= 0 {
				e.place[h][f] = int32(x + 0.5)
			} else {
				e.place[h][f] = -int32(-x + 0.5)
			}
		}
	}
	e.moving, e.flying = w.W[Moving], w.W[Flying]
	uses := func(fs ...Feature) bool {
		for _, f := range fs {
			for ph := range NumPhases {
				if w.W[ph][f] != 0 {
					return true
				}
			}
		}
		return false
	}
	e.needAdj = uses(FLiberties)
	e.needWeak = uses(FWeak, FOppWeak)
	e.needForks = uses(FForks)
	e.needRunning = uses(FRunning)
	e.needCramped = uses(FCramped, FOppCramped)
	e.needDegree = uses(FJunctions, FCorners)
	h := handWeights()
	e.hand = w.Grain == h.Grain && w.W == h.W
	e.cache = make([]uint64, evalCacheSize)
	return e
}

// weightsOf is the weight vector of p's phase: blended by the pieces in
// hand while placing.
func (e *evaluator) weightsOf(p *engine.Position, flying bool) *[NumFeatures]int32 {
	if h := int(p.Hand[0]) + int(p.Hand[1]); h != 0 {
		return &e.place[min(h, e.hands)]
	}
	if flying {
		return &e.flying
	}
	return &e.moving
}

// point fills pt with p's features and phase shares.
func (e *evaluator) point(p *engine.Position, pt *Point) {
	flying := e.features(p, &pt.X, &pt.Lost)
	pt.Blend = [NumPhases]float64{}
	switch h := int(p.Hand[0]) + int(p.Hand[1]); {
	case h != 0:
		a := float64(min(h, e.hands)) / float64(e.hands)
		pt.Blend[PlacingStart], pt.Blend[PlacingEnd] = a, 1-a
	case flying:
		pt.Blend[Flying] = 1
	default:
		pt.Blend[Moving] = 1
	}
}

// evaluate is the evaluation of p (not owing a removal, game ongoing) for
// its side to move; a side to move with no legal action loses, scored as
// a loss at ply.
func (e *evaluator) evaluate(p *engine.Position, ply int) int32 {
	if e.hand {
		return e.handEvaluate(p, ply)
	}
	slot := &e.cache[p.Hash&(evalCacheSize-1)]
	if *slot&^0xffffffff == p.Hash&^0xffffffff && *slot != 0 {
		return int32(uint32(*slot))
	}
	var x [NumFeatures]int32
	var lost bool
	flying := e.features(p, &x, &lost)
	if lost {
		return -(scoreWin - int32(ply))
	}
	w := e.weightsOf(p, flying)
	// The positional features' sum, written out: a loop costs twice the
	// instructions.
	pos := w[FTempo]*x[FTempo] + w[FMills]*x[FMills] + w[FMillsShut]*x[FMillsShut] + w[FTwos]*x[FTwos] +
		w[FThreatNow]*x[FThreatNow] + w[FOppThreat]*x[FOppThreat] + w[FOppThreats]*x[FOppThreats] +
		w[FMobility]*x[FMobility] + w[FOppMobility]*x[FOppMobility] + w[FBlocked]*x[FBlocked] +
		w[FOppBlocked]*x[FOppBlocked] + w[FOppStuck]*x[FOppStuck] + w[FFly]*x[FFly] + w[FWeak]*x[FWeak] +
		w[FOppWeak]*x[FOppWeak] + w[FLiberties]*x[FLiberties] + w[FJunctions]*x[FJunctions] +
		w[FCorners]*x[FCorners] + w[FForks]*x[FForks] + w[FRunning]*x[FRunning] + w[FCramped]*x[FCramped] +
		w[FOppCramped]*x[FOppCramped]
	score := e.round(w[FMaterial]*x[FMaterial]) + e.round(pos) + w[FPending]*x[FPending]
	if score >= scoreDecisive {
		score = scoreDecisive - 1
	} else if score <= -scoreDecisive {
		score = -scoreDecisive + 1
	}
	*slot = p.Hash&^0xffffffff | uint64(uint32(score))
	return score
}

// evalCacheSize is the number of scores the evaluation keeps (a power of
// two): 512 KB.
const evalCacheSize = 1 << 16

// round rounds x to the nearest multiple of the grain, halves away from
// 0.
func (e *evaluator) round(x int32) int32 {
	g := e.grain
	if g <= 1 {
		return x
	}
	if x >= 0 {
		return (x + g/2) / g * g
	}
	return -((-x + g/2) / g * g)
}

// features sets x to p's features for its side to move and reports
// whether a side flies (every piece placed); lost is set when the side to
// move slides and has no legal action.
func (e *evaluator) features(p *engine.Position, x *[NumFeatures]int32, lost *bool) (flying bool) {
	v, b := e.v, e.b
	me := int(p.Side) & 1
	op := me ^ 1
	own, opp := p.Pieces[me], p.Pieces[op]
	empty := b.All &^ (own | opp)
	placing := p.Hand[0]|p.Hand[1] != 0
	// v.CanFly, written out (the call is not inlined).
	myFly := v.FlyAt > 0 && p.Hand[me] == 0 && bits.OnesCount32(own) <= v.FlyAt
	opFly := v.FlyAt > 0 && p.Hand[op] == 0 && bits.OnesCount32(opp) <= v.FlyAt
	*x = [NumFeatures]int32{}
	*lost = false

	x[FMaterial] = int32(p.PiecesLeft(me) - p.PiecesLeft(op))
	x[FPending] = int32(p.Pending[op]) - int32(p.Pending[me])
	x[FTempo] = 1

	// Mobility: the room each side's pieces have.
	my := e.room(own, empty)
	them := e.room(opp, empty)
	if placing {
		x[FMobility], x[FOppMobility] = my.moves, them.moves
		x[FBlocked], x[FOppBlocked] = my.blocked, them.blocked
		if e.needWeak {
			x[FWeak], x[FOppWeak] = my.weak, them.weak
		}
	} else {
		flying = myFly || opFly
		if !myFly {
			if my.moves == 0 && !v.HasLegal(p) {
				*lost = true
				return flying
			}
			x[FMobility], x[FBlocked] = my.moves, my.blocked
			if e.needWeak {
				x[FWeak] = my.weak
			}
			if e.needCramped && my.moves < 3 {
				x[FCramped] = 3 - my.moves
			}
		}
		if !opFly {
			x[FOppMobility], x[FOppBlocked] = them.moves, them.blocked
			if e.needWeak {
				x[FOppWeak] = them.weak
			}
			if them.moves == 0 && !b.Rotating {
				x[FOppStuck] = 1
			}
			if e.needCramped && them.moves < 3 {
				x[FOppCramped] = 3 - them.moves
			}
		}
		switch {
		case myFly && !opFly:
			x[FFly] = 1
		case opFly && !myFly:
			x[FFly] = -1
		}
	}
	if e.needAdj {
		myAdj, opAdj := my.adj&empty, them.adj&empty
		x[FLiberties] = int32(bits.OnesCount32(myAdj)) - int32(bits.OnesCount32(opAdj))
	}
	if e.needDegree {
		x[FJunctions] = int32(bits.OnesCount32(own&e.junctions)) - int32(bits.OnesCount32(opp&e.junctions))
		x[FCorners] = int32(bits.OnesCount32(own&e.corners)) - int32(bits.OnesCount32(opp&e.corners))
	}

	// Lines: mills, twos, the mills each side can close at once, and the
	// points where a placement would make two twos.
	var myThreat, opThreat uint32
	var myOnce, myTwice, opOnce, opTwice uint32
	myCan := p.Hand[me] > 0 || v.MoveWhilePlacing
	opCan := p.Hand[op] > 0 || v.MoveWhilePlacing
	for _, l := range e.lines {
		o, t := own&l, opp&l
		switch {
		case t == 0 && o == l:
			if placing || stepsOut(b, l, empty) {
				x[FMills]++
			} else {
				x[FMillsShut]++
			}
			if e.needRunning && !placing && !myFly && e.running(l, own, empty) {
				x[FRunning]++
			}
		case t == 0 && o != 0 && o&(o-1) != 0:
			em := l &^ o
			if myCan || myFly && own&^l != 0 || b.Adjacent[bits.TrailingZeros32(em)]&own&^l != 0 {
				myThreat |= em
			} else {
				x[FTwos]++
			}
		case t == 0 && o != 0:
			em := l &^ o
			myTwice |= myOnce & em
			myOnce |= em
		case o == 0 && t == l:
			if placing || stepsOut(b, l, empty) {
				x[FMills]--
			} else {
				x[FMillsShut]--
			}
			if e.needRunning && !placing && !opFly && e.running(l, opp, empty) {
				x[FRunning]--
			}
		case o == 0 && t != 0 && t&(t-1) != 0:
			em := l &^ t
			if opCan || opFly && opp&^l != 0 || b.Adjacent[bits.TrailingZeros32(em)]&opp&^l != 0 {
				opThreat |= em
			} else {
				x[FTwos]--
			}
		case o == 0 && t != 0:
			em := l &^ t
			opTwice |= opOnce & em
			opOnce |= em
		}
	}
	if myThreat != 0 {
		x[FThreatNow] = 1
	}
	switch n := bits.OnesCount32(opThreat); {
	case n >= 2:
		x[FOppThreats] = 1
	case n == 1:
		x[FOppThreat] = 1
	}
	if e.needForks {
		x[FForks] = int32(bits.OnesCount32(myTwice)) - int32(bits.OnesCount32(opTwice))
	}
	return flying
}

// room is what a side's pieces have around them.
type room struct {
	moves   int32  // sliding moves: empty neighbours, over the pieces
	blocked int32  // pieces with no empty neighbour
	weak    int32  // pieces with exactly one
	adj     uint32 // the points next to a piece
}

// room counts the sliding moves of pieces m, the pieces with none or
// one, and the points next to them.
func (e *evaluator) room(m, empty uint32) room {
	var r room
	for ; m != 0; m &= m - 1 {
		a := e.b.Adjacent[bits.TrailingZeros32(m)]
		r.adj |= a
		n := int32(bits.OnesCount32(a & empty))
		r.moves += n
		switch n {
		case 0:
			r.blocked++
		case 1:
			r.weak++
		}
	}
	return r
}

// running reports whether a piece of the closed line l (of the pieces
// own) can step to an empty point that closes another line of own: a
// mill that closes one way and the other, move after move.
func (e *evaluator) running(l, own, empty uint32) bool {
	for m := l; m != 0; m &= m - 1 {
		pt := bits.TrailingZeros32(m)
		for to := e.b.Adjacent[pt] & empty &^ l; to != 0; to &= to - 1 {
			q := bits.TrailingZeros32(to)
			for j := 0; j < int(e.nLinesAt[q]); j++ {
				l2 := e.linesAt[q][j]
				if l2&(1<<pt) == 0 && own&l2 == l2&^(1<<q) {
					return true
				}
			}
		}
	}
	return false
}

// stepsOut reports whether a piece of the closed line l can step to an
// empty neighbour off the line (and so open the mill to close it again).
func stepsOut(b *engine.Board, l, empty uint32) bool {
	for m := l; m != 0; m &= m - 1 {
		if b.Adjacent[bits.TrailingZeros32(m)]&empty&^l != 0 {
			return true
		}
	}
	return false
}

// Featurizer computes the evaluation's features of a variant's
// positions, every feature whatever a weights set weighs: the view of a
// position that a fit of the weights takes. It allocates nothing per
// position and is used by one goroutine at a time.
type Featurizer struct{ e *evaluator }

// NewFeaturizer makes a Featurizer of v's positions; v must have two
// players.
func NewFeaturizer(v *engine.Variant) (*Featurizer, error) {
	if v.Players != 2 {
		return nil, fmt.Errorf("variant %s has %d players: %w", v.Name, v.Players, ErrPlayers)
	}
	e := newEvaluator(v, handWeights())
	e.needAdj, e.needWeak, e.needForks, e.needRunning, e.needCramped, e.needDegree = true, true, true, true, true, true
	return &Featurizer{e: e}, nil
}

// Point fills pt with the features of p (game ongoing, not owing a
// removal) and its phases' shares.
func (f *Featurizer) Point(p *engine.Position, pt *Point) { f.e.point(p, pt) }

// Value is w's evaluation of pt in hundredths of a piece, with the
// phases blended exactly and the positional part not rounded.
func (w *Weights) Value(pt *Point) float64 {
	var s float64
	for ph := range NumPhases {
		if pt.Blend[ph] == 0 {
			continue
		}
		var d float64
		for f := range NumFeatures {
			d += float64(w.W[ph][f]) * float64(pt.X[f])
		}
		s += pt.Blend[ph] * d
	}
	return s
}
