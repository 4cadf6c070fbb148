package arena

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/internal/atomicfile"
)

// maxOpeningTries bounds the draws spent looking for one new opening.
const maxOpeningTries = 1000

// Openings draws n distinct openings of v, each plies random legal actions
// from the start that do not end the game. Positions reached twice are
// redrawn, so no two openings lead to the same game.
func Openings(v *engine.Variant, n, plies int, seed uint64) ([][]engine.Action, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0xbb67ae8584caa73b))
	seen := make(map[engine.Position]bool, n)
	out := make([][]engine.Action, 0, n)
	tries := 0
	for len(out) < n {
		if tries++; tries > maxOpeningTries*(len(out)+1) {
			return nil, fmt.Errorf("openings of %s: found only %d distinct openings of %d plies, want %d: play fewer pairs or longer openings", v.Name, len(out), plies, n)
		}
		g := engine.NewGame(v)
		ok, err := g.PlayRandom(plies, rng)
		if err != nil {
			return nil, fmt.Errorf("openings of %s: %w", v.Name, err)
		}
		key := g.Pos
		key.Ply = 0 // the same position reached by another order is the same opening
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, append([]engine.Action(nil), g.Actions...))
	}
	return out, nil
}

// Book is an opening book: positions to open a match's pairs from instead
// of random openings, each reached by the actions that lead to it from the
// start, so that a game's record still replays from the start. A book
// made by BookBuild holds positions in which one side is better off but
// not winning, half of them each seat's: its pairs are more often decided
// than random openings' (one game won and one lost cancel out, one game
// won and one drawn do not), while each pair, one game from each seat,
// stays fair.
//
// The file is text, one position a line:
//
//	# millzero opening book
//	# variant: nine
//	O*@*****/... side:0 hand:6,6 ... | +45 | d7 a7 b4 f6 g1 d2
//
// Lines starting with # are the header (free text, but "# variant: NAME"
// names the variant); every other line is the position in the project's
// notation (engine.Variant.FormatPosition, or Sanmill's FEN), the judge's
// score for seat 0 in hundredths of a piece (> 0: seat 0 better off), and
// the actions from the start that reach the position, separated by " | ".
type Book struct {
	Variant *engine.Variant // the variant of its positions
	Header  []string        // the header's lines, without their "# "
	Lines   []BookLine      // the positions, in the file's order
}

// BookLine is one position of a Book.
type BookLine struct {
	Actions  []engine.Action // from the start to the position
	Position engine.Position // where Actions lead
	Score    int             // the judge's score for seat 0, in hundredths of a piece: > 0 seat 0 is better off
}

// bookSep separates the fields of a book line.
const bookSep = " | "

