package arena

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
)

// ClassicHashMB is the transposition table of each game of a Classic
// player, in megabytes: enough for a second a move.
const ClassicHashMB = 32

// MaxClassicTime bounds the time a move of classic@TIME may take.
const MaxClassicTime = time.Hour

// Classic is the classical engine (package classic) as a player: a
// search of MoveTime a move (classic@1s), or to a fixed Depth
// (classic:N), evaluating with Weights (classic@1s,weights=hand). It is
// deterministic given the position and its history at a fixed depth;
// under a time budget the depth reached depends on the machine. With
// Tables it probes them in the tree and plays table positions perfectly.
type Classic struct {
	Depth    int           // plies of the last iteration; 0 searches by time
	MoveTime time.Duration // time a move when Depth is 0
	HashMB   int           // 0: ClassicHashMB
	Tables   classic.Tables
	Weights  *classic.Weights // the evaluation's weights; nil: the variant's default (classic.DefaultWeights)
}

// Name is "classic:DEPTH" or "classic@TIME" (classic@300ms, classic@1s),
// then ",weights=NAME" when the spec named a weights set, and "+tb" when
// it has tables.
func (c Classic) Name() string {
	name := "classic@" + formatMoveTime(c.MoveTime)
	if c.Depth > 0 {
		name = fmt.Sprintf("classic:%d", c.Depth)
	}
	if c.Weights != nil {
		name += ",weights=" + c.Weights.Name
	}
	if c.Tables != nil {
		name += "+tb"
	}
	return name
}

// Setup names the weights the player evaluates with, by their content:
// games of an engine whose evaluation changed under the same name are
// not taken for its own.
func (c Classic) Setup() string {
	if c.Weights == nil {
		return "weights=default " + classic.DefaultWeightsID()
	}
	return "weights=" + c.Weights.Name + " " + c.Weights.ID()
}

// formatMoveTime writes d as a spec reads it back: whole seconds as "2s",
// else milliseconds as "300ms".
func formatMoveTime(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// parseClassic reads the part of a classic spec after "classic": ":N" or
// "@TIME", then any ",weights=NAME|FILE".
func parseClassic(spec, rest string) (Classic, error) {
	rest, opts, hasOpts := strings.Cut(rest, ",")
	c, err := parseClassicLimit(spec, rest)
	if err != nil || !hasOpts {
		return c, err
	}
	for o := range strings.SplitSeq(opts, ",") {
		k, val, _ := strings.Cut(o, "=")
		if k != "weights" || val == "" {
			return Classic{}, fmt.Errorf("player %q: option %q: want weights=NAME (%s) or weights=FILE (millzero classic tune)", spec, o, strings.Join(classic.NamedWeights(), ", "))
		}
		if c.Weights, err = classic.LoadWeights(val); err != nil {
			return Classic{}, fmt.Errorf("player %q: %w", spec, err)
		}
	}
	return c, nil
}

// parseClassicLimit reads a classic spec's ":N" or "@TIME".
func parseClassicLimit(spec, rest string) (Classic, error) {
	if d, ok := strings.CutPrefix(rest, ":"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 || n > classic.MaxDepth {
			return Classic{}, fmt.Errorf("player %q: depth %q: want classic:N with N in 1..%d", spec, d, classic.MaxDepth)
		}
		return Classic{Depth: n}, nil
	}
	if t, ok := strings.CutPrefix(rest, "@"); ok {
		d, err := time.ParseDuration(t)
		if err != nil || d < time.Millisecond || d > MaxClassicTime || d%time.Millisecond != 0 {
			return Classic{}, fmt.Errorf("player %q: time %q: want classic@TIME with TIME a duration of whole milliseconds, 1ms..1h (classic@300ms, classic@1s)", spec, t)
		}
		return Classic{MoveTime: d}, nil
	}
	return Classic{}, fmt.Errorf("player %q: want classic@TIME (classic@1s, a move's time) or classic:N (N plies)", spec)
}

// NewGame makes a searcher for one game of v (its table allocated once);
// seed is unused. It refuses a variant of more than two players.
func (c Classic) NewGame(v *engine.Variant, _ uint64) (GamePlayer, error) {
	mb := c.HashMB
	if mb == 0 {
		mb = ClassicHashMB
	}
	s, err := classic.New(v, classic.Options{HashMB: mb, Tables: c.Tables, Weights: c.Weights})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return &ClassicGame{s: s, lim: classic.Limits{Depth: c.Depth, MoveTime: c.MoveTime}}, nil
}

// ClassicGame is a Classic player's game: its searcher, whose table
// carries over from move to move.
type ClassicGame struct {
	s   *classic.Searcher
	lim classic.Limits
}

// Act searches g's position under the player's limits.
func (c *ClassicGame) Act(ctx context.Context, g *engine.Game) (engine.Action, error) {
	res, err := c.s.Search(ctx, g, c.lim, nil)
	if err != nil {
		return 0, err
	}
	return res.Best, nil
}

// Analyse searches g's position under lim, or the player's own limits
// where lim sets none, reporting each completed iteration.
func (c *ClassicGame) Analyse(ctx context.Context, g *engine.Game, lim classic.Limits, report func(classic.Info)) (classic.Result, error) {
	if lim == (classic.Limits{}) {
		lim = c.lim
	}
	return c.s.Search(ctx, g, lim, report)
}

// Close releases nothing: the table goes with the game.
func (c *ClassicGame) Close() error { return nil }
