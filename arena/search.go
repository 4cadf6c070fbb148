package arena

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
	"github.com/millzero/millzero/model"
)

// SearchPlayer plays by the search of package mcts with an evaluator:
// a checkpoint's network (model.Evaluator), or rollouts for a player that
// needs no network. Each game gets its own search tree and evaluator.
// NewSearchPlayer builds one; every command and the loop use it.
type SearchPlayer struct {
	Label    string        // the name in tables and records, e.g. "model:gen-000007"
	Settings mcts.Settings // the search's settings; Simulations is the visits per move (or the cap, with MoveTime). See MatchSettings
	MoveTime time.Duration // when above 0, search each move for this long instead of a fixed number of visits
	Prover   mcts.Prover   // exact values of positions it knows (endgame tables): proven nodes, played perfectly; nil: none

	// EvaluatedBy says what NewEvaluator evaluates with, for Setup;
	// NewSearchPlayer fills it in.
	EvaluatedBy string

	// NewEvaluator makes the evaluator of one game (model.Evaluator is for
	// one search worker, so each game needs its own); it may return a
	// shared one if that is safe to use from many goroutines.
	NewEvaluator func(v *engine.Variant, seed uint64) (mcts.Evaluator, error)
}

// Evaluation is what a search player evaluates leaves with.
type Evaluation struct {
	Net            *model.Network // the network; nil evaluates with random playouts
	RandomSymmetry bool           // evaluate each position under a random symmetry of the board (a network only)
	Orientations   int            // with RandomSymmetry: average the network over this many distinct symmetries a position (model.Evaluator.SetOrientations); 0 or 1: one
	Playouts       int            // without a network: random playouts per position (0: 1)
	PlayoutPlies   int            // without a network: a longer playout counts as a draw (0: the variant's ply cap)
}

// NewSearchPlayer is a search player named label that searches with set
// and evaluates by e: the one constructor of the model (and rollout)
// players of the arena, the gate, the ladder, play and engine.
func NewSearchPlayer(label string, set mcts.Settings, e Evaluation) *SearchPlayer {
	p := &SearchPlayer{Label: label, Settings: set}
	if e.Net != nil {
		p.EvaluatedBy = fmt.Sprintf("network random_symmetry=%t orientations=%d", e.RandomSymmetry, max(e.Orientations, 1))
		net, batch := e.Net, set.BatchSize
		p.NewEvaluator = func(v *engine.Variant, seed uint64) (mcts.Evaluator, error) {
			ev, err := model.NewEvaluator(v, net, batch, e.RandomSymmetry, seed)
			if err == nil && e.Orientations > 1 {
				err = ev.SetOrientations(e.Orientations)
			}
			return ev, err
		}
		return p
	}
	p.EvaluatedBy = fmt.Sprintf("rollouts playouts=%d plies=%d", max(e.Playouts, 1), e.PlayoutPlies)
	p.NewEvaluator = func(v *engine.Variant, seed uint64) (mcts.Evaluator, error) {
		playouts, plies := max(e.Playouts, 1), e.PlayoutPlies
		if plies <= 0 {
			plies = v.MaxPlies
		}
		return mcts.NewRolloutEvaluator(v, playouts, plies, seed)
	}
	return p
}

// MatchSettings are the search settings of a match from a run's (or the
// default) search settings s: simulations visits per move, no root noise
// nor forced playouts, the most visited action always (temperature 0),
// since the openings already vary the games, and a draw worth its even
// share (no contempt: self-play's way to vary its games, not a player's).
func MatchSettings(s mcts.Settings, simulations int) mcts.Settings {
	s.Simulations = simulations
	s.DirichletFraction = 0
	s.ForcedPlayoutsK, s.PrunePolicyTarget = 0, false
	s.Temperature = 0
	s.TemperaturePlies = 0
	s.FinalTemperature = 0
	s.Contempt = 0
	return s
}

// ArenaSettings are MatchSettings of mcts.DefaultSettings: the search of
// players that belong to no run.
func ArenaSettings(simulations int) mcts.Settings {
	return MatchSettings(mcts.DefaultSettings(), simulations)
}

// ModelSettings are the search of a network player in matches, the
// strength benchmark, play and the engine: ArenaSettings with, in a
// two-player variant, the Gumbel root (sequential halving over 16
// actions, deterministic at temperature 0, PUCT below) judging its
// children on the values' own scale (min_q_spread 1), as self-play
// searches. On nine at 400 visits the Gumbel root beat the PUCT root with
// the same network, head to head, by 50, 68 and 61 Elo for three models
// of two runs; the values' own scale beat the children's values stretched
// to 0..1 (min_q_spread 0) in each of eleven matches of seven models at
// 100, 400 and 1,600 visits, by 2 to 24 Elo (docs/strength-benchmark.md,
// "The search of a network player"). Rollout players and the oracles keep
// ArenaSettings, and three or four seats the PUCT root: neither was
// measured.
func ModelSettings(v *engine.Variant, simulations int) mcts.Settings {
	s := ArenaSettings(simulations)
	if v == nil || v.Players == 2 {
		s.Root, s.MinQSpread = mcts.RootGumbel, 1
	}
	return s
}

