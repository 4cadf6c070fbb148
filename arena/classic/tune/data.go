package tune

import (
	"errors"
	"fmt"
	"io/fs"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/dataset"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/engine/tablebase"
)

// Result classes of a row: the game's result for the position's side to
// move.
const (
	loss uint8 = 0
	draw uint8 = 1
	win  uint8 = 2
)

// row is one position of the fit: its features and what became of it.
type row struct {
	x        [classic.NumFeatures]int16
	hand     uint8 // pieces in hand, both sides
	phase    uint8 // classic.PlacingStart while placing, else classic.Moving or classic.Flying
	y        uint8 // loss, draw or win for the side to move
	held     bool  // in the held-out games
	table    bool  // drawn from the endgame tables
	rescored bool  // a game position whose target is the tables' value
}

// target is the row's expected score for its side to move: 0, 1/2 or 1.
func (r *row) target() float64 { return float64(r.y) / 2 }

// Collect is what positions a fit takes and where from.
type Collect struct {
	Variant        *engine.Variant
	Games          []string       // arena record files, self-play shards, or directories holding them (searched through)
	Tables         *tablebase.Set // endgame tables of the variant, or nil: a game position they hold takes their exact value for its target
	TablePositions int            // positions drawn at random from each material of the tables, valued exactly, beside the games' own
	HeldOut        float64        // the fraction of games (and of table positions) held out
	MaxPositions   int            // a uniform sample of at most this many game positions; 0: all
	Seed           uint64         // of the samples
	Log            func(format string, args ...any)
}

// Data is the positions collected, with where they came from.
type Data struct {
	Variant   *engine.Variant
	rows      []row
	Sources   []string
	Files     int // files read
	Games     int // games whose positions were taken
	Positions int // game positions met (before any sample)
	Rescored  int // game positions taken whose target is the tables' value, not the game's result
	Skipped   Skipped
}

// Skipped counts what was read and not taken.
type Skipped struct {
	OtherVariant int // arena games of another variant
	Unfinished   int // arena games unfinished or forfeited: their result is not the board's
	Removing     int // positions owing a removal: the quiet search plays those out
	NoMove       int // positions whose side to move has no legal action: lost whatever the weights
}

// Rows is the number of positions collected, game and table positions.
func (d *Data) Rows() int { return len(d.rows) }

// Run reads the games and draws the table positions.
func (c Collect) Run() (*Data, error) {
	if c.Variant == nil {
		return nil, errors.New("collect: no variant")
	}
	if c.HeldOut < 0 || c.HeldOut >= 1 {
		return nil, fmt.Errorf("collect: held-out fraction %v: want 0 up to 1", c.HeldOut)
	}
	feat, err := classic.NewFeaturizer(c.Variant)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	logf := c.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var files []string
	for _, g := range c.Games {
		fs, err := parquetFiles(g)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			return nil, fmt.Errorf("collect: %s holds no Parquet files of games", g)
		}
		files = append(files, fs...)
	}
	d := &Data{Variant: c.Variant, Sources: append([]string(nil), c.Games...)}
	rng := rand.New(rand.NewPCG(c.Seed, 0x7e5e1))
	col := collector{c: &c, d: d, feat: feat, rng: rng}
	for i, path := range files {
		if err := col.file(path); err != nil {
			return nil, err
		}
		d.Files++
		logf("read %d of %d files: %d games, %d positions", i+1, len(files), d.Games, len(d.rows))
	}
	if c.Tables != nil {
		d.Sources = append(d.Sources, "tables "+c.Tables.Dir())
	}
	if c.Tables != nil && c.TablePositions > 0 {
		if err := col.tables(); err != nil {
			return nil, err
		}
		logf("drew %d table positions", c.TablePositions*len(c.Tables.Materials()))
	}
	if len(d.rows) == 0 {
		return nil, errors.New("collect: no positions")
	}
	for i := range d.rows {
		if d.rows[i].rescored {
			d.Rescored++
		}
	}
	return d, nil
}

// parquetFiles lists the Parquet files of path: itself, or every one
// under it, leaving out hidden (being written) files.
func parquetFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".parquet") {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	return out, nil
}

// collector turns games into rows.
type collector struct {
	c    *Collect
	d    *Data
	feat *classic.Featurizer
	rng  *rand.Rand
	pt   classic.Point
	seen int // game positions offered to the sample
}

