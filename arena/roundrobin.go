package arena

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/engine"
	seedpkg "github.com/millzero/millzero/internal/seed"
)

// RoundRobin plays a Match between every two of its Players, all from the
// same seeded openings, and rates them together. With Dir it keeps every
// match's games there, and a later round robin of the same seed, pairs and
// opening length takes each complete match it finds between two of its
// players, of the same names and setups (SetupOf), from the files instead
// of playing it again: a run measured again after more hours plays only
// its new model's matches.
type RoundRobin struct {
	Variant      *engine.Variant // two players
	Players      []Player        // distinct names; a match's player A is the earlier in this list
	Pairs        int             // pairs of games a match
	OpeningPlies int             // random legal actions that open each pair
	Seed         uint64          // the openings' seed, the same for every match
	Workers      int             // games played at once; 0 means one per core
	Dir          string          // where the games are kept and found again; "" plays every match
}

// RoundRobinMatch is what Run reports before each match.
type RoundRobinMatch struct {
	K, Of  int    // the match, from 1, of Of
	A, B   string // the players
	Reused bool   // its games were found in Dir: nothing is played
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
			if recs := rr.complete(kept, a, b); recs != nil {
				if onMatch != nil {
					onMatch(RoundRobinMatch{K: k, Of: of, A: a.Name(), B: b.Name(), Reused: true})
				}
				all = append(all, recs...)
				continue
			}
			if onMatch != nil {
				onMatch(RoundRobinMatch{K: k, Of: of, A: a.Name(), B: b.Name()})
			}
			m := Match{Variant: rr.Variant, A: a, B: b, Pairs: rr.Pairs, OpeningPlies: rr.OpeningPlies,
				Seed: rr.Seed, Workers: rr.Workers, Dir: rr.Dir}
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

// complete is the games of one match in recs between a (seat 0 in the
// first game of each pair) and b that this round robin would have played:
// every pair of Pairs, both games, the openings of this seed and length,
// each player of its setup now. nil when recs hold no such match (an
// interrupted one, or one of other setups, is played again).
func (rr *RoundRobin) complete(recs []Record, pa, pb Player) []Record {
	a, b := pa.Name(), pb.Name()
	setupA, setupB := SetupOf(pa), SetupOf(pb)
	byMatch := map[string][]Record{}
	var order []string
	for _, r := range recs {
		if r.Player2 != "" {
			continue
		}
		if !(r.Player0 == a && r.Player1 == b) && !(r.Player0 == b && r.Player1 == a) {
			continue
		}
		if _, ok := byMatch[r.Match]; !ok {
			order = append(order, r.Match)
		}
		byMatch[r.Match] = append(byMatch[r.Match], r)
	}
	for _, id := range order {
		got := byMatch[id]
		if len(got) != 2*rr.Pairs {
			continue
		}
		have := make([]bool, 2*rr.Pairs)
		ok := true
		for _, r := range got {
			p, g := int(r.Pair), int(r.Game)
			first := r.Player0 == a
			setups := r.Setup0 == setupA && r.Setup1 == setupB
			if !first {
				setups = r.Setup0 == setupB && r.Setup1 == setupA
			}
			if p < 0 || p >= rr.Pairs || g < 0 || g > 1 || first != (g == 0) || have[2*p+g] || !setups ||
				r.Seed != gameSeed(rr.Seed, p, g, 0) || int(r.Opening) != rr.OpeningPlies {
				ok = false
				break
			}
			have[2*p+g] = true
		}
		if ok {
			return got
		}
	}
	return nil
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