// ID names the book by its openings: "sha256:" and the first 16 hex
// digits of the hash of its variant and every line's actions, so that a
// header or a score edited leaves it the same book. A game's record keeps
// it (Record.Book).
func (b *Book) ID() string {
	h := sha256.New()
	io.WriteString(h, b.Variant.Name)
	for _, l := range b.Lines {
		io.WriteString(h, "\n"+formatActions(b.Variant, l.Actions))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// formatActions writes actions in v's notation, space separated.
func formatActions(v *engine.Variant, actions []engine.Action) string {
	s := make([]string, len(actions))
	for i, a := range actions {
		s[i] = v.FormatAction(a)
	}
	return strings.Join(s, " ")
}

// SeatCounts is how many of the book's positions have each seat better
// off (a score above 0 for seat 0, below for seat 1) and how many neither.
func (b *Book) SeatCounts() (seat0, seat1, level int) {
	for _, l := range b.Lines {
		switch {
		case l.Score > 0:
			seat0++
		case l.Score < 0:
			seat1++
		default:
			level++
		}
	}
	return seat0, seat1, level
}

// Openings is the openings of n pairs drawn from the book by seed: the
// first n of a permutation of its lines that seed alone decides, so that
// two measurements of the same seed meet the same positions, and one of
// fewer pairs meets the first of them. A book of fewer than n positions
// is an error.
func (b *Book) Openings(n int, seed uint64) ([][]engine.Action, error) {
	if n > len(b.Lines) {
		return nil, fmt.Errorf("opening book of %d positions: want %d, one a pair: play fewer pairs or build a larger book", len(b.Lines), n)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x3c6ef372fe94f82b))
	perm := rng.Perm(len(b.Lines))
	out := make([][]engine.Action, n)
	for i := range out {
		out[i] = b.Lines[perm[i]].Actions
	}
	return out, nil
}

// Format writes the book as its file holds it.
func (b *Book) Format() []byte {
	v := b.Variant
	var buf bytes.Buffer
	for _, h := range b.Header {
		buf.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	for _, l := range b.Lines {
		fmt.Fprintf(&buf, "%s%s%+d%s%s\n", v.FormatPosition(&l.Position), bookSep, l.Score, bookSep, formatActions(v, l.Actions))
	}
	return buf.Bytes()
}

// WriteBook writes b to path, through a temporary file renamed when
// complete.
func WriteBook(path string, b *Book) error {
	if err := atomicfile.WriteFile(path, b.Format()); err != nil {
		return fmt.Errorf("write opening book %s: %w", path, err)
	}
	return nil
}

// ReadBook reads the opening book at path for variant v (see Book). An
// error names the file and, for a bad line, its number and what is wrong.
func ReadBook(path string, v *engine.Variant) (*Book, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening book: %w", err)
	}
	defer f.Close()
	b, err := ParseBook(f, v)
	if err != nil {
		return nil, fmt.Errorf("opening book %s: %w", path, err)
	}
	return b, nil
}

// ParseBook reads an opening book for variant v from r. Every line's
// actions must be legal from the start, not end the game, and reach the
// line's position; no position may come twice; a header naming another
// variant, a malformed score or an empty book is an error. An error names
// the line by its number.
func ParseBook(r io.Reader, v *engine.Variant) (*Book, error) {
	b := &Book{Variant: v}
	seen := map[engine.Position]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if h, ok := strings.CutPrefix(line, "#"); ok {
			h = strings.TrimSpace(h)
			b.Header = append(b.Header, h)
			if name, ok := strings.CutPrefix(h, "variant:"); ok && strings.TrimSpace(name) != v.Name {
				return nil, fmt.Errorf("line %d: a book of variant %q, want %s", n, strings.TrimSpace(name), v.Name)
			}
			continue
		}
		l, err := parseBookLine(v, line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		key := l.Position
		key.Ply = 0
		if k, ok := seen[key]; ok {
			return nil, fmt.Errorf("line %d: the position of line %d again", n, k)
		}
		seen[key] = n
		b.Lines = append(b.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(b.Lines) == 0 {
		return nil, fmt.Errorf("no positions: want lines of POSITION | SCORE | ACTIONS")
	}
	return b, nil
}

// parseBookLine reads one position line of a book.
func parseBookLine(v *engine.Variant, line string) (BookLine, error) {
	f := strings.Split(line, "|")
	if len(f) != 3 {
		return BookLine{}, fmt.Errorf("%d fields: want POSITION | SCORE | ACTIONS", len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	stated, err := v.ParseFEN(f[0])
	isFEN := err == nil
	if !isFEN {
		if stated, err = v.ParseFENOrPosition(f[0]); err != nil {
			return BookLine{}, fmt.Errorf("position: %w", err)
		}
	}
	score, err := strconv.Atoi(f[1])
	if err != nil {
		return BookLine{}, fmt.Errorf("score %q: want a whole number of hundredths of a piece for seat 0 (+45, -80)", f[1])
	}
	g := engine.NewGame(v)
	if err := g.PlayAll(f[2]); err != nil {
		return BookLine{}, fmt.Errorf("actions %q: %w", f[2], err)
	}
	if len(g.Actions) == 0 {
		return BookLine{}, fmt.Errorf("no actions: want those that reach the position from the start")
	}
	if r, why := g.Outcome(); r != engine.Ongoing {
		return BookLine{}, fmt.Errorf("actions %q end the game (%s)", f[2], why)
	}
	if !samePosition(v, &g.Pos, &stated, isFEN) {
		return BookLine{}, fmt.Errorf("actions %q reach %s, not the position of the line", f[2], v.FormatPosition(&g.Pos))
	}
	return BookLine{Actions: g.Actions, Position: g.Pos, Score: score}, nil
}

// samePosition tells whether the position the actions reached is the one
// a line states: every field of the project's notation, or of a FEN
// (which holds fewer) the FEN's.
func samePosition(v *engine.Variant, reached, stated *engine.Position, isFEN bool) bool {
	if !isFEN {
		return *reached == *stated
	}
	a, errA := v.FEN(reached)
	b, errB := v.FEN(stated)
	return errA == nil && errB == nil && a == b
}
