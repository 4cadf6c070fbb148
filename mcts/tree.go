package mcts

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"unsafe"

	"github.com/millzero/millzero/engine"
)

// ErrGameOver is returned (wrapped) when a search is asked to search or
// advance from a position whose game is over.
var ErrGameOver = errors.New("the game is over")

// state is where a node is in its life.
type state uint8

const (
	fresh    state = iota // never reached: not yet known to be terminal or not
	pending               // waiting in a batch for its evaluation
	expanded              // evaluated; its children exist
	terminal              // the game is over here; result holds how
)

// node is one position of the tree, stored by value in the search's arena.
// Its children are the contiguous run nodes[first : first+children], one
// per legal action in the engine's order. The position itself is not
// stored: a descent replays the actions from the root (copy-make is cheap),
// which keeps a node at 40 bytes.
type node struct {
	valueSum [engine.MaxSeats]float32 // sum over visits of each seat's score (1 win, 1/players draw, 0 loss)
	first    int32                    // index of the first child, once expanded
	visits   int32                    // playouts backed up through this node
	prior    float32                  // the parent's prior of the action leading here
	action   engine.Action            // the action leading here from the parent
	children uint16                   // number of children
	inflight uint16                   // playouts selected through here and not backed up yet
	state    state
	result   engine.Result // the game's result at a terminal node; the proven result of an expanded one (Ongoing: not proven)
	minimax  [2]uint16     // two players, Settings.MinimaxWeight: each seat's score (in 65535ths) at the end of the line minimax picks below here (minimax.go)
}

// NodeBytes is the size of one tree node in the arena.
const NodeBytes = int(unsafe.Sizeof(node{}))

// Search is the tree search of one game: an arena of nodes rooted at the
// game's current position, with the game's history for the repetition
// rule. It is not safe for concurrent use; run many Searches in one Pool to
// batch their evaluations.
type Search struct {
	v   *engine.Variant
	set Settings
	rng *rand.Rand

	nodes    []node          // the arena; the root is nodes[0]
	spare    []node          // the other arena, for compaction when the tree is reused
	rootPos  engine.Position // the position at the root
	history  []uint64        // hashes of the game's positions before the root, oldest first
	noised   bool            // the root is prepared: its priors have had their noise (gumbel: its noise drawn, its halving planned)
	rootOnly []engine.Action // the root's actions when restricted (SetRootActions); empty: every legal action

	// Scratch of one round of gathering, reused.
	hist    []uint64 // history plus the hashes of the current descent's path
	path    []int32  // the current descent's nodes, root first
	leaves  []int32  // for each pending leaf: its batch index
	paths   []int32  // the paths of the pending leaves, concatenated
	movers  []uint8  // with MinimaxWeight: the seat to move at each node of those paths (the leaf's unused), aligned with paths
	pathOff []int32  // the path of leaf i is paths[pathOff[i]:pathOff[i+1]]
	repKids []int32  // for the pending leaves: the indices among their legal actions that draw by repetition, concatenated
	repOff  []int32  // leaf i's are repKids[repOff[i]:repOff[i+1]]
	legal   [engine.MaxActions]engine.Action

	// The last Result, reused.
	res     Result
	weights []float64

	pool *Pool      // for Run: a pool of this one search
	one  [1]*Search // the slice Run hands to pool

	prover   Prover          // exact values of some positions (tables), or nil
	solving  bool            // the MCTS-solver is on: Settings.Solver, or a prover
	draw     float32         // what a draw is worth to each seat: 1/players less Settings.Contempt
	seats    []uint8         // the seat to move at each node of the current descent's path
	probePos engine.Position // the position handed to prover (a field, so that it does not escape per descent)

	gum      gumbelRoot // the root's Gumbel noise and halving plan (Settings.Root gumbel)
	planSims int        // RunFor's visit cap, which a gumbel root's halving plans for; 0 outside RunFor
}

// NewSearch makes a search of variant v with settings set, its randomness
// (root noise, move choice) drawn from seed. Its root is the start position.
func NewSearch(v *engine.Variant, set Settings, seed uint64) (*Search, error) {
	if v == nil {
		return nil, fmt.Errorf("mcts: new search: no variant")
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	if key, w := set.TwoPlayersOnly(); key != "" && v.Players != 2 {
		return nil, fmt.Errorf("mcts: new search: %s %v with %d players: it is for two players (set %s 0)", key, w, v.Players, key)
	}
	s := &Search{v: v, set: set, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), solving: set.Solver}
	s.setDraw()
	s.SetRoot(v.Start(), nil)
	return s, nil
}

// Settings are the search's settings.
func (s *Search) Settings() Settings { return s.set }

