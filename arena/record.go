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
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/millzero/millzero/internal/atomicfile"
)

// RecordExt is the name ending of a complete file of game records; a file
// being written has a hidden temporary name unique to its writer
// (atomicfile.TempName) and is linked to its name when complete.
const RecordExt = ".parquet"

// The file metadata keys of a record file.
const (
	recordFormatKey     = "millzero.arena.format"
	recordFormatVersion = "1"
)

// Record is one finished arena game, a row of the match's Parquet file.
// Seat 0 moves first. Moves holds every action from the start position in
// the variant's notation, space separated, the opening's first.
//
// A game of 3-4 seats also names the players of seats 2 and 3 and gives
// every seat's finishing place in Places; a two-seat game leaves those
// columns empty, so its record is what it was before there were more
// seats (and files written then read back with the new columns empty).
type Record struct {
	Match    string `parquet:"match,dict"`    // the match's id: its file name without RecordExt
	Variant  string `parquet:"variant,dict"`  // the variant's name
	Pair     int32  `parquet:"pair"`          // the pair (opening) number within the match, from 0
	Game     int32  `parquet:"game"`          // the seating rotation: player A has seat Game (two seats: 0 A first, 1 swapped)
	Player0  string `parquet:"player_0,dict"` // the name of the player on seat 0
	Player1  string `parquet:"player_1,dict"` // the name of the player on seat 1
	Player2  string `parquet:"player_2,dict"` // the name of the player on seat 2; "" with two seats
	Player3  string `parquet:"player_3,dict"` // the name of the player on seat 3; "" with two or three seats
	Setup0   string `parquet:"setup_0,dict"`  // how seat 0's player plays beyond its name (SetupOf); "" when it does not say, or in a file written before setups were recorded
	Setup1   string `parquet:"setup_1,dict"`  // seat 1's setup
	Setup2   string `parquet:"setup_2,dict"`  // seat 2's setup; "" with two seats
	Setup3   string `parquet:"setup_3,dict"`  // seat 3's setup; "" with two or three seats
	Places   string `parquet:"places"`        // 3-4 seats: each seat's finishing place from 1, space separated, tied seats sharing one (see Place); "" with two seats
	Opening  int32  `parquet:"opening"`       // how many of Moves are the opening: random actions, or a book position's (Book)
	Book     string `parquet:"book,dict"`     // the opening book the opening is from (Book.ID), "" for a random opening (and in a file written before books)
	Moves    string `parquet:"moves"`         // every action, space separated
	Winner   int8   `parquet:"winner"`        // the winning seat, or -1 for a draw (3-4 seats: no seat alone in first place)
	Reason   string `parquet:"reason"`        // why the game ended: the rule, or "forfeit: ..."
	Forfeit  int8   `parquet:"forfeit"`       // the seat that forfeited, or -1
	Plies    int32  `parquet:"plies"`         // actions played, the opening's included
	Seed     uint64 `parquet:"seed"`          // the seed of seat 0's player in this game (seat 1's is derived from the match seed the same way)
	Millis   int64  `parquet:"millis"`        // wall time of the game, in milliseconds
	Finished int64  `parquet:"finished"`      // when the game ended, Unix milliseconds

	// Unfinished, when not "", says the game did not finish: an external
	// engine claimed a draw under its own rules (UnfinishedDrawClaim),
	// answered no move (UnfinishedNoMove) or none in time
	// (UnfinishedTimeout), and Reason says which engine. Winner and
	// Forfeit are -1. Such a game counts in no score or rating (FitElo,
	// StrengthOf, Tally skip it); CountUnfinished counts them.
	Unfinished string `parquet:"unfinished,dict"`
}

// The kinds of an unfinished game (Record.Unfinished).
const (
	UnfinishedDrawClaim = "draw claim"
	UnfinishedNoMove    = "no move"
	UnfinishedTimeout   = "timeout"
)

// Unfinisheds counts the unfinished games of some records by kind.
type Unfinisheds struct {
	DrawClaims, NoMoves, Timeouts int
}

// CountUnfinished counts the unfinished games of recs by kind.
func CountUnfinished(recs []Record) Unfinisheds {
	var u Unfinisheds
	for i := range recs {
		switch recs[i].Unfinished {
		case UnfinishedDrawClaim:
			u.DrawClaims++
		case UnfinishedNoMove:
			u.NoMoves++
		case UnfinishedTimeout:
			u.Timeouts++
		}
	}
	return u
}

// Total is the number of unfinished games.
func (u Unfinisheds) Total() int { return u.DrawClaims + u.NoMoves + u.Timeouts }

// String is the summary line: "unfinished: N (draw claims a, no move b,
// timeouts c)".
func (u Unfinisheds) String() string {
	return fmt.Sprintf("unfinished: %d (draw claims %d, no move %d, timeouts %d)", u.Total(), u.DrawClaims, u.NoMoves, u.Timeouts)
}

