package arena

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// RecordExt is the name ending of a complete file of game records; a file
// being written ends in RecordExt+".tmp" and is renamed when complete.
const RecordExt = ".parquet"

// The file metadata keys of a record file.
const (
	recordFormatKey     = "millzero.arena.format"
	recordFormatVersion = "1"
)

// Record is one finished arena game, a row of the match's Parquet file.
// Seat 0 moves first. Moves holds every action from the start position in
// the variant's notation, space separated, the opening's first.
type Record struct {
	Match    string `parquet:"match,dict"`    // the match's id: its file name without RecordExt
	Variant  string `parquet:"variant,dict"`  // the variant's name
	Pair     int32  `parquet:"pair"`          // the pair (opening) number within the match, from 0
	Game     int32  `parquet:"game"`          // 0: player A has seat 0; 1: the seats swapped
	Player0  string `parquet:"player_0,dict"` // the name of the player on seat 0
	Player1  string `parquet:"player_1,dict"` // the name of the player on seat 1
	Opening  int32  `parquet:"opening"`       // how many of Moves are the random opening
	Moves    string `parquet:"moves"`         // every action, space separated
	Winner   int8   `parquet:"winner"`        // the winning seat, or -1 for a draw
	Reason   string `parquet:"reason"`        // why the game ended: the rule, or "forfeit: ..."
	Forfeit  int8   `parquet:"forfeit"`       // the seat that forfeited, or -1
	Plies    int32  `parquet:"plies"`         // actions played, the opening's included
	Seed     uint64 `parquet:"seed"`          // the seed of seat 0's player in this game (seat 1's is derived from the match seed the same way)
	Millis   int64  `parquet:"millis"`        // wall time of the game, in milliseconds
	Finished int64  `parquet:"finished"`      // when the game ended, Unix milliseconds
}

// Score is what seat scores in the game: 1 win, 0.5 draw, 0 loss.
func (r *Record) Score(seat int) float64 {
	switch int(r.Winner) {
	case -1:
		return 0.5
	case seat:
		return 1
	}
	return 0
}

// ResultString is the result in the usual notation: "1-0", "0-1" or
// "1/2-1/2" (seat 0's score first).
func (r *Record) ResultString() string {
	switch r.Winner {
	case 0:
		return "1-0"
	case 1:
		return "0-1"
	}
	return "1/2-1/2"
}

// newMatchID is a fresh match id: the time first, so ids sort by when the
// match began, then a random nonce so concurrent matches never collide.
func newMatchID() (string, error) {
	var nonce [6]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", fmt.Errorf("match id nonce: %w", err)
	}
	return fmt.Sprintf("%s-%s", time.Now().UTC().Format("20060102T150405.000000000Z"), hex.EncodeToString(nonce[:])), nil
}

// WriteRecords writes recs as the Parquet file dir/id.parquet (zstd): to a
// temporary name first, synced, then renamed, so a reader never sees a
// partial file. dir is created if missing. No records write no file.
func WriteRecords(dir, id string, recs []Record) (path string, err error) {
	if len(recs) == 0 {
		return "", nil
	}
	if id == "" || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("write arena records: match id %q: want a plain file name", id)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write arena records: %w", err)
	}
	final := filepath.Join(dir, id+RecordExt)
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", fmt.Errorf("write arena records: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	pw := parquet.NewGenericWriter[Record](f,
		parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("millzero", recordFormatVersion, ""),
		parquet.KeyValueMetadata(recordFormatKey, recordFormatVersion))
	if _, err = pw.Write(recs); err != nil {
		return "", fmt.Errorf("write arena records %s: %w", tmp, err)
	}
	if err = pw.Close(); err != nil {
		return "", fmt.Errorf("write arena records %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return "", fmt.Errorf("sync arena records %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return "", fmt.Errorf("close arena records %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("publish arena records: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return final, nil
}

// ErrNotRecords is wrapped by the error for a Parquet file that is not a
// file of arena records of this format.
var ErrNotRecords = errors.New("not a millzero arena record file of this format")

// ReadRecords reads every record of the file at path.
func ReadRecords(path string) (recs []Record, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read arena records: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read arena records: %w", err)
	}
	// parquet-go may panic on a malformed file; a bad file is an error.
	defer func() {
		if p := recover(); p != nil {
			recs, err = nil, fmt.Errorf("read arena records %s: malformed parquet: %v", path, p)
		}
	}()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read arena records %s: %w", path, err)
	}
	if v, ok := pf.Lookup(recordFormatKey); !ok || v != recordFormatVersion {
		return nil, fmt.Errorf("read arena records %s: %w (format %q, want %q)", path, ErrNotRecords, v, recordFormatVersion)
	}
	r := parquet.NewGenericReader[Record](pf)
	defer r.Close()
	recs = make([]Record, pf.NumRows())
	n, err := r.Read(recs)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read arena records %s: %w", path, err)
	}
	if n != len(recs) {
		return nil, fmt.Errorf("read arena records %s: %d of %d rows read", path, n, len(recs))
	}
	return recs, nil
}

// ReadRecordDir reads the records of every complete file in dir (files
// being written are skipped), in file name order: every arena game of a
// run is ReadRecordDir(RUN/arena). A missing dir has no records.
func ReadRecordDir(dir string) ([]Record, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read arena records: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), RecordExt) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var all []Record
	for _, n := range names {
		recs, err := ReadRecords(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	return all, nil
}