// Variant is the variant the search plays.
func (s *Search) Variant() *engine.Variant { return s.v }

// SetRoot discards the tree and roots a new one at p, whose game's earlier
// positions have the hashes history (oldest first, p not included; as
// engine.Game.Hashes). The history is copied.
func (s *Search) SetRoot(p engine.Position, history []uint64) {
	s.rootPos = p
	s.history = append(s.history[:0], history...)
	s.rootOnly = s.rootOnly[:0]
	s.resetTree()
}

// SetGame roots a new tree at the game's current position, with its history.
func (s *Search) SetGame(g *engine.Game) { s.SetRoot(g.Pos, g.Hashes) }

// Root is the position at the root of the tree.
func (s *Search) Root() engine.Position { return s.rootPos }

// Nodes is the number of nodes in the tree.
func (s *Search) Nodes() int { return len(s.nodes) }

// ArenaBytes is the memory the tree's two arenas hold, in bytes.
func (s *Search) ArenaBytes() int { return (cap(s.nodes) + cap(s.spare)) * NodeBytes }

func (s *Search) resetTree() {
	s.nodes = append(s.nodes[:0], node{})
	s.noised = false
}

// Advance moves the root along action a, which must be legal at the root:
// the game went on by a. With ReuseTree the subtree under a is kept (and
// compacted into the other arena); otherwise the tree starts afresh.
func (s *Search) Advance(a engine.Action) error {
	if r, why := s.rootOutcome(); r != engine.Ongoing {
		return fmt.Errorf("mcts: advance by %s: %w (%s, %s)", s.v.FormatAction(a), ErrGameOver, r, why)
	}
	if !s.v.IsLegal(&s.rootPos, a) {
		return fmt.Errorf("mcts: advance by %s: %w", s.v.FormatAction(a), engine.ErrIllegal)
	}
	child := int32(-1)
	if root := &s.nodes[0]; root.state == expanded {
		for c := root.first; c < root.first+int32(root.children); c++ {
			if s.nodes[c].action == a {
				child = c
				break
			}
		}
	}
	s.history = append(s.history, s.rootPos.Hash)
	s.rootPos = s.v.Apply(&s.rootPos, a)
	s.rootOnly = s.rootOnly[:0]
	if !s.set.ReuseTree || child < 0 {
		s.resetTree()
		return nil
	}
	s.compact(child)
	return nil
}

// compact copies the subtree under node c into the spare arena, breadth
// first so each node's children stay contiguous, and makes it the tree.
func (s *Search) compact(c int32) {
	dst := append(s.spare[:0], s.nodes[c])
	dst[0].prior = 0
	if dst[0].state == terminal {
		// A root the prover knew is searched afresh for its moves (a
		// root whose game is over is refused by Run): it has no children,
		// and the visits its proof backed up must not count as the next
		// search's, or that search would end before expanding it.
		dst[0] = node{}
	}
	for i := 0; i < len(dst); i++ {
		n := &dst[i]
		if n.state != expanded {
			continue
		}
		first := n.first
		n.first = int32(len(dst))
		dst = append(dst, s.nodes[first:first+int32(n.children)]...)
	}
	for i := range dst {
		if dst[i].state == pending {
			dst[i].state = fresh
		}
		dst[i].inflight = 0
	}
	s.spare, s.nodes = s.nodes[:0], dst
	s.noised = false
}

// rootOutcome is the result of the root by every rule, repetition included.
func (s *Search) rootOutcome() (engine.Result, engine.Reason) {
	if r, why := s.v.Outcome(&s.rootPos); r != engine.Ongoing {
		return r, why
	}
	if s.repeated(&s.rootPos, s.history) {
		return engine.Draw, engine.RepetitionDraw
	}
	return engine.Ongoing, engine.NotOver
}

// repeated applies the repetition rule as engine.Game.Outcome does.
func (s *Search) repeated(p *engine.Position, history []uint64) bool {
	return s.v.RepetitionDraw > 0 && s.v.Repetitions(p, history)+1 >= s.v.RepetitionDraw
}

// growNodes appends n fresh nodes to the arena and returns the index of the
// first.
func (s *Search) growNodes(n int) int32 {
	first := len(s.nodes)
	s.nodes = slices.Grow(s.nodes, n)[:first+n]
	clear(s.nodes[first:])
	return int32(first)
}

// errNotSearched is returned when a move is asked of a root not searched.
var errNotSearched = errors.New("mcts: choose: the root has not been searched (call Run first)")

func errorGameOver(what string, r engine.Result, why engine.Reason) error {
	return fmt.Errorf("mcts: %s: %w (%s, %s)", what, ErrGameOver, r, why)
}
