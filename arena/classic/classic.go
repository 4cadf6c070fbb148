package classic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// MaxDepth is the deepest iteration a search runs, in plies (every action
// counts, removals included).
const MaxDepth = 64

// maxPly bounds the plies from the root a line may reach: the depth, the
// quiet search's removals and the extensions.
const maxPly = MaxDepth + 32

// The scores, in hundredths of a piece for the side to move. A win found
// in the tree is scoreWin less its distance in plies; a win the tables
// prove is scoreTable less its ply and the tables' distance; every
// evaluation lies well inside scoreDecisive.
const (
	scoreWin       = 32000
	scoreTable     = 31000
	scoreDecisive  = 30000
	scoreInf       = 32500
	maxTableDist   = 500 // a table distance beyond this scores as this
	contempt       = 10  // a draw's score for the side to move at the root, negated (Options.NoContempt: 0)
	defaultHashMB  = 64
	checkEveryNode = 1023 // the clock and the context are read every 1024 nodes
	marginRFP      = 70   // a node this far above beta per ply left is cut (depth 1-3)
	marginFutility = 90   // quiet actions are not tried this far below alpha per ply left (depth 1-2)
)

// Decisive bounds every evaluation: a score beyond ±Decisive is a win or
// loss the search found in the tree or the tables proved.
const Decisive = scoreDecisive

// Tables is what the search asks of endgame tables: the value of a
// position with perfect play, or an error when they do not hold it
// (*tablebase.Set is one).
type Tables interface {
	Probe(p *engine.Position) (tablebase.Value, error)
}

// Options are a searcher's fixed settings.
type Options struct {
	HashMB int    // size of the transposition table in megabytes (0: 64); allocated once
	Tables Tables // endgame tables probed in the tree, or nil
	// Weights is the evaluation's weights (nil: DefaultWeights of the
	// variant).
	Weights *Weights
	// Aspiration is the half-width of the window around the last
	// iteration's score that each iteration past the fourth first
	// searches, in hundredths of a piece. 0 is twice the weights' grain,
	// except with the hand-written set, which searches every iteration
	// with a full window as it always did; below 0, no window.
	Aspiration int
	// NoContempt scores a draw 0 for both sides, wherever the root: the
	// scores of searches from different roots (a position and its
	// children) then compare. By default the side to move at the root
	// scores a draw a little below 0, so that it plays on.
	NoContempt bool
}

// Limits bound one search; the first reached ends it. With none, it
// searches to MaxDepth.
type Limits struct {
	Depth    int           // the last iteration's depth, 1..MaxDepth; 0: MaxDepth
	MoveTime time.Duration // the time the search may take; 0: no limit
	Nodes    int64         // the nodes it may visit (roughly: checked every 1024); 0: no limit
}

// Info is one completed iteration of a search.
type Info struct {
	Depth int             // plies of the iteration
	Nodes int64           // nodes visited since the search began
	Time  time.Duration   // since the search began
	Score int             // for the side to move at the root, in hundredths of a piece; a win or loss is beyond ±30000
	PV    []engine.Action // the principal variation; valid only during the call
}

// Result is a search's answer.
type Result struct {
	Best  engine.Action
	Score int // as Info.Score, of the last completed iteration
	Depth int // of the last completed iteration (0 when the tables answered)
	Nodes int64
	Time  time.Duration
}

// ErrPlayers is returned (wrapped) for a variant with more than two
// players: the search is a two-player negamax.
var ErrPlayers = errors.New("the classical engine plays two-player variants only")

