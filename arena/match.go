package arena

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
)

// Match is a series of paired games between two players: each opening (a
// few random legal actions from the start, drawn from Seed, or a position
// of an opening Book chosen by Seed) is played twice with the seats
// swapped, so neither player gains from a lucky opening or from moving
// first. Games run in parallel.
//
// A variant of N = 3 or 4 seats plays each opening N times, once per
// seating rotation, so that every player sits in every seat equally often:
// the lineup is A, B, then More, then copies of B to fill the seats (so A
// against N-1 copies of B by default), and game k of an opening seats the
// lineup rotated by k places (A on seat k). Its records carry every
// seat's player and finishing place.
type Match struct {
	Variant      *engine.Variant // the variant played; 2-4 players
	A, B         Player          // A has seat 0 in the first game of a pair, B in the second
	More         []Player        // 3-4 seats: the lineup's further players, after A and B; the seats left are filled with copies of B
	Pairs        int             // distinct openings to play, each once per seating rotation (a pair of games with two seats, N games with N)
	OpeningPlies int             // random legal actions played from the start before the players take over; unused with a Book
	Book         *Book           // when not nil, the pairs open from its positions (Book.Openings, chosen by Seed) instead of random ones
	Seed         uint64          // seeds the openings and every player's randomness
	Workers      int             // games played at once; 0 means runtime.NumCPU()
	Dir          string          // directory of the Parquet game records (RUN/arena); "" writes none
	SaveEvery    time.Duration   // with Dir: the games finished are written at least this often while the match runs, each time to a file of their own, so a killed process loses no more; 0 means DefaultSaveEvery
	Played       []Record        // games kept from before (such as ReadRecordDir(Dir)): those this match would play (Found) are taken instead of played again
}

// DefaultSaveEvery is how often a match with a Dir writes the games it has
// finished (Match.SaveEvery): a process killed with no chance to write
// them, or a lost machine, loses at most the games of these minutes.
const DefaultSaveEvery = 5 * time.Minute

// ErrStop, returned by a Run callback, stops the match early without an
// error: the games in flight are abandoned, the finished ones kept.
var ErrStop = errors.New("arena: stop the match")

// GameSeed derives the seed of the player on seat in game game of pair
// pair from the match seed (the engine protocol server seeds its games
// so too).
func GameSeed(seed uint64, pair, game, seat int) uint64 {
	return seedpkg.Derive(seed, "game", uint64(pair), uint64(game), uint64(seat))
}

func (m *Match) check() error {
	switch {
	case m.Variant == nil:
		return fmt.Errorf("match: no variant")
	case m.Variant.Players < 2 || m.Variant.Players > engine.MaxSeats:
		return fmt.Errorf("match: variant %s has %d players: want 2 to %d", m.Variant.Name, m.Variant.Players, engine.MaxSeats)
	case m.A == nil || m.B == nil:
		return fmt.Errorf("match: two players needed")
	case len(m.More) > m.Variant.Players-2:
		return fmt.Errorf("match: %d players for the %d seats of %s", 2+len(m.More), m.Variant.Players, m.Variant.Name)
	case m.Pairs < 1:
		return fmt.Errorf("match: pairs %d: want 1 or more", m.Pairs)
	case m.OpeningPlies < 0:
		return fmt.Errorf("match: opening plies %d: want 0 or more", m.OpeningPlies)
	case m.Workers < 0:
		return fmt.Errorf("match: workers %d: want 0 (all cores) or more", m.Workers)
	case m.Book != nil && m.Book.Variant.Spec != m.Variant.Spec:
		return fmt.Errorf("match: an opening book of %s for a match of %s", m.Book.Variant.Name, m.Variant.Name)
	}
	names := map[string]bool{}
	for _, p := range append([]Player{m.A, m.B}, m.More...) {
		if p == nil {
			return fmt.Errorf("match: a player of the lineup is missing")
		}
		if names[p.Name()] {
			return fmt.Errorf("match: two players are named %q: names must differ", p.Name())
		}
		names[p.Name()] = true
	}
	return nil
}

// openings is the opening of each pair: the book's (Book.Openings) or
// random ones (Openings).
func (m *Match) openings() ([][]engine.Action, error) {
	if m.Book != nil {
		return m.Book.Openings(m.Pairs, m.Seed)
	}
	return Openings(m.Variant, m.Pairs, m.OpeningPlies, m.Seed)
}

