package dataset

import (
	"fmt"

	"github.com/millzero/millzero/engine"
	"github.com/parquet-go/parquet-go"
)

// field names a leaf column of rowSchema.
type field uint8

// The leaf columns of row, as decode's jump table knows them.
const (
	fNone field = iota
	fVariant
	fGameID
	fPly
	fGeneration
	fPieces0
	fPieces1
	fPieces2
	fPieces3
	fHand0
	fHand1
	fHand2
	fHand3
	fPending0
	fPending1
	fPending2
	fPending3
	fSide
	fOut
	fLastRotation
	fResult
	fReason
	fNoCapture
	fEndgame
	fQuiet
	fPositionPly
	fHash
	fRepetitions
	fAction
	fProb
	fRootValue
	fOutcome
	fSimulations
	fFull
	fReply
	fEndPieces0
	fEndPieces1
	fEndPieces2
	fEndPieces3
	fEndHand0
	fEndHand1
	fEndHand2
	fEndHand3
	fEndPly
)

// fieldOf maps rowSchema's leaf column index to its field, looked up by
// path once. Decoding a parquet.Row by column, rather than by reflection
// into a row, is several times faster and allocates nothing per row.
var fieldOf = func() []field {
	paths := map[field][]string{
		fVariant: {"variant"}, fGameID: {"game_id"}, fPly: {"ply"}, fGeneration: {"generation"},
		fPieces0: {"pieces_0"}, fPieces1: {"pieces_1"}, fPieces2: {"pieces_2"}, fPieces3: {"pieces_3"},
		fHand0: {"hand_0"}, fHand1: {"hand_1"}, fHand2: {"hand_2"}, fHand3: {"hand_3"},
		fPending0: {"pending_0"}, fPending1: {"pending_1"}, fPending2: {"pending_2"}, fPending3: {"pending_3"},
		fSide: {"side"}, fOut: {"out"}, fLastRotation: {"last_rotation"}, fResult: {"result"},
		fReason: {"reason"}, fNoCapture: {"no_capture"}, fEndgame: {"endgame"}, fQuiet: {"quiet"},
		fPositionPly: {"position_ply"}, fHash: {"hash"}, fRepetitions: {"repetitions"},
		fAction: {"policy", "list", "element", "action"}, fProb: {"policy", "list", "element", "prob"},
		fRootValue: {"root_value"}, fOutcome: {"outcome"}, fSimulations: {"simulations"}, fFull: {"full"},
		fReply:      {"reply"},
		fEndPieces0: {"end_pieces_0"}, fEndPieces1: {"end_pieces_1"}, fEndPieces2: {"end_pieces_2"}, fEndPieces3: {"end_pieces_3"},
		fEndHand0: {"end_hand_0"}, fEndHand1: {"end_hand_1"}, fEndHand2: {"end_hand_2"}, fEndHand3: {"end_hand_3"},
		fEndPly: {"end_ply"},
	}
	out := make([]field, len(rowSchema.Columns()))
	for f, path := range paths {
		c, ok := rowSchema.Lookup(path...)
		if !ok {
			panic(fmt.Sprintf("dataset: no column %v in the row schema", path)) // a bug in row's tags
		}
		out[c.ColumnIndex] = f
	}
	for c, f := range out {
		if f == fNone {
			panic(fmt.Sprintf("dataset: column %v of the row schema is not decoded", rowSchema.Columns()[c]))
		}
	}
	return out
}()

// decoder turns parquet.Rows of rowSchema into Samples. It keeps the
// strings it has made, so consecutive rows of one game, and every row of a
// variant, share them instead of allocating.
type decoder struct {
	variants map[string]string
	lastGame string
}

// maxInterned bounds the variant names a decoder keeps: a corrupt file must
// not grow it without end.
const maxInterned = 64

