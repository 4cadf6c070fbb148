package run

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/internal/seed"
	"github.com/millzero/millzero/runconfig"
	"github.com/millzero/millzero/runmetrics"
	"github.com/millzero/millzero/store"
)

// arenaPlayer is the arena player of model generation gen, searching with
// the run's own search settings (runconfig.Config.GateSearch).
func (t *Trainer) arenaPlayer(gen int) (arena.Player, error) {
	e := arena.Evaluation{Playouts: t.cfg.SelfPlay.RolloutPlayouts, PlayoutPlies: t.cfg.SelfPlay.RolloutPlies}
	if gen > 0 {
		net, err := t.network(gen)
		if err != nil {
			return nil, err
		}
		e = arena.Evaluation{Net: net}
	}
	return arena.NewSearchPlayer(store.ModelName(gen), t.cfg.GateSearch(), e), nil
}

// gate plays the candidate against the best until the SPRT decides or
// gate.max_games are played: with 3-4 seats the candidate against copies
// of the best, each opening once with the candidate in every seat, the
// SPRT on its mean score over those rounds (rating.SPRT.DecideRounds). Every finished game is journalled as it ends,
// so a killed run loses none and replays none; the games go to one
// Parquet file when the gate is over.
func (t *Trainer) gate(ctx context.Context, cand, best int) (arena.GateResult, error) {
	gc := t.cfg.Gate
	test := gc.SPRT()
	res := arena.GateResult{}
	res.Lower, res.Upper = test.Bounds()
	a, err := t.arenaPlayer(cand)
	if err != nil {
		return res, err
	}
	b, err := t.arenaPlayer(best)
	if err != nil {
		return res, err
	}
	id := "gate-" + store.ModelName(cand)
	recs, err := t.matchGames(ctx, id, arena.Match{Variant: t.v, A: a, B: b, OpeningPlies: gc.OpeningPlies}, gc.MaxGames,
		func(recs []arena.Record) bool {
			res.Penta, res.Rounds, res.Decision, res.LLR = tally(recs, a.Name(), test)
			t.phase(len(recs), gc.MaxGames)
			t.prog.Update("generation %d arena: %s vs %s: %d games, %s %s, LLR %.2f in [%.2f, %.2f]",
				cand-1, a.Name(), b.Name(), len(recs), res.Unit(), res.Counts(), res.LLR, res.Lower, res.Upper)
			return res.Decision != rating.Continue
		})
	if err != nil {
		return res, err
	}
	res.Penta, res.Rounds, res.Decision, res.LLR = tally(recs, a.Name(), test)
	res.Records = recs
	return res, nil
}

// tally counts the candidate's finished pairs (rounds, with 3-4 seats) in
// recs and applies the test.
func tally(recs []arena.Record, cand string, test rating.SPRT) (rating.Penta, rating.Rounds, rating.Decision, float64) {
	t := arena.NewTally(cand)
	for i := range recs {
		t.Add(&recs[i])
	}
	d, llr := t.Decide(test)
	return t.Penta, t.Rounds, d, llr
}

// ladder plays model generation gen against every reference player, once
// per generation that becomes best: ladder_pairs openings, each once per
// seating rotation (with 3-4 seats the model against copies of the
// reference player).
func (t *Trainer) ladder(ctx context.Context, gen int) error {
	if t.cfg.Gate.LadderPairs == 0 {
		return nil
	}
	me, err := t.arenaPlayer(gen)
	if err != nil {
		return err
	}
	for _, spec := range t.cfg.Gate.Ladder {
		ref, err := runconfig.ReferencePlayer(spec)
		if err != nil {
			return err
		}
		id := "ladder-" + store.ModelName(gen) + "-" + strings.ReplaceAll(spec, ":", "")
		_, err = t.matchGames(ctx, id, arena.Match{Variant: t.v, A: me, B: ref, OpeningPlies: t.cfg.Gate.OpeningPlies},
			t.v.Players*t.cfg.Gate.LadderPairs, func(recs []arena.Record) bool {
				t.phase(len(recs), t.v.Players*t.cfg.Gate.LadderPairs)
				t.prog.Update("ladder: %s vs %s: %d/%d games", me.Name(), spec, len(recs), t.v.Players*t.cfg.Gate.LadderPairs)
				return false
			})
		if err != nil {
			return err
		}
	}
	return nil
}