// Searcher searches positions of one variant. It holds its table and
// buffers and is used by one goroutine at a time; keep one per game (or
// per engine) so the table carries over from move to move.
type Searcher struct {
	v          *engine.Variant
	tables     Tables
	tt         table
	ev         *evaluator
	aspiration int
	w          *Weights

	linesAt  [engine.MaxPoints][4]uint32 // the lines through each point
	nLinesAt [engine.MaxPoints]uint8
	degree   [engine.MaxPoints]uint8 // the neighbours of each point
	horizon  int                     // a draw counter this close to its rule is part of the table key

	stack   [maxPly + 1]frame
	hist    []uint64 // the hashes of the game before the root, then of the line searched
	base    int      // hist[base+ply] is the hash at ply
	killers [maxPly + 1][2]engine.Action
	history [2][4096]int32
	pv      [maxPly + 1][maxPly + 1]engine.Action
	pvLen   [maxPly + 1]int
	rootPV  [maxPly + 1]engine.Action // of the last completed iteration
	rootLen int

	nodes        int64
	rootSide     uint8 // the side to move at the root
	contempt     int32 // contempt, or 0 (tests compare exact values)
	ttCuts       int64 // searches the table cut short, for tests
	stopped      bool
	start        time.Time
	deadline     time.Time // zero: none
	maxNodes     int64     // 0: none
	ctx          context.Context
	sideKey      uint64       // the hash's change when the turn passes
	lmr          [64][64]int8 // the reduction of the i-th action at a depth
	noReduce     bool         // no reductions or pruning (tests compare exact values)
	ttExact      bool         // use a stored score only at exactly its depth (tests)
	noTT         bool         // no transposition table at all (tests)
	noRootTables bool         // the root searches even when the tables hold it (tests of the probes in the tree)
}

// frame is the state of one ply of the line searched.
type frame struct {
	pos        engine.Position
	nullBefore bool // the position was reached by a null move
	moves      [engine.MaxActions]engine.Action
	keys       [engine.MaxActions]int32
}

// New makes a searcher for v, allocating its table and buffers once.
func New(v *engine.Variant, opt Options) (*Searcher, error) {
	if v.Players != 2 {
		return nil, fmt.Errorf("variant %s has %d players: %w", v.Name, v.Players, ErrPlayers)
	}
	mb := opt.HashMB
	if mb == 0 {
		mb = defaultHashMB
	}
	if mb < 1 || mb > 1<<16 {
		return nil, fmt.Errorf("classic: hash %d MB: want 1..65536", mb)
	}
	w := opt.Weights
	if w == nil {
		w = DefaultWeights(v)
	}
	if err := w.check(v); err != nil {
		return nil, fmt.Errorf("classic: %w", err)
	}
	s := &Searcher{v: v, tables: opt.Tables, tt: newTable(mb), horizon: maxPly + 8, contempt: contempt, ev: newEvaluator(v, w), w: w}
	switch {
	case opt.Aspiration > 0:
		s.aspiration = opt.Aspiration
	case opt.Aspiration == 0 && !s.ev.hand:
		s.aspiration = 2 * max(w.Grain, 1)
	}
	if opt.NoContempt {
		s.contempt = 0
	}
	for _, l := range v.Board.Lines {
		for m := l; m != 0; m &= m - 1 {
			pt := bits.TrailingZeros32(m)
			if s.nLinesAt[pt] < 4 {
				s.linesAt[pt][s.nLinesAt[pt]] = l
				s.nLinesAt[pt]++
			}
		}
	}
	for pt := range s.degree {
		s.degree[pt] = uint8(bits.OnesCount32(v.Board.Adjacent[pt]))
	}
	s.hist = make([]uint64, 0, 1024+maxPly+2)
	for d := 1; d < 64; d++ {
		for i := 1; i < 64; i++ {
			s.lmr[d][i] = int8(0.5 + math.Log(float64(d))*math.Log(float64(i))/2.25)
		}
	}
	start := v.Start()
	flipped, err := v.ParsePosition(strings.Replace(v.FormatPosition(&start), " side:0 ", " side:1 ", 1))
	if err != nil {
		return nil, fmt.Errorf("classic: %s: the start with the other side to move: %w", v.Name, err)
	}
	s.sideKey = start.Hash ^ flipped.Hash
	return s, nil
}

// Variant is the variant the searcher plays.
func (s *Searcher) Variant() *engine.Variant { return s.v }

