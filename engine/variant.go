package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/millzero/millzero/configs"
)

// Spec is a variant file: a board and the options of the rules
// (docs/rules.md, "Variant files").
// A file may name a base variant and set only what differs.
type Spec struct {
	Name                          string    `yaml:"name"`
	Base                          string    `yaml:"base,omitempty"`
	Description                   string    `yaml:"description"`
	Board                         BoardSpec `yaml:"board"`
	Players                       int       `yaml:"players"`
	Pieces                        int       `yaml:"pieces"`
	FlyAt                         int       `yaml:"fly_at"`
	RemovePerMill                 bool      `yaml:"remove_per_mill"`
	RemoveFromMillsWhenAllInMills bool      `yaml:"remove_from_mills_when_all_in_mills"`
	RemoveFromMillsAlways         bool      `yaml:"remove_from_mills_always,omitempty"` // omitted when false, so the specs (and hashes) of variants written before it are unchanged
	LineWins                      bool      `yaml:"line_wins"`
	BoardFullDraw                 bool      `yaml:"board_full_draw"`
	ForbidOpponentMills           bool      `yaml:"forbid_opponent_mills"`
	MoveWhilePlacing              bool      `yaml:"move_while_placing"`
	NoCaptureDraw                 int       `yaml:"no_capture_draw"`
	RepetitionDraw                int       `yaml:"repetition_draw"`
	EndgameDraw                   int       `yaml:"endgame_draw"`
	MaxPlies                      int       `yaml:"max_plies"`
}

// Variant is a board with its rules: immutable once built, shared by every
// game of it. The rule fields are those of Spec.
type Variant struct {
	Spec
	Board *Board
	z     zobrist

	// The draw rules' thresholds with 0 (off) as never: a counter at or
	// past one of them may end the game.
	noCaptureAt, endgameAt int
}

// ErrUnknownVariant is returned (wrapped) for a variant name not known.
var ErrUnknownVariant = errors.New("unknown variant")

// Names lists the named variants embedded in the binary, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(configs.Variants, "variants")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Load builds the named variant from the embedded variant files.
func Load(name string) (*Variant, error) {
	spec, err := loadSpec(name, 0)
	if err != nil {
		return nil, err
	}
	return New(spec)
}

// LoadNameOrFile builds the variant s names: a named variant, else the
// variant file at path s. Neither gives the name's error, which lists the
// names. Only a command line may name a file: a request never does.
func LoadNameOrFile(s string) (*Variant, error) {
	v, err := Load(s)
	if err == nil {
		return v, nil
	}
	text, ferr := os.ReadFile(s)
	if errors.Is(ferr, fs.ErrNotExist) {
		return nil, err
	}
	if ferr != nil {
		return nil, fmt.Errorf("variant file: %w", ferr)
	}
	if v, err = ParseVariant(text); err != nil {
		return nil, fmt.Errorf("variant file %s: %w", s, err)
	}
	return v, nil
}

// ParseVariant builds a variant from the text of a variant file. Its base,
// if it names one, is a named variant.
func ParseVariant(text []byte) (*Variant, error) {
	spec, err := decodeSpec(text, "variant file", 0)
	if err != nil {
		return nil, err
	}
	return New(spec)
}

func loadSpec(name string, depth int) (Spec, error) {
	if depth > 8 {
		return Spec{}, fmt.Errorf("variant %q: base chain too deep", name)
	}
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return Spec{}, fmt.Errorf("variant %q: %w (known: %s)", name, ErrUnknownVariant, strings.Join(Names(), ", "))
	}
	text, err := configs.Variants.ReadFile("variants/" + name + ".yaml")
	if err != nil {
		return Spec{}, fmt.Errorf("variant %q: %w (known: %s)", name, ErrUnknownVariant, strings.Join(Names(), ", "))
	}
	return decodeSpec(text, "variant "+name, depth)
}

