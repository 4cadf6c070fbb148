package tablebase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"os"

	"github.com/millzero/millzero/internal/atomicfile"
)

// FormatVersion is the version of the table files this package writes and
// reads.
const FormatVersion = 1

// ErrBadFile is returned (wrapped) for a table file that cannot be used:
// not a table, another format version, built for other rules, truncated or
// corrupted.
var ErrBadFile = errors.New("bad tablebase file")

// The file layout, little-endian. The header is headerSize bytes:
//
//	  0  magic "MZTB"
//	  4  format version        uint32
//	  8  variant name          [32]byte, zero padded (for messages only)
//	 40  rules hash            [32]byte (SHA-256, see rulesHash)
//	 72  mover, opponent       uint8, uint8: the material
//	 74  entry width           uint8: 1 or 2 bytes
//	 75  board points          uint8
//	 76  mover sets            uint32: canonical sets of the mover's pieces
//	 80  opponent sets         uint64: per mover set
//	 88  payload checksum      uint64: CRC-64 (ECMA) of the entries
//	 96  distance budget       uint32: the quiet plies of the draw rule at a fresh counter, 0 = none
//	100  reserved              20 zero bytes
//	120  header checksum       uint64: CRC-64 (ECMA) of bytes 0..119
//
// The entries follow: one per index (see index), width bytes each, the
// outcome in the top 2 bits and the distance below.
const (
	headerSize = 128
	magic      = "MZTB"
)

var crcTable = crc64.MakeTable(crc64.ECMA)

// FileName is the name of the file of material m of variant name.
func FileName(variant string, m Material) string {
	return variant + "-" + m.String() + ".mtb"
}

// writeTable writes t to path, under a temporary name renamed when
// complete.
func writeTable(path string, r *rules, t *Table) error {
	var h [headerSize]byte
	copy(h[0:4], magic)
	binary.LittleEndian.PutUint32(h[4:], FormatVersion)
	copy(h[8:40], r.v.Name)
	copy(h[40:72], r.hash[:])
	h[72], h[73] = byte(t.x.mat.Mover), byte(t.x.mat.Opponent)
	h[74], h[75] = byte(t.width), byte(r.points)
	binary.LittleEndian.PutUint32(h[76:], uint32(len(t.x.ms.reps)))
	binary.LittleEndian.PutUint64(h[80:], t.x.per)
	binary.LittleEndian.PutUint64(h[88:], crc64.Checksum(t.data, crcTable))
	binary.LittleEndian.PutUint32(h[96:], uint32(r.budget(t.x.mat.Mover, t.x.mat.Opponent)))
	binary.LittleEndian.PutUint64(h[120:], crc64.Checksum(h[:120], crcTable))
	err := atomicfile.Write(path, func(w io.Writer) error {
		if _, err := w.Write(h[:]); err != nil {
			return err
		}
		_, err := w.Write(t.data)
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readTable reads and checks the file of material m at path: its header,
// that it was built for these rules and this material, its size and its
// checksum.
func readTable(path string, r *rules, ms *moverSets, m Material) (*Table, error) {
	bad := func(why string, args ...any) (*Table, error) {
		return nil, fmt.Errorf("tablebase file %s: %w: %s", path, ErrBadFile, fmt.Sprintf(why, args...))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tablebase file %s: %w", path, err)
	}
	if len(data) < headerSize {
		if len(data) >= 4 && string(data[:4]) != magic {
			return bad("not a tablebase file (no %q magic)", magic)
		}
		return bad("truncated: %d bytes, shorter than the %d-byte header", len(data), headerSize)
	}
	h := data[:headerSize]
	if string(h[:4]) != magic {
		return bad("not a tablebase file (no %q magic)", magic)
	}
	if v := binary.LittleEndian.Uint32(h[4:]); v != FormatVersion {
		return bad("format version %d, this program reads version %d", v, FormatVersion)
	}
	if crc64.Checksum(h[:120], crcTable) != binary.LittleEndian.Uint64(h[120:]) {
		return bad("header checksum mismatch (corrupted)")
	}
	name := string(bytes.TrimRight(h[8:40], "\x00"))
	if !bytes.Equal(h[40:72], r.hash[:]) {
		return bad("built for variant %q with other rules than %s's (rules hash %x, want %x)", name, r.v.Name, h[40:44], r.hash[:4])
	}
	got := Material{int(h[72]), int(h[73])}
	if got != m {
		return bad("holds material %s, want %s", got, m)
	}
	x := newIndex(r, ms, m)
	width := int(h[74])
	if width != 1 && width != 2 {
		return bad("entry width %d, want 1 or 2", width)
	}
	if int(h[75]) != r.points || int(binary.LittleEndian.Uint32(h[76:])) != len(ms.reps) || binary.LittleEndian.Uint64(h[80:]) != x.per {
		return bad("index shape (%d points, %d x %d) does not match this board's (%d points, %d x %d)",
			h[75], binary.LittleEndian.Uint32(h[76:]), binary.LittleEndian.Uint64(h[80:]), r.points, len(ms.reps), x.per)
	}
	want := uint64(headerSize) + x.size*uint64(width)
	if uint64(len(data)) != want {
		if uint64(len(data)) < want {
			return bad("truncated: %d bytes, want %d", len(data), want)
		}
		return bad("%d bytes, want %d (trailing data)", len(data), want)
	}
	payload := data[headerSize:]
	if crc64.Checksum(payload, crcTable) != binary.LittleEndian.Uint64(h[88:]) {
		return bad("checksum mismatch (corrupted entries)")
	}
	t := &Table{x: x, width: width, data: payload, path: path}
	for i := range x.size {
		if o, d := t.entry(i); o != unused && (d > maxNeed || (o == Draw) != (d == 0)) {
			return bad("entry %d: outcome %s at distance %d", i, o, d)
		}
	}
	return t, nil
}
