package arena

import (
	"context"
	"fmt"

	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// ParsePlayers builds the players the specs name (see ParsePlayer) for
// variant v, each name once. Search players search a fixed number of
// visits unless searchTime (then set's MoveTime a move, the visits a
// cap); with prover not nil, search and classical players play its
// positions perfectly (a search player's name then ends in +tb).
func ParsePlayers(specs []string, v *engine.Variant, set SpecSettings, searchTime bool, prover mcts.Prover) ([]Player, error) {
	players := make([]Player, len(specs))
	names := map[string]string{}
	for i, s := range specs {
		p, err := ParsePlayer(s, v, set)
		if err != nil {
			return nil, err
		}
		if c, ok := p.(Classic); ok && prover != nil {
			if t, ok := prover.(classic.Tables); ok {
				c.Tables = t
				p = c
			}
		}
		if sp, ok := p.(*SearchPlayer); ok {
			if !searchTime {
				sp.MoveTime = 0
			}
			if prover != nil {
				sp.Prover, sp.Label = prover, sp.Label+"+tb"
			}
		}
		if prev, ok := names[p.Name()]; ok {
			return nil, fmt.Errorf("players %q and %q are both named %q: each player may appear once", prev, s, p.Name())
		}
		names[p.Name()] = s
		players[i] = p
	}
	return players, nil
}

// Tournament plays the Schedule of its Players, every two of them or
// with Gauntlet the first against each of the others, each match with
// its own openings and searches (MatchSeed). Unlike a RoundRobin it takes
// 2-4 players a game and reuses no match.
type Tournament struct {
	Variant      *engine.Variant
	Players      []Player
	Gauntlet     bool   // the first player meets each of the others; else every pair meets
	Pairs        int    // openings a match, each played once per seating
	OpeningPlies int    // random legal actions that open each pair
	Book         *Book  // when not nil, each pair opens from a position of the book instead (Match.Book)
	Seed         uint64 // seed of the openings and of the players' randomness
	Workers      int    // games played at once; 0 means one per core
	Dir          string // where every game is stored; "" keeps none
}

// Matches is the schedule of t.
func (t *Tournament) Matches() []Pairing { return Schedule(t.Players, t.Gauntlet) }

// Games is the number of games of the whole schedule.
func (t *Tournament) Games() int { return len(t.Matches()) * t.Variant.Players * t.Pairs }

// Run plays every match in turn and returns the records of all of them;
// onMatch (match k from 0) and onGame, when not nil, are called before
// each match and after each game. On an error the records so far come
// back with it.
func (t *Tournament) Run(ctx context.Context, onMatch func(k int, p Pairing), onGame func(*Record)) ([]Record, error) {
	var recs []Record
	for k, mp := range t.Matches() {
		m := Match{Variant: t.Variant, A: mp.A, B: mp.B, Pairs: t.Pairs, OpeningPlies: t.OpeningPlies, Book: t.Book,
			Seed: MatchSeed(t.Seed, k), Workers: t.Workers, Dir: t.Dir}
		if onMatch != nil {
			onMatch(k, mp)
		}
		got, err := m.Run(ctx, func(r *Record) error {
			if onGame != nil {
				onGame(r)
			}
			return nil
		})
		recs = append(recs, got...)
		if err != nil {
			return recs, err
		}
	}
	return recs, nil
}