// Name is the Label.
func (p *SearchPlayer) Name() string { return p.Label }

// Setup is how the player plays beyond its name: its search settings,
// move time (when it has one), tables and evaluation, so that a stored
// match of the same names but another search is not taken for this one's.
func (p *SearchPlayer) Setup() string {
	s := fmt.Sprintf("search %+v", p.Settings)
	if p.MoveTime > 0 {
		s += " move_time " + p.MoveTime.String()
	}
	if p.Prover != nil {
		s += " tables"
	}
	if p.EvaluatedBy != "" {
		s += " " + p.EvaluatedBy
	}
	return s
}

// NewGame makes the search and evaluator of one game: a *SearchGame.
func (p *SearchPlayer) NewGame(v *engine.Variant, seed uint64) (GamePlayer, error) {
	return p.NewSearchGame(v, seed)
}

// NewSearchGame makes the search and evaluator of one game.
func (p *SearchPlayer) NewSearchGame(v *engine.Variant, seed uint64) (*SearchGame, error) {
	if p.NewEvaluator == nil {
		return nil, fmt.Errorf("%s: no evaluator", p.Label)
	}
	if p.MoveTime < 0 {
		return nil, fmt.Errorf("%s: move time %s: want 0 (fixed visits) or more", p.Label, p.MoveTime)
	}
	s, err := mcts.NewSearch(v, p.Settings, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Label, err)
	}
	eval, err := p.NewEvaluator(v, seed)
	if err == nil {
		err = mcts.CheckEvaluator(p.Settings, eval)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: evaluator: %w", p.Label, err)
	}
	if p.Prover != nil {
		s.SetProver(p.Prover)
	}
	return &SearchGame{p: p, s: s, eval: eval}, nil
}

// SearchGame is one game's search; the tree follows the game, reusing the
// subtree of each action played when the settings say so.
type SearchGame struct {
	p    *SearchPlayer
	s    *mcts.Search
	eval mcts.Evaluator
	pv   []engine.Action // scratch of a depth-bounded search
}

// Evaluator is what the game's search evaluates positions with: the
// network for a model player, random playouts for a rollout search.
func (x *SearchGame) Evaluator() mcts.Evaluator { return x.eval }

// Act searches the game's position and plays the most visited action (or
// by the settings' temperature).
func (x *SearchGame) Act(ctx context.Context, g *engine.Game) (engine.Action, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	x.s.Follow(g)
	set := x.p.Settings
	if x.p.MoveTime <= 0 {
		if err := x.s.RunContext(ctx, x.eval); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err() // interrupted: the move is not played
			}
			return 0, fmt.Errorf("%s: %w", x.p.Label, err)
		}
	} else if err := x.s.RunFor(ctx, x.eval, set.Simulations, time.Now().Add(x.p.MoveTime), 0); err != nil {
		// Searched in steps until the time is up or the visits reach the
		// cap, so a slow evaluator still answers in time.
		return 0, fmt.Errorf("%s: %w", x.p.Label, err)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	a, err := x.s.Choose(len(g.Actions))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", x.p.Label, err)
	}
	return a, nil
}

// MaxTreeNodes bounds the tree of a search limited only by time (a node
// is mcts.NodeBytes: about 150 MB).
const MaxTreeNodes = 1 << 22

// Think searches the game's position under limits and returns the search's
// result, which the next search overwrites. With moveTime 0 it searches
// visits visits (the settings' Simulations when visits is 0); with moveTime
// above 0 it searches until the time is up, or visits visits when visits is
// above 0, or the tree reaches MaxTreeNodes, whichever comes first. It stops
// after the step in which ctx is done, with what it found.
func (x *SearchGame) Think(ctx context.Context, g *engine.Game, visits int, moveTime time.Duration) (*mcts.Result, error) {
	return x.Analyse(ctx, g, SearchLimits{Visits: visits, MoveTime: moveTime})
}

// SearchLimits bound one search of Analyse and say how it reports.
type SearchLimits struct {
	Visits   int           // the root's visits to reach; 0: the settings' Simulations, or no bound with MoveTime or Infinite
	MoveTime time.Duration // search this long at most; 0: no time bound
	Infinite bool          // no bound but ctx and MaxNodes (Visits and MoveTime are not read)
	MaxNodes int           // the tree's bound; 0: MaxTreeNodes
	Depth    int           // stop once the principal variation is this long (or ends the game, or the root is proven); 0: no depth bound
	Every    time.Duration // with Report, report about this often while searching

	// RootActions, when not empty, are the only root actions searched
	// (mcts.Search.SetRootActions): the protocol's go searchmoves.
	RootActions []engine.Action
	// Report, if not nil, is called on the searching goroutine with the
	// result so far and the visits added by this search: every Every, and
	// once at the end with done true.
	Report func(res *mcts.Result, searched int, done bool)
}