// matchGames plays match m, named id, until maxGames games are finished or
// enough says so, journalling each finished game in arena/id.jsonl. When
// the match is over its games go to arena/id.parquet and the journal is
// removed; when that file exists the match is not played again.
func (t *Trainer) matchGames(ctx context.Context, id string, m arena.Match, maxGames int, enough func([]arena.Record) bool) ([]arena.Record, error) {
	final := filepath.Join(t.dir.Arena(), id+arena.RecordExt)
	journal := filepath.Join(t.dir.Arena(), id+".jsonl")
	if _, err := os.Stat(final); err == nil {
		// A kill between the file and the journal's removal leaves the
		// journal, whose games the file holds.
		if err := os.Remove(journal); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		return arena.ReadRecords(final)
	}
	recs, err := readJournal(journal)
	if err != nil {
		return nil, err
	}
	if len(recs) < maxGames && !enough(recs) {
		if err := os.MkdirAll(t.dir.Arena(), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(journal, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		m.Pairs = (maxGames - len(recs) + t.v.Players - 1) / t.v.Players
		m.Seed = seed.Derive(t.cfg.Loop.Seed, "match "+id, uint64(len(recs)))
		var next int32 // the pairs of a resumed match follow the journal's: a pair is (match, pair)
		for _, r := range recs {
			next = max(next, r.Pair+1)
		}
		var werr error
		_, err = m.Run(ctx, func(r *arena.Record) error {
			r.Pair += next
			line, err := json.Marshal(r)
			if err == nil {
				_, err = f.Write(append(line, '\n'))
			}
			if err == nil {
				err = f.Sync()
			}
			if err != nil {
				werr = fmt.Errorf("arena journal %s: %w", journal, err)
				return werr
			}
			recs = append(recs, *r)
			if len(recs) >= maxGames || enough(recs) {
				return arena.ErrStop
			}
			return nil
		})
		if werr != nil {
			return nil, werr
		}
		if err != nil {
			return nil, err
		}
	}
	written, err := arena.WriteRecords(t.dir.Arena(), id, recs)
	if errors.Is(err, fs.ErrExist) {
		// A trainer whose lease this one took wrote the match first: its
		// games are the match's.
		if recs, err = arena.ReadRecords(final); err != nil {
			return nil, err
		}
		written = final
	}
	if err != nil {
		return nil, err
	}
	if written != "" {
		if err := t.wd.Push(ctx, store.ArenaPrefix+id+arena.RecordExt); err != nil {
			return nil, err
		}
	}
	if err := os.Remove(journal); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return recs, nil
}

// readJournal reads the finished games of a match's journal; a torn last
// line (a kill while writing it) is dropped.
func readJournal(path string) ([]arena.Record, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []arena.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var r arena.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			break
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// eloGenerations is how many of the newest generations' arena games the
// loop's Elo refit reads (with the best's ladder games, however old): a
// refit over every game of a run grows with the run (a player and 32 games
// a generation without a gate; the fit is cubic in the players), and took
// 18 s a generation after 40 minutes of the default run.
const eloGenerations = 50

// eloFile says whether the loop's refit after generation g, with best the
// best model, reads the arena file name: the gate and ladder matches of
// the newest eloGenerations generations, the best's ladder matches, and
// every file not named by the loop (a user's own matches).
func eloFile(name string, g, best int) bool {
	if gen, ladder, ok := arenaFile(name); ok {
		return gen > g+1-eloGenerations || ladder && gen == best
	}
	return true
}

// ratings fits Elo over the arena games of the run's newest generations
// (eloFile), writes the ladder to arena/ratings.csv (players outside the
// refit keep their rows from the last refit that had them) and the best's
// rating to metrics/elo.csv, and returns the best's Elo.
func (t *Trainer) ratings(g int) (float64, error) {
	best, err := t.dir.Best()
	if errors.Is(err, store.ErrNoModel) {
		best = 0
	} else if err != nil {
		return 0, err
	}
	recs, err := arena.ReadRecordDirFunc(t.dir.Arena(), func(name string) bool { return eloFile(name, g, best) })
	if err != nil {
		return 0, err
	}
	set := rating.DefaultEloSettings()
	set.Anchor, set.DropUnlinked = t.eloAnchor(), true
	rs, err := arena.FitElo(recs, set)
	if err != nil {
		return 0, err
	}
	if len(rs) == 0 && len(recs) > 0 {
		// No reference player played: every game, relative to the first
		// player (a refit that grows with the run).
		if recs, err = arena.ReadRecordDir(t.dir.Arena()); err != nil {
			return 0, err
		}
		if rs, err = arena.FitElo(recs, rating.DefaultEloSettings()); err != nil {
			return 0, err
		}
	}
	if len(rs) == 0 { // a resumed generation's ratings replace its earlier ones
		return math.NaN(), t.elo.Replace(g)
	}
	path := t.dir.Path(store.RatingsObject)
	old, err := rating.ReadCSV(path)
	if err != nil {
		return 0, err
	}
	eloBest := math.NaN()
	var rows []runmetrics.EloRow
	fitted := map[string]bool{}
	for _, r := range rs {
		fitted[r.Name] = true
		player := r.Name
		switch {
		case r.Name == store.ModelName(best):
			eloBest = r.Elo
			player = "best"
		case !slices.Contains(t.cfg.Gate.Ladder, r.Name) || r.Name == arena.RandomName:
			continue // the anchor is 0 by definition; other models are in ratings.csv
		}
		rows = append(rows, runmetrics.EloRow{Generation: g, Hours: t.hours(), Player: player, Elo: r.Elo, Low: r.Low, High: r.High, Games: r.Games})
	}
	if err := t.elo.Replace(g, rows...); err != nil {
		return 0, err
	}
	for _, r := range old {
		if !fitted[r.Name] {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b rating.Rating) int { return cmp.Compare(b.Elo, a.Elo) })
	return eloBest, rating.WriteCSV(path, rs)
}

// eloAnchor is the player the loop's ratings are relative to: the random
// player when the ladder has it, else its first reference player.
func (t *Trainer) eloAnchor() string {
	if len(t.cfg.Gate.Ladder) == 0 || slices.Contains(t.cfg.Gate.Ladder, arena.RandomName) {
		return arena.RandomName
	}
	return t.cfg.Gate.Ladder[0]
}