// bookID is the id of the match's book (Record.Book), "" without one.
func (m *Match) bookID() string {
	if m.Book == nil {
		return ""
	}
	return m.Book.ID()
}

// lineup is the players of seats 0..N-1 in the first game of an opening:
// A, B, More, then copies of B.
func (m *Match) lineup() []Player {
	l := append([]Player{m.A, m.B}, m.More...)
	for len(l) < m.Variant.Players {
		l = append(l, m.B)
	}
	return l
}

// seating is the players of seats 0..N-1 in game k of an opening: the
// lineup rotated by k places, so that A sits on seat k.
func (m *Match) seating(k int) []Player {
	l := m.lineup()
	n := len(l)
	out := make([]Player, n)
	for s := range out {
		out[s] = l[((s-k)%n+n)%n]
	}
	return out
}

type job struct {
	pair, game int
}

type outcome struct {
	rec Record
	err error // a setup error that aborts the match
}

// Found is the games of recs that this match would play: the variant,
// opening length (with a book: the book, by its id, and the pair's
// opening) and pair count of the match, each seat's player of the seating
// of its game by name and setup (SameSetup), the game's own seed; one record
// for each game, the first found, sorted by pair and game. A match stopped
// early and run again plays only the games Found does not return.
func (m *Match) Found(recs []Record) []Record {
	if m.check() != nil {
		return nil
	}
	book := m.bookID()
	var openings []string // with a book, each pair's opening as a record's moves begin
	if m.Book != nil {
		ops, err := m.openings()
		if err != nil {
			return nil
		}
		for _, op := range ops {
			openings = append(openings, formatActions(m.Variant, op))
		}
	}
	seats := m.Variant.Players
	names := make([][]string, seats)
	setups := make([][]string, seats)
	for k := range seats {
		for _, p := range m.seating(k) {
			names[k] = append(names[k], p.Name())
			setups[k] = append(setups[k], SetupOf(p))
		}
	}
	have := map[job]bool{}
	var out []Record
	for _, r := range recs {
		p, k := int(r.Pair), int(r.Game)
		if r.Variant != m.Variant.Name || r.Seats() != seats || p < 0 || p >= m.Pairs || k < 0 || k >= seats ||
			have[job{p, k}] || r.Book != book || r.Seed != GameSeed(m.Seed, p, k, 0) {
			continue
		}
		if m.Book == nil && int(r.Opening) != m.OpeningPlies || m.Book != nil && !opensWith(&r, openings[p]) {
			continue
		}
		same := true
		for s := range seats {
			same = same && r.PlayerAt(s) == names[k][s] && SameSetup(r.SetupAt(s), setups[k][s])
		}
		if same {
			have[job{p, k}] = true
			out = append(out, r)
		}
	}
	sortRecords(out)
	return out
}

// opensWith tells whether r's opening is the moves of opening.
func opensWith(r *Record, opening string) bool {
	f := strings.Fields(r.Moves)
	return r.Opening >= 0 && int(r.Opening) <= len(f) && strings.Join(f[:r.Opening], " ") == opening
}

// sortRecords sorts recs by pair and game.
func sortRecords(recs []Record) {
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Pair != recs[j].Pair {
			return recs[i].Pair < recs[j].Pair
		}
		return recs[i].Game < recs[j].Game
	})
}