// Weights is the evaluation's weights set.
func (s *Searcher) Weights() *Weights { return s.w }

// NewGame forgets what earlier searches learnt: the table, killers and
// history.
func (s *Searcher) NewGame() {
	s.tt.clear()
	s.history = [2][4096]int32{}
	s.killers = [maxPly + 1][2]engine.Action{}
}

// Search finds the best action in g's position under lim, reporting each
// completed iteration to report (if not nil). It stops early, with the
// best action found so far, when ctx is done. The game must be ongoing.
func (s *Searcher) Search(ctx context.Context, g *engine.Game, lim Limits, report func(Info)) (Result, error) {
	if g.V.Spec != s.v.Spec {
		return Result{}, fmt.Errorf("classic: a game of %s given to a searcher of %s", g.V.Name, s.v.Name)
	}
	if lim.Depth < 0 || lim.Depth > MaxDepth {
		return Result{}, fmt.Errorf("classic: depth %d: want 1..%d", lim.Depth, MaxDepth)
	}
	if r, why := g.Outcome(); r != engine.Ongoing {
		return Result{}, fmt.Errorf("classic: the game is over (%s, %s)", r, why)
	}
	s.start = time.Now()
	s.ctx, s.nodes, s.ttCuts, s.stopped, s.maxNodes = ctx, 0, 0, false, lim.Nodes
	s.deadline = time.Time{}
	if lim.MoveTime > 0 {
		s.deadline = s.start.Add(lim.MoveTime)
	}
	depth := lim.Depth
	if depth == 0 {
		depth = MaxDepth
	}
	root := &s.stack[0]
	root.pos = g.Pos
	s.rootSide = g.Pos.Side
	s.setHistory(g)

	if best, score, ok := s.tableMove(&root.pos); ok && !s.noRootTables {
		res := Result{Best: best, Score: score, Time: time.Since(s.start)}
		if report != nil {
			s.rootPV[0] = best
			report(Info{Depth: 1, Time: res.Time, Score: score, PV: s.rootPV[:1]})
		}
		return res, nil
	}

	s.tt.age++
	for i := range s.killers {
		s.killers[i] = [2]engine.Action{}
	}
	for side := range s.history {
		for i := range s.history[side] {
			s.history[side][i] /= 8 // old history is a hint, not a rule
		}
	}
	var res Result
	s.rootLen = 0
	for d := 1; d <= depth; d++ {
		score := s.searchRoot(d, res.Score)
		if s.stopped {
			// A root action that finished searching before the stop and
			// beat the earlier ones is taken: the first one searched is
			// the last iteration's best.
			if s.pvLen[0] > 0 && s.rootLen > 0 && s.pv[0][0] != s.rootPV[0] {
				s.rootPV[0] = s.pv[0][0]
				s.rootLen = 1
			}
			break
		}
		s.rootLen = copy(s.rootPV[:], s.pv[0][:s.pvLen[0]])
		res.Score, res.Depth = int(score), d
		if report != nil {
			report(Info{Depth: d, Nodes: s.nodes, Time: time.Since(s.start), Score: int(score), PV: s.rootPV[:s.rootLen]})
		}
		if score >= scoreWin-int32(d) || score <= -scoreWin+int32(d) {
			break // a win or loss within the horizon: deeper says no more
		}
		if !s.deadline.IsZero() && time.Since(s.start) > lim.MoveTime/2 {
			break // the next iteration would not finish
		}
	}
	if s.rootLen == 0 {
		// Stopped before the first iteration ended: the first legal action
		// in the search's order.
		moves := s.v.Legal(&root.pos, root.moves[:0])
		if len(moves) == 0 {
			return Result{}, fmt.Errorf("classic: no legal action")
		}
		s.rootPV[0], s.rootLen = moves[0], 1
	}
	res.Best, res.Nodes, res.Time = s.rootPV[0], s.nodes, time.Since(s.start)
	if err := ctx.Err(); err != nil && res.Depth == 0 {
		return res, err
	}
	return res, nil
}

