package dataset

import (
	"fmt"
	"math"

	"github.com/millzero/millzero/engine"
	"github.com/parquet-go/parquet-go"
)

// FormatVersion is the version of the shard layout this build writes. It
// is stored in every shard's file metadata under FormatKey; readers read
// this version and version 1 (rowV1, without the game's end), and skip a
// shard of any other. Bump it whenever row's columns change meaning.
const FormatVersion = "2"

// formatV1 is the first layout: row without the columns after Full.
const formatV1 = "1"

// FormatKey is the file metadata key that holds FormatVersion.
const FormatKey = "millzero.format"

// The other file metadata keys every shard carries.
const (
	CreatedKey = "millzero.created" // RFC 3339 time the shard was completed
	HostKey    = "millzero.host"    // the machine that wrote it

	// VariantSpecKey+NAME holds the resolved spec (engine.Spec.Canonical)
	// of variant NAME, one key for each variant whose samples the shard
	// holds. Readers rebuild the variant from it; a shard written before
	// specs travelled has none, and its variants are looked up by name.
	VariantSpecKey = "millzero.variant_spec."
)

// row is one sample as a Parquet row: every column a plain scalar but the
// policy, so any Parquet tool reads it without knowing the engine. Bitboards
// are one column per seat (seats a variant does not have are 0); bit i is
// point i of the variant's board (engine.Board's numbering). Compression is
// zstd for every column (set on the writer); the variant is dictionary
// encoded.
type row struct {
	rowV1

	// Format 2: what the game did after the position (Sample.Reply, End).
	Reply      int32  `parquet:"reply"`
	EndPieces0 uint32 `parquet:"end_pieces_0"`
	EndPieces1 uint32 `parquet:"end_pieces_1"`
	EndPieces2 uint32 `parquet:"end_pieces_2"`
	EndPieces3 uint32 `parquet:"end_pieces_3"`
	EndHand0   uint8  `parquet:"end_hand_0"`
	EndHand1   uint8  `parquet:"end_hand_1"`
	EndHand2   uint8  `parquet:"end_hand_2"`
	EndHand3   uint8  `parquet:"end_hand_3"`
	EndPly     int32  `parquet:"end_ply"`
}

// rowV1 is a row of format 1, whose shards readers still read: row's
// columns up to Full, which row embeds (Parquet lays an embedded struct's
// columns out in place).
type rowV1 struct {
	Variant      string      `parquet:"variant,dict"`
	GameID       string      `parquet:"game_id"`
	Ply          int32       `parquet:"ply"`
	Generation   int32       `parquet:"generation"`
	Pieces0      uint32      `parquet:"pieces_0"`
	Pieces1      uint32      `parquet:"pieces_1"`
	Pieces2      uint32      `parquet:"pieces_2"`
	Pieces3      uint32      `parquet:"pieces_3"`
	Hand0        uint8       `parquet:"hand_0"`
	Hand1        uint8       `parquet:"hand_1"`
	Hand2        uint8       `parquet:"hand_2"`
	Hand3        uint8       `parquet:"hand_3"`
	Pending0     uint8       `parquet:"pending_0"`
	Pending1     uint8       `parquet:"pending_1"`
	Pending2     uint8       `parquet:"pending_2"`
	Pending3     uint8       `parquet:"pending_3"`
	Side         uint8       `parquet:"side"`
	Out          uint8       `parquet:"out"`
	LastRotation int8        `parquet:"last_rotation"`
	Result       uint8       `parquet:"result"`
	Reason       uint8       `parquet:"reason"`
	NoCapture    uint16      `parquet:"no_capture"`
	Endgame      uint16      `parquet:"endgame"`
	Quiet        uint16      `parquet:"quiet"`
	PositionPly  uint16      `parquet:"position_ply"`
	Hash         uint64      `parquet:"hash"`
	Repetitions  int32       `parquet:"repetitions"`
	Policy       []policyRow `parquet:"policy,list"`
	RootValue    float32     `parquet:"root_value"`
	Outcome      int8        `parquet:"outcome"`
	Simulations  int32       `parquet:"simulations"`
	Full         bool        `parquet:"full"`
}

// policyRow is one element of the policy list.
type policyRow struct {
	Action uint16  `parquet:"action"`
	Prob   float32 `parquet:"prob"`
}

// rowSchema is the Parquet schema of a shard. A parquet.Schema is safe for
// concurrent use and never changes, so one value serves every reader and
// writer (it is not mutable state).
var rowSchema, rowSchemaV1 = parquet.SchemaOf(row{}), parquet.NewSchema("row", parquet.SchemaOf(rowV1{}))