// Seats is the number of seats of the game: 2, 3 or 4.
func (r *Record) Seats() int {
	switch {
	case r.Player3 != "":
		return 4
	case r.Player2 != "":
		return 3
	}
	return 2
}

// PlayerAt is the name of the player on seat.
func (r *Record) PlayerAt(seat int) string {
	return atSeat(seat, r.Player0, r.Player1, r.Player2, r.Player3)
}

// SetupAt is the setup of the player on seat.
func (r *Record) SetupAt(seat int) string {
	return atSeat(seat, r.Setup0, r.Setup1, r.Setup2, r.Setup3)
}

// atSeat is the one of a record's per-seat columns that belongs to seat,
// "" for a seat beyond them.
func atSeat(seat int, bySeat ...string) string {
	if seat < 0 || seat >= len(bySeat) {
		return ""
	}
	return bySeat[seat]
}

// SeatOf is the seat of the player named player, or -1 when it did not play.
func (r *Record) SeatOf(player string) int {
	for s := 0; s < r.Seats(); s++ {
		if r.PlayerAt(s) == player {
			return s
		}
	}
	return -1
}

// Lineup is the players by seat, seat 0 first: "a vs b" (or "a vs b vs c").
func (r *Record) Lineup() string {
	names := make([]string, r.Seats())
	for s := range names {
		names[s] = r.PlayerAt(s)
	}
	return strings.Join(names, " vs ")
}

// Place is seat's finishing place, from 1: with two seats 1 for the
// winner and 2 for the loser, 1 for both in a draw; with 3-4 seats as
// Places says (the winner 1, then the eliminated players, the last out
// best; seats that end together share a place). A seat Places does not
// cover (a malformed record) is placed last.
func (r *Record) Place(seat int) int {
	if r.Places == "" {
		if r.Winner < 0 || int(r.Winner) == seat {
			return 1
		}
		return 2
	}
	f := strings.Fields(r.Places)
	if seat < 0 || seat >= len(f) {
		return r.Seats()
	}
	p, err := strconv.Atoi(f[seat])
	if err != nil || p < 1 {
		return r.Seats()
	}
	return p
}

// Score is what seat scores in the game against the others, 0..1: the
// share of the other seats it finished ahead of, a tie counting half. With
// two seats that is 1 for a win, 0.5 for a draw and 0 for a loss; with 3-4
// it is the mean of the pairwise results that FitElo fits (see there).
func (r *Record) Score(seat int) float64 {
	if r.Places == "" {
		switch int(r.Winner) {
		case -1:
			return 0.5
		case seat:
			return 1
		}
		return 0
	}
	n := r.Seats()
	me := r.Place(seat)
	s := 0.0
	for o := 0; o < n; o++ {
		switch p := r.Place(o); {
		case o == seat:
		case me < p:
			s++
		case me == p:
			s += 0.5
		}
	}
	return s / float64(n-1)
}

// ResultString is the result in the usual notation: "1-0", "0-1" or
// "1/2-1/2" (seat 0's score first), "*" for an unfinished game; with 3-4
// seats the places, seat 0's first, as "1st 3rd 2nd".
func (r *Record) ResultString() string {
	if r.Unfinished != "" {
		return "*"
	}
	if r.Places != "" {
		f := strings.Fields(r.Places)
		for i, p := range f {
			f[i] = p + ordinalSuffix(p)
		}
		return strings.Join(f, " ")
	}
	switch r.Winner {
	case 0:
		return "1-0"
	case 1:
		return "0-1"
	}
	return "1/2-1/2"
}

func ordinalSuffix(n string) string {
	switch n {
	case "1":
		return "st"
	case "2":
		return "nd"
	case "3":
		return "rd"
	}
	return "th"
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

// WriteRecords writes recs as the Parquet file dir/id.parquet (zstd), once:
// to a temporary name first, synced, then linked to its name, so a reader
// never sees a partial file and a file of that name already there is left
// as it is (the error matches fs.ErrExist). dir is created if missing. No
// records write no file.
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
	tmp := atomicfile.TempName(final)
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
	if err = atomicfile.Publish(tmp, final, true); err != nil {
		return "", fmt.Errorf("publish arena records: %w", err)
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
	return ReadRecordDirFunc(dir, nil)
}

// ReadRecordDirFunc is ReadRecordDir reading only the files whose name
// keep accepts (nil keeps every file).
func ReadRecordDirFunc(dir string, keep func(name string) bool) ([]Record, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read arena records: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), RecordExt) && (keep == nil || keep(e.Name())) {
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

// WriteUnfinished says how many of recs are unfinished (an external
// engine's draw claim, no move or timeout), which the ratings and the
// pairs leave out; nothing when none is.
func WriteUnfinished(out io.Writer, recs []Record) {
	if u := CountUnfinished(recs); u.Total() > 0 {
		fmt.Fprintf(out, "\n%s: out of the scores and Elo above.\n", u)
	}
}