// searchRoot searches the root to depth d: past the first iterations in
// a window around the last iteration's score (an aspiration window),
// widened on each side the score falls outside until it falls within.
func (s *Searcher) searchRoot(d, last int) int32 {
	delta := int32(s.aspiration)
	if delta == 0 || d < 5 || last >= scoreDecisive || last <= -scoreDecisive {
		return s.search(0, d, -scoreInf, scoreInf)
	}
	alpha, beta := int32(last)-delta, int32(last)+delta
	for {
		score := s.search(0, d, alpha, beta)
		switch {
		case s.stopped:
			return score
		case score <= alpha && alpha > -scoreInf:
			delta *= 2
			alpha = max(score-delta, -scoreInf)
		case score >= beta && beta < scoreInf:
			delta *= 2
			beta = min(score+delta, scoreInf)
		default:
			return score
		}
		if delta > 4*scoreDecisive/64 {
			alpha, beta = -scoreInf, scoreInf
		}
	}
}

// setHistory puts the hashes of the game's positions since its last
// irreversible action into hist, for the repetition rule.
func (s *Searcher) setHistory(g *engine.Game) {
	n := len(g.Hashes)
	from := max(n-int(g.Pos.Quiet), 0)
	if s.v.RepetitionDraw == 0 {
		from = n
	}
	s.hist = append(s.hist[:0], g.Hashes[from:]...)
	s.base = len(s.hist)
	s.hist = append(s.hist, g.Pos.Hash)
	for len(s.hist) < s.base+maxPly+2 {
		s.hist = append(s.hist, 0)
	}
}

// tableMove is the tables' choice at the root, when they hold every child:
// the fastest win, else a draw, else the slowest loss.
func (s *Searcher) tableMove(p *engine.Position) (engine.Action, int, bool) {
	if s.tables == nil || p.Hand[0]|p.Hand[1] != 0 {
		return 0, 0, false
	}
	if _, err := s.tables.Probe(p); err != nil {
		return 0, 0, false
	}
	f := &s.stack[0]
	moves := s.v.Legal(p, f.moves[:0])
	best, bestScore := engine.Action(0), int32(-scoreInf)
	for _, a := range moves {
		q := s.v.Apply(p, a)
		val, err := s.tables.Probe(&q)
		if err != nil {
			return 0, 0, false
		}
		sc := tableScore(val, 1)
		if q.Side != p.Side {
			sc = -sc
		}
		if sc > bestScore {
			best, bestScore = a, sc
		}
	}
	return best, int(bestScore), len(moves) > 0
}

// tableScore is a table value as a score at ply.
func tableScore(val tablebase.Value, ply int) int32 {
	d := int32(min(val.Plies, maxTableDist))
	switch val.Outcome {
	case tablebase.Win:
		return scoreTable - int32(ply) - d
	case tablebase.Loss:
		return -(scoreTable - int32(ply) - d)
	}
	return 0
}

// timeUp reads the clock, the node budget and the context.
func (s *Searcher) timeUp() bool {
	if s.maxNodes > 0 && s.nodes >= s.maxNodes {
		return true
	}
	if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
		return true
	}
	return s.ctx.Err() != nil
}

// key is the table key of p: its hash, and the draw counters when they
// are close enough to their rule for the search to reach it.
func (s *Searcher) key(p *engine.Position) uint64 {
	k := p.Hash
	v := s.v
	if v.NoCaptureDraw > 0 && int(p.NoCapture)+s.horizon >= v.NoCaptureDraw {
		k ^= mix(uint64(p.NoCapture) | 1<<32)
	}
	if v.EndgameDraw > 0 && p.Endgame > 0 && int(p.Endgame)+s.horizon >= v.EndgameDraw {
		k ^= mix(uint64(p.Endgame) | 2<<32)
	}
	if int(p.Ply)+s.horizon >= v.MaxPlies {
		k ^= mix(uint64(p.Ply) | 3<<32)
	}
	if k == 0 {
		k = 1
	}
	return k
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