// fromSample fills r from s, reusing r.Policy's storage.
func (r *row) fromSample(s *Sample) {
	p := &s.Position
	*r = row{rowV1: rowV1{
		Variant:      s.Variant,
		GameID:       s.GameID,
		Ply:          int32(s.Ply),
		Generation:   int32(s.Generation),
		Pieces0:      p.Pieces[0],
		Pieces1:      p.Pieces[1],
		Pieces2:      p.Pieces[2],
		Pieces3:      p.Pieces[3],
		Hand0:        p.Hand[0],
		Hand1:        p.Hand[1],
		Hand2:        p.Hand[2],
		Hand3:        p.Hand[3],
		Pending0:     p.Pending[0],
		Pending1:     p.Pending[1],
		Pending2:     p.Pending[2],
		Pending3:     p.Pending[3],
		Side:         p.Side,
		Out:          p.Out,
		LastRotation: p.LastRotation,
		Result:       uint8(p.Result),
		Reason:       uint8(p.Reason),
		NoCapture:    p.NoCapture,
		Endgame:      p.Endgame,
		Quiet:        p.Quiet,
		PositionPly:  p.Ply,
		Hash:         p.Hash,
		Repetitions:  int32(s.Repetitions),
		Policy:       r.Policy[:0],
		RootValue:    s.RootValue,
		Outcome:      int8(s.Outcome),
		Simulations:  int32(s.Simulations),
		Full:         s.Full,
	},
		Reply:      int32(s.Reply),
		EndPieces0: s.End.Pieces[0],
		EndPieces1: s.End.Pieces[1],
		EndPieces2: s.End.Pieces[2],
		EndPieces3: s.End.Pieces[3],
		EndHand0:   s.End.Hand[0],
		EndHand1:   s.End.Hand[1],
		EndHand2:   s.End.Hand[2],
		EndHand3:   s.End.Hand[3],
		EndPly:     int32(s.End.Ply),
	}
	for _, e := range s.Policy {
		r.Policy = append(r.Policy, policyRow{Action: e.Action, Prob: e.Prob})
	}
}

// Validate reports the first way s cannot be a position of v: a seat, a
// point, an action id or a probability out of range. Readers skip the rest of
// a shard holding such a row; writers refuse it.
func Validate(v *engine.Variant, s *Sample) error {
	p := &s.Position
	if s.Variant != v.Name {
		return fmt.Errorf("variant %q, want %q", s.Variant, v.Name)
	}
	if s.GameID == "" {
		return fmt.Errorf("empty game id")
	}
	if int(p.Side) >= v.Players {
		return fmt.Errorf("side to move %d of %d players", p.Side, v.Players)
	}
	board := uint32(1)<<v.Board.Points - 1
	if v.Board.Points >= 32 {
		board = math.MaxUint32
	}
	var all uint32
	for seat := 0; seat < engine.MaxSeats; seat++ {
		if seat >= v.Players && (p.Pieces[seat] != 0 || p.Hand[seat] != 0 || p.Pending[seat] != 0) {
			return fmt.Errorf("seat %d has pieces but the variant has %d players", seat, v.Players)
		}
		if p.Pieces[seat]&^board != 0 {
			return fmt.Errorf("seat %d has pieces off the %d-point board", seat, v.Board.Points)
		}
		if all&p.Pieces[seat] != 0 {
			return fmt.Errorf("seat %d shares a point with another seat", seat)
		}
		all |= p.Pieces[seat]
	}
	if p.LastRotation != engine.NoRotation && (p.LastRotation < 0 || int(p.LastRotation) >= 2*v.Board.Rings || !v.Board.Rotating) {
		return fmt.Errorf("last rotation %d on a board without that ring", p.LastRotation)
	}
	if s.Outcome < 0 || s.Outcome > v.Players {
		return fmt.Errorf("outcome %d, want 0..%d", s.Outcome, v.Players)
	}
	if math.IsNaN(float64(s.RootValue)) || math.IsInf(float64(s.RootValue), 0) {
		return fmt.Errorf("root value %v", s.RootValue)
	}
	n := v.NumActions()
	if s.Reply < -1 || s.Reply >= n {
		return fmt.Errorf("reply %d outside the %d-action space (-1: none)", s.Reply, n)
	}
	if s.End.Ply < 0 {
		return fmt.Errorf("the game's end at ply %d", s.End.Ply)
	}
	var end uint32
	for seat := 0; seat < engine.MaxSeats; seat++ {
		e := s.End.Pieces[seat]
		if e&^board != 0 || end&e != 0 || seat >= v.Players && (e != 0 || s.End.Hand[seat] != 0) {
			return fmt.Errorf("the game's end: seat %d's pieces off the board, on another seat's or of a seat the variant has not", seat)
		}
		end |= e
	}
	for _, e := range s.Policy {
		if int(e.Action) >= n {
			return fmt.Errorf("policy action %d outside the %d-action space", e.Action, n)
		}
		if !(e.Prob >= 0 && e.Prob <= 1) {
			return fmt.Errorf("policy probability %v of action %d", e.Prob, e.Action)
		}
	}
	return nil
}