// decodeSpec reads a variant file over its base. Unknown keys are errors.
func decodeSpec(text []byte, what string, depth int) (Spec, error) {
	var head struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(text, &head); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", what, err)
	}
	var spec Spec
	if head.Base != "" {
		base, err := loadSpec(head.Base, depth+1)
		if err != nil {
			return Spec{}, fmt.Errorf("%s: base: %w", what, err)
		}
		spec = base
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", what, err)
	}
	spec.Base = head.Base
	return spec, nil
}

// New checks a spec and builds its variant.
func New(spec Spec) (*Variant, error) {
	name := spec.Name
	if name == "" {
		return nil, fmt.Errorf("variant: no name")
	}
	board, err := NewBoard(spec.Board)
	if err != nil {
		return nil, fmt.Errorf("variant %s: %w", name, err)
	}
	maxPlayers := 2
	if board.Rotating {
		maxPlayers = MaxSeats
	}
	switch {
	case spec.Players < 2 || spec.Players > maxPlayers:
		return nil, fmt.Errorf("variant %s: players %d: want 2..%d on this board", name, spec.Players, maxPlayers)
	case spec.Pieces < 3 || spec.Pieces > MaxPoints:
		return nil, fmt.Errorf("variant %s: pieces %d: want 3..%d", name, spec.Pieces, MaxPoints)
	case spec.FlyAt < 0 || spec.FlyAt > spec.Pieces:
		return nil, fmt.Errorf("variant %s: fly_at %d: want 0..pieces", name, spec.FlyAt)
	case spec.NoCaptureDraw < 0 || spec.RepetitionDraw < 0 || spec.EndgameDraw < 0:
		return nil, fmt.Errorf("variant %s: draw rules must not be negative", name)
	case spec.RepetitionDraw == 1:
		return nil, fmt.Errorf("variant %s: repetition_draw 1 would end every game at once: want 0 (off) or 2 and up", name)
	case spec.MaxPlies < 1 || spec.MaxPlies > 60000:
		return nil, fmt.Errorf("variant %s: max_plies %d: want 1..60000", name, spec.MaxPlies)
	case spec.EndgameDraw > 0 && spec.Players != 2:
		return nil, fmt.Errorf("variant %s: endgame_draw is a two-player rule: want 0 with %d players", name, spec.Players)
	case spec.ForbidOpponentMills && !board.Rotating:
		return nil, fmt.Errorf("variant %s: forbid_opponent_mills needs the rotating-ring board", name)
	}
	v := &Variant{Spec: spec, Board: board}
	v.z = newZobrist()
	v.noCaptureAt, v.endgameAt = spec.NoCaptureDraw, spec.EndgameDraw
	if v.noCaptureAt == 0 {
		v.noCaptureAt = math.MaxInt
	}
	if v.endgameAt == 0 {
		v.endgameAt = math.MaxInt
	}
	return v, nil
}

// Start is the position before the first action: an empty board, every
// piece in hand, seat 0 to move.
func (v *Variant) Start() Position {
	p := Position{LastRotation: NoRotation}
	for s := 0; s < v.Players; s++ {
		p.Hand[s] = uint8(v.Pieces)
	}
	p.Hash = v.hash(&p)
	return p
}

// CanFly reports whether seat may move a piece to any empty point.
func (v *Variant) CanFly(p *Position, seat int) bool {
	return v.FlyAt > 0 && p.Hand[seat] == 0 && bits.OnesCount32(p.Pieces[seat]) <= v.FlyAt
}

// PiecesLeft is what seat has on the board and in hand.
func (p *Position) PiecesLeft(seat int) int {
	return bits.OnesCount32(p.Pieces[seat]) + int(p.Hand[seat])
}

// Occupied is the bitboard of every piece on the board.
func (p *Position) Occupied() uint32 {
	return p.Pieces[0] | p.Pieces[1] | p.Pieces[2] | p.Pieces[3]
}

// Owner is the seat whose piece is on point pt, or -1.
func (p *Position) Owner(pt int) int {
	for s := 0; s < MaxSeats; s++ {
		if p.Pieces[s]>>pt&1 != 0 {
			return s
		}
	}
	return -1
}