// Analyse searches the game's position until one of the limits is reached
// or ctx is done (it stops after the step in which it is, with what it
// found), and returns the result, which the next search overwrites.
func (x *SearchGame) Analyse(ctx context.Context, g *engine.Game, l SearchLimits) (*mcts.Result, error) {
	if r, why := g.Outcome(); r != engine.Ongoing {
		return nil, fmt.Errorf("the game is over (%s)", why)
	}
	x.s.Follow(g)
	x.s.SetRootActions(l.RootActions)
	visits := l.Visits
	var deadline time.Time
	switch {
	case l.Infinite:
		visits = math.MaxInt32
	case l.MoveTime > 0:
		deadline = time.Now().Add(l.MoveTime)
		if visits <= 0 {
			visits = math.MaxInt32
		}
	case visits <= 0:
		visits = x.p.Settings.Simulations
	}
	maxNodes := l.MaxNodes
	if maxNodes <= 0 {
		maxNodes = MaxTreeNodes
	}
	before := x.s.Result().Visited
	for {
		until := deadline
		if l.Report != nil && l.Every > 0 {
			if next := time.Now().Add(l.Every); until.IsZero() || next.Before(until) {
				until = next
			}
		}
		if l.Depth > 0 {
			if next := time.Now().Add(depthCheckEvery); until.IsZero() || next.Before(until) {
				until = next
			}
		}
		if err := x.s.RunFor(ctx, x.eval, visits, until, maxNodes); err != nil {
			return nil, err
		}
		res := x.s.Result()
		done := res.Visited >= visits || ctx.Err() != nil || x.s.Nodes() >= maxNodes ||
			(!deadline.IsZero() && !time.Now().Before(deadline)) ||
			(l.Depth > 0 && x.reached(g, l.Depth, res))
		if l.Report != nil {
			l.Report(res, res.Visited-before, done)
		}
		if done {
			if len(res.Actions) == 0 {
				return nil, fmt.Errorf("the search found no action")
			}
			return res, nil
		}
	}
}

// depthCheckEvery is how often a search with a depth bound looks at its
// principal variation's length.
const depthCheckEvery = 20 * time.Millisecond

// reached reports whether the search of g has reached depth: its
// principal variation is depth actions long, or ends the game (it can go
// no deeper), or the root is proven.
func (x *SearchGame) reached(g *engine.Game, depth int, res *mcts.Result) bool {
	if res.Proven != engine.Ongoing {
		return true
	}
	x.pv = x.s.PV(x.pv[:0], depth)
	if len(x.pv) >= depth {
		return true
	}
	if len(x.pv) == 0 {
		return false
	}
	p := g.Pos
	for _, a := range x.pv {
		p = g.V.Apply(&p, a)
	}
	r, _ := g.V.Outcome(&p)
	return r != engine.Ongoing
}

// PV appends the principal variation of the last search to dst (see
// mcts.Search.PV).
func (x *SearchGame) PV(dst []engine.Action, maxLen int) []engine.Action { return x.s.PV(dst, maxLen) }

// Nodes is the number of nodes in the game's search tree.
func (x *SearchGame) Nodes() int { return x.s.Nodes() }

// Close releases nothing: the tree and evaluator are garbage.
func (x *SearchGame) Close() error { return nil }

// FirstChoice is a network's choice without search: the legal action of
// the highest prior, the board seen in its own orientation. It is for one
// goroutine; the network may be shared.
type FirstChoice struct {
	v     *engine.Variant
	eval  *model.Evaluator
	batch *mcts.Batch
	legal []engine.Action
}

// NewFirstChoice is net's first choice in positions of v.
func NewFirstChoice(v *engine.Variant, net *model.Network) (*FirstChoice, error) {
	eval, err := model.NewEvaluator(v, net, 1, false, 1)
	if err != nil {
		return nil, err
	}
	return &FirstChoice{v: v, eval: eval, batch: mcts.NewBatch(v)}, nil
}

// Choose is the network's first choice in p, a position of an ongoing
// game met repetitions times before (v.Repetitions; 0 without a history).
func (f *FirstChoice) Choose(p *engine.Position, repetitions int) (engine.Action, error) {
	f.legal = f.v.Legal(p, f.legal[:0])
	if len(f.legal) == 0 {
		return 0, fmt.Errorf("first choice: no legal action in %s", f.v.FormatPosition(p))
	}
	f.batch.Reset()
	f.batch.SetRepetitions(f.batch.Add(p, f.legal), repetitions)
	if err := f.eval.Evaluate(f.batch); err != nil {
		return 0, err
	}
	first, pr := f.legal[0], float32(-1)
	for j, q := range f.batch.Priors(0) {
		if q > pr {
			first, pr = f.legal[j], q
		}
	}
	return first, nil
}