// decode fills s from r, reusing s.Policy's storage.
func (d *decoder) decode(r parquet.Row, s *Sample) error {
	policy := s.Policy[:0]
	*s = Sample{}
	p := &s.Position
	probs := 0
	for _, v := range r {
		c := v.Column()
		if c < 0 || c >= len(fieldOf) {
			return fmt.Errorf("value of column %d outside the schema", c)
		}
		switch fieldOf[c] {
		case fVariant:
			b := v.ByteArray()
			name, ok := d.variants[string(b)]
			if !ok {
				name = string(b)
				if d.variants == nil {
					d.variants = map[string]string{}
				}
				if len(d.variants) < maxInterned {
					d.variants[name] = name
				}
			}
			s.Variant = name
		case fGameID:
			if b := v.ByteArray(); string(b) != d.lastGame {
				d.lastGame = string(b)
			}
			s.GameID = d.lastGame
		case fPly:
			s.Ply = int(v.Int32())
		case fGeneration:
			s.Generation = int(v.Int32())
		case fPieces0:
			p.Pieces[0] = v.Uint32()
		case fPieces1:
			p.Pieces[1] = v.Uint32()
		case fPieces2:
			p.Pieces[2] = v.Uint32()
		case fPieces3:
			p.Pieces[3] = v.Uint32()
		case fHand0:
			p.Hand[0] = uint8(v.Uint32())
		case fHand1:
			p.Hand[1] = uint8(v.Uint32())
		case fHand2:
			p.Hand[2] = uint8(v.Uint32())
		case fHand3:
			p.Hand[3] = uint8(v.Uint32())
		case fPending0:
			p.Pending[0] = uint8(v.Uint32())
		case fPending1:
			p.Pending[1] = uint8(v.Uint32())
		case fPending2:
			p.Pending[2] = uint8(v.Uint32())
		case fPending3:
			p.Pending[3] = uint8(v.Uint32())
		case fSide:
			p.Side = uint8(v.Uint32())
		case fOut:
			p.Out = uint8(v.Uint32())
		case fLastRotation:
			p.LastRotation = int8(v.Int32())
		case fResult:
			p.Result = engine.Result(v.Uint32())
		case fReason:
			p.Reason = engine.Reason(v.Uint32())
		case fNoCapture:
			p.NoCapture = uint16(v.Uint32())
		case fEndgame:
			p.Endgame = uint16(v.Uint32())
		case fQuiet:
			p.Quiet = uint16(v.Uint32())
		case fPositionPly:
			p.Ply = uint16(v.Uint32())
		case fHash:
			p.Hash = v.Uint64()
		case fRepetitions:
			s.Repetitions = int(v.Int32())
		case fAction:
			if !v.IsNull() { // an empty list is one null value
				policy = append(policy, PolicyEntry{Action: uint16(v.Uint32())})
			}
		case fProb:
			if !v.IsNull() {
				if probs >= len(policy) {
					return fmt.Errorf("policy has more probabilities than actions")
				}
				policy[probs].Prob = v.Float()
				probs++
			}
		case fRootValue:
			s.RootValue = v.Float()
		case fOutcome:
			s.Outcome = int(v.Int32())
		case fSimulations:
			s.Simulations = int(v.Int32())
		case fFull:
			s.Full = v.Boolean()
		case fReply:
			s.Reply = int(v.Int32())
		case fEndPieces0:
			s.End.Pieces[0] = v.Uint32()
		case fEndPieces1:
			s.End.Pieces[1] = v.Uint32()
		case fEndPieces2:
			s.End.Pieces[2] = v.Uint32()
		case fEndPieces3:
			s.End.Pieces[3] = v.Uint32()
		case fEndHand0:
			s.End.Hand[0] = uint8(v.Uint32())
		case fEndHand1:
			s.End.Hand[1] = uint8(v.Uint32())
		case fEndHand2:
			s.End.Hand[2] = uint8(v.Uint32())
		case fEndHand3:
			s.End.Hand[3] = uint8(v.Uint32())
		case fEndPly:
			s.End.Ply = int(v.Int32())
		}
	}
	if probs != len(policy) {
		return fmt.Errorf("policy has %d actions and %d probabilities", len(policy), probs)
	}
	s.Policy = policy
	return nil
}