// Run plays the match. After every finished game it calls onGame (if not
// nil) with the game's record (valid only during the call), from one
// goroutine, in the order games finish; an error from onGame stops the match, and ErrStop stops it
// without an error. The games of Played that the match would play (Found)
// are not played again: they come back with the new ones, under this
// match's id (so that a pair played over two runs is one pair), without a
// call of onGame. The games played are written to Dir as Parquet files:
// those finished so far every SaveEvery while the match runs, the rest
// when it ends, also when it stops early or ctx is cancelled (a match
// of a few minutes writes one file). All are returned sorted by pair and
// game. Games in flight when the match stops are abandoned and not
// recorded.
func (m *Match) Run(ctx context.Context, onGame func(*Record) error) ([]Record, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	openings, err := m.openings()
	if err != nil {
		return nil, fmt.Errorf("match %s vs %s: %w", m.A.Name(), m.B.Name(), err)
	}
	id, err := newMatchID()
	if err != nil {
		return nil, err
	}
	book := m.bookID()
	found := m.Found(m.Played)
	done := make(map[job]bool, len(found))
	for i := range found {
		found[i].Match = id
		done[job{int(found[i].Pair), int(found[i].Game)}] = true
	}
	workers := m.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	seats := m.Variant.Players
	workers = min(workers, seats*m.Pairs-len(found))

	parent := ctx
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	jobs := make(chan job)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue // the match is stopping: start no more games
				}
				rec, err := m.playOne(ctx, id, book, openings[j.pair], j)
				if ctx.Err() != nil {
					continue // abandoned: the match is stopping
				}
				results <- outcome{rec, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; i < m.Pairs; i++ {
			for k := 0; k < seats; k++ {
				if done[job{i, k}] {
					continue
				}
				select {
				case jobs <- job{i, k}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	var recs []Record
	var runErr error
	stopped := false
	save := saver{dir: m.Dir, id: id, every: m.SaveEvery, last: time.Now()}
	if save.every <= 0 {
		save.every = DefaultSaveEvery
	}
	for o := range results {
		if stopped {
			continue // draining the games that finished as the match stopped
		}
		if o.err != nil {
			runErr, stopped = o.err, true
			cancel()
			continue
		}
		recs = append(recs, o.rec)
		if time.Since(save.last) >= save.every {
			if runErr = save.write(recs); runErr != nil {
				stopped = true // the games cannot be kept: play no more
				cancel()
				continue
			}
		}
		if onGame == nil {
			continue
		}
		if err := onGame(&recs[len(recs)-1]); err != nil {
			if !errors.Is(err, ErrStop) {
				runErr = err
			}
			stopped = true
			cancel()
		}
	}
	if !stopped {
		runErr = parent.Err()
	}
	if save.err == nil {
		if err := save.write(recs); err != nil {
			return append(recs, found...), errors.Join(runErr, err)
		}
	}
	recs = append(recs, found...)
	sortRecords(recs)
	return recs, runErr
}

// saver writes a match's games to its directory as they finish: each
// write holds the games finished since the one before, the first in the
// file named by the match id, the next ones in id-2, id-3, ...
type saver struct {
	dir, id string
	every   time.Duration // how often a running match writes
	last    time.Time     // when it last wrote, or began
	saved   int           // games written
	files   int           // files written
	err     error         // the write that failed, after which it writes no more
}

// write writes the games of recs not yet written (none without a
// directory).
func (s *saver) write(recs []Record) error {
	s.last = time.Now()
	if s.dir == "" || s.saved == len(recs) {
		return nil
	}
	name := s.id
	if s.files > 0 {
		name = fmt.Sprintf("%s-%d", s.id, s.files+1)
	}
	part := append([]Record(nil), recs[s.saved:]...)
	sortRecords(part)
	if _, err := WriteRecords(s.dir, name, part); err != nil {
		s.err = err
		return err
	}
	s.saved, s.files = len(recs), s.files+1
	return nil
}

// playOne plays game j of the match from its opening (from the book of id
// book, "" for a random one). An error is a setup failure (a player that
// cannot start); a player failing during the game forfeits it instead.
func (m *Match) playOne(ctx context.Context, id, book string, opening []engine.Action, j job) (Record, error) {
	v := m.Variant
	seats := m.seating(j.game)
	rec := Record{
		Match: id, Variant: v.Name, Pair: int32(j.pair), Game: int32(j.game),
		Player0: seats[0].Name(), Player1: seats[1].Name(),
		Setup0: SetupOf(seats[0]), Setup1: SetupOf(seats[1]),
		Opening: int32(len(opening)), Book: book, Winner: -1, Forfeit: -1,
		Seed: GameSeed(m.Seed, j.pair, j.game, 0),
	}
	if len(seats) > 2 {
		rec.Player2, rec.Setup2 = seats[2].Name(), SetupOf(seats[2])
	}
	if len(seats) > 3 {
		rec.Player3, rec.Setup3 = seats[3].Name(), SetupOf(seats[3])
	}
	gps := make([]GamePlayer, len(seats))
	for s := range seats {
		gp, err := seats[s].NewGame(v, GameSeed(m.Seed, j.pair, j.game, s))
		if err != nil {
			for _, p := range gps[:s] {
				p.Close()
			}
			return rec, fmt.Errorf("match %s vs %s: start %s: %w", m.A.Name(), m.B.Name(), seats[s].Name(), err)
		}
		gps[s] = gp
	}
	start := time.Now()
	g, forfeit, unfinished, why := playGame(ctx, v, gps, opening)
	for s := range seats {
		if err := gps[s].Close(); err != nil && forfeit < 0 && ctx.Err() == nil {
			// A player that plays well but cannot shut down cleanly still
			// finished its game; the failure is worth a note in the reason.
			why += fmt.Sprintf(" (%s did not close cleanly: %v)", seats[s].Name(), err)
		}
	}
	rec.Millis = time.Since(start).Milliseconds()
	rec.Finished = time.Now().UnixMilli()
	rec.Plies = int32(len(g.Actions))
	moves := make([]string, len(g.Actions))
	for i, a := range g.Actions {
		moves[i] = v.FormatAction(a)
	}
	rec.Moves = strings.Join(moves, " ")
	rec.Reason = why
	if unfinished != "" {
		rec.Unfinished = unfinished // no winner, no forfeit: out of every score
		return rec, nil
	}
	if forfeit >= 0 {
		rec.Forfeit = int8(forfeit)
	}
	if len(seats) > 2 {
		places, winner := Places(g, forfeit)
		rec.Places = FormatPlaces(places)
		rec.Winner = int8(winner)
		return rec, nil
	}
	if forfeit >= 0 {
		rec.Winner = int8(1 - forfeit)
	} else if r, _ := g.Outcome(); r != engine.Draw {
		if seat, ok := r.Winner(); ok {
			rec.Winner = int8(seat)
		}
	}
	return rec, nil
}

// PlayGame plays one game of v between players (players[s] on seat s)
// after the opening actions, until the rules end it or a player forfeits.
// It returns the game, the seat that forfeited (-1 if none) and why the
// game ended. A player forfeits when Act fails or answers an illegal
// action. When ctx is cancelled the game stops where it is (forfeit -1,
// the reason says so).
func PlayGame(ctx context.Context, v *engine.Variant, players [2]GamePlayer, opening []engine.Action) (g *engine.Game, forfeit int, why string) {
	return PlayGameN(ctx, v, players[:], opening)
}

// PlayGameN is PlayGame for any number of seats: players[s] on seat s, one
// per seat of v. A forfeit ends the game, also with 3-4 seats (Places
// ranks the forfeiting seat behind the seats still in).
//
// A player whose Act fails with ErrUnfinished (an external engine's draw
// claim, no move, or timeout) does not forfeit: the game stops there,
// forfeit -1, and why says it is unfinished.
func PlayGameN(ctx context.Context, v *engine.Variant, players []GamePlayer, opening []engine.Action) (g *engine.Game, forfeit int, why string) {
	g, forfeit, _, why = playGame(ctx, v, players, opening)
	return g, forfeit, why
}

// playGame is PlayGameN, also saying the kind of an unfinished game
// (Record.Unfinished), or "".
func playGame(ctx context.Context, v *engine.Variant, players []GamePlayer, opening []engine.Action) (g *engine.Game, forfeit int, unfinished, why string) {
	g = engine.NewGame(v)
	if len(players) != v.Players {
		return g, -1, "", fmt.Sprintf("bad seating: %d players for %d seats", len(players), v.Players)
	}
	for _, a := range opening {
		if err := g.Play(a); err != nil {
			return g, -1, "", fmt.Sprintf("bad opening: %v", err)
		}
	}
	for {
		if r, reason := g.Outcome(); r != engine.Ongoing {
			return g, -1, "", reason.String()
		}
		if err := ctx.Err(); err != nil {
			return g, -1, "", "abandoned: " + err.Error()
		}
		seat := int(g.Pos.Side)
		a, err := players[seat].Act(ctx, g)
		if err != nil {
			if ctx.Err() != nil {
				return g, -1, "", "abandoned: " + ctx.Err().Error()
			}
			if kind := unfinishedKind(err); kind != "" {
				return g, -1, kind, "unfinished: " + err.Error()
			}
			return g, seat, "", "forfeit: " + err.Error()
		}
		if err := g.Play(a); err != nil {
			return g, seat, "", "forfeit: " + err.Error()
		}
	}
}
