package arena

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
)

// RoundRobin plays a Match between every two of its Players, all from the
// same seeded openings (random, or a Book's), and rates them together. With Dir it keeps every
// match's games there, and a later round robin of the same seed, pairs and
// opening length takes each game it finds between two of its players, of
// the same names and setups (SetupOf), from the files instead of playing
// it again (Match.Found): a run measured again after more hours plays only
// its new model's matches, and one stopped early only its missing games.
type RoundRobin struct {
	Variant      *engine.Variant // two players
	Players      []Player        // distinct names; a match's player A is the earlier in this list
	Pairs        int             // pairs of games a match
	OpeningPlies int             // random legal actions that open each pair
	Book         *Book           // when not nil, each pair opens from a position of the book instead (Match.Book)
	Seed         uint64          // the openings' seed, the same for every match
	Workers      int             // games played at once; 0 means one per core
	Dir          string          // where the games are kept and found again; "" plays every match
}

// RoundRobinMatch is what Run reports before each match.
type RoundRobinMatch struct {
	K, Of  int    // the match, from 1, of Of
	A, B   string // the players
	Found  int    // its games found in Dir, not played again
	Reused bool   // all its games were found: nothing is played
}

// Run plays (or finds) every match in turn, A before B in Players order,
// and returns the records of all of them. onMatch and onGame, when not
// nil, are called before each match and after each game played. On an
// error the records so far come back with it.
func (rr *RoundRobin) Run(ctx context.Context, onMatch func(RoundRobinMatch), onGame func(*Record)) ([]Record, error) {
	if rr.Variant == nil || rr.Variant.Players != 2 {
		return nil, fmt.Errorf("round robin: want a two-player variant")
	}
	if len(rr.Players) < 2 || rr.Pairs < 1 {
		return nil, fmt.Errorf("round robin: %d players, %d pairs: want two players or more and a pair", len(rr.Players), rr.Pairs)
	}
	seen := map[string]bool{}
	for _, p := range rr.Players {
		if seen[p.Name()] {
			return nil, fmt.Errorf("round robin: two players are named %q", p.Name())
		}
		seen[p.Name()] = true
	}
	var kept []Record
	if rr.Dir != "" {
		var err error
		if kept, err = ReadRecordDir(rr.Dir); err != nil {
			return nil, err
		}
	}
	n := len(rr.Players)
	of, k := n*(n-1)/2, 0
	var all []Record
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			k++
			a, b := rr.Players[i], rr.Players[j]
			m := Match{Variant: rr.Variant, A: a, B: b, Pairs: rr.Pairs, OpeningPlies: rr.OpeningPlies, Book: rr.Book,
				Seed: rr.Seed, Workers: rr.Workers, Dir: rr.Dir}
			m.Played = m.Found(kept) // Run takes these few, not every kept game, through Found again
			found := len(m.Played)
			if onMatch != nil {
				onMatch(RoundRobinMatch{K: k, Of: of, A: a.Name(), B: b.Name(), Found: found, Reused: found == 2*rr.Pairs})
			}
			recs, err := m.Run(ctx, func(r *Record) error {
				if onGame != nil {
					onGame(r)
				}
				return nil
			})
			all = append(all, recs...)
			if err != nil {
				return all, fmt.Errorf("round robin, %s against %s: %w", a.Name(), b.Name(), err)
			}
		}
	}
	return all, nil
}

// Pairing is one match of a schedule: A against B.
type Pairing struct{ A, B Player }

// Schedule is the matches among players: every two of them once, A the
// earlier in the list; with gauntlet, the first against each of the others.
func Schedule(players []Player, gauntlet bool) []Pairing {
	var out []Pairing
	for i := range players {
		if gauntlet && i > 0 {
			break
		}
		for j := i + 1; j < len(players); j++ {
			out = append(out, Pairing{players[i], players[j]})
		}
	}
	return out
}

// MatchSeed is the seed of the k-th match (from 0) of a schedule played
// under seed: each match its own openings and searches.
func MatchSeed(seed uint64, k int) uint64 {
	return seedpkg.Derive(seed, "match", uint64(k))
}