// file reads one file: arena records, else a self-play shard.
func (col *collector) file(path string) error {
	recs, err := arena.ReadRecords(path)
	if err == nil {
		for i := range recs {
			if err := col.record(&recs[i]); err != nil {
				return fmt.Errorf("collect: %s: %w", path, err)
			}
		}
		return nil
	}
	if !errors.Is(err, arena.ErrNotRecords) {
		return fmt.Errorf("collect: %w", err)
	}
	samples, err := dataset.ReadShardFor(path, col.c.Variant)
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	games := map[string]bool{}
	for i := range samples {
		s := &samples[i]
		if !games[s.GameID] {
			games[s.GameID] = true
			col.d.Games++
		}
		y := draw
		if s.Outcome < col.c.Variant.Players {
			y = loss
			if s.Outcome == int(s.Position.Side) {
				y = win
			}
		}
		col.position(&s.Position, y, dataset.InValidation(s.GameID, col.c.HeldOut))
	}
	return nil
}

// record replays one arena game.
func (col *collector) record(r *arena.Record) error {
	v := col.c.Variant
	if r.Variant != v.Name {
		col.d.Skipped.OtherVariant++
		return nil
	}
	if r.Unfinished != "" || r.Forfeit >= 0 || r.Seats() != 2 {
		col.d.Skipped.Unfinished++
		return nil
	}
	id := r.Match + "/" + strconv.Itoa(int(r.Pair)) + "/" + strconv.Itoa(int(r.Game))
	held := dataset.InValidation(id, col.c.HeldOut)
	col.d.Games++
	g := engine.NewGame(v)
	for i, m := range strings.Fields(r.Moves) {
		y := draw
		if r.Winner >= 0 {
			y = loss
			if int(r.Winner) == int(g.Pos.Side) {
				y = win
			}
		}
		col.position(&g.Pos, y, held)
		if err := g.PlayString(m); err != nil {
			return fmt.Errorf("game %s action %d: %w", id, i+1, err)
		}
	}
	return nil
}

// position offers one game position to the sample.
func (col *collector) position(p *engine.Position, y uint8, held bool) {
	if p.Result != engine.Ongoing {
		return
	}
	col.d.Positions++
	if p.Removing() {
		col.d.Skipped.Removing++
		return
	}
	col.feat.Point(p, &col.pt)
	if col.pt.Lost {
		col.d.Skipped.NoMove++
		return
	}
	rescored := false
	if set := col.c.Tables; set != nil && p.Hand[0]|p.Hand[1] == 0 {
		if val, err := set.Probe(p); err == nil {
			y, rescored = tableResult(val), true
		}
	}
	r := col.row(p, y, held)
	r.rescored = rescored
	col.seen++
	max := col.c.MaxPositions
	switch {
	case max <= 0 || len(col.d.rows) < max:
		col.d.rows = append(col.d.rows, r)
	default:
		if j := col.rng.IntN(col.seen); j < max {
			col.d.rows[j] = r
		}
	}
}

// tableResult is a table value as a row's result.
func tableResult(val tablebase.Value) uint8 {
	switch val.Outcome {
	case tablebase.Win:
		return win
	case tablebase.Loss:
		return loss
	}
	return draw
}

// row is the row of p, whose features are in col.pt.
func (col *collector) row(p *engine.Position, y uint8, held bool) row {
	r := row{y: y, held: held, hand: p.Hand[0] + p.Hand[1]}
	for f, x := range col.pt.X {
		r.x[f] = int16(max(min(x, 1<<14), -1<<14))
	}
	switch {
	case r.hand != 0:
		r.phase = uint8(classic.PlacingStart)
	case col.pt.Blend[classic.Flying] != 0:
		r.phase = uint8(classic.Flying)
	default:
		r.phase = uint8(classic.Moving)
	}
	return r
}

// tables draws TablePositions random positions of each material of the
// tables, with their exact values, the side to move at random.
func (col *collector) tables() error {
	v, set := col.c.Variant, col.c.Tables
	if set.Variant().Spec.Hash() != v.Spec.Hash() {
		return fmt.Errorf("collect: tables of %s, not of %s", set.Variant().Name, v.Name)
	}
	n := col.c.TablePositions
	points := v.Board.Points
	for _, m := range set.Materials() {
		found := 0
		for try := 0; found < n && try < 50*n; try++ {
			perm := col.rng.Perm(points)
			var pieces [2]uint32
			side := col.rng.IntN(2)
			for i := 0; i < m.Mover+m.Opponent; i++ {
				s := side
				if i >= m.Mover {
					s = 1 - side
				}
				pieces[s] |= 1 << perm[i]
			}
			p, err := v.Placed(pieces, side, 0)
			if err != nil {
				return fmt.Errorf("collect: table position: %w", err)
			}
			if p.Result != engine.Ongoing || bits.OnesCount32(pieces[side]) != m.Mover {
				continue
			}
			val, err := set.Probe(&p)
			if err != nil {
				continue
			}
			col.feat.Point(&p, &col.pt)
			if col.pt.Lost {
				continue
			}
			r := col.row(&p, tableResult(val), col.rng.Float64() < col.c.HeldOut)
			r.table = true
			col.d.rows = append(col.d.rows, r)
			found++
		}
	}
	return nil
}
