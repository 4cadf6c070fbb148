package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/arena/classic"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/model"
)

// ErrNoPlayer is matched by Diagnose.Run's error when the games hold more
// than one player it could diagnose and none was chosen.
var ErrNoPlayer = errors.New("choose the player")

// DefaultDiagnoseDepth is the depth of the diagnosis's searches: about a
// tenth of a second a search on one core, on average over the positions
// of the built-in model's games against classic:10 on nine (about 1,200
// searches in 120 s of CPU).
const DefaultDiagnoseDepth = 12

// DiagnoseCap is the default score cap, in pieces (Diagnose.Cap).
const DiagnoseCap = 4.0

// Diagnose measures where a player's moves lose value against a deep
// search: it replays the player's recorded games and, for each of the
// player's actions after the opening, asks the classical engine for its
// best action and that action's score, and for the score after the action
// played.
//
// Every action is a ply, and is judged on its own: a mill-closing move
// and the removal that follows it (the same player's next action) are two
// actions, the move judged by the engine's value of the position it
// leaves, in which its best removal is counted, and the removal judged
// after it. The position is searched at Depth plies and the position
// after the action played at Depth-1, as the search of the position sees
// it; both with a draw worth 0 to either side (no contempt), so that the
// two scores compare. Value lost is the best score less the played one,
// for the player, each score first capped at ±Cap pieces so that the
// engine's win scores do not swamp the means; a played action that
// scores above the best (the two searches' horizons differ) loses 0. A
// blunder is an action that leaves a position the engine scores as lost
// (by its win scores, beyond classic.Decisive) where its best action does
// not lose.
type Diagnose struct {
	Depth     int     // plies of the search of a position (0: DefaultDiagnoseDepth)
	Threshold float64 // pieces: an action losing this much or more counts as losing (0: 1)
	Cap       float64 // pieces: each score is capped at ±Cap before value lost is taken (0: DiagnoseCap)
	Workers   int     // games replayed at once, each worker its own engine (0: one per core)
	HashMB    int     // each worker's transposition table, in megabytes (0: the engine's default)
	Model     string  // a checkpoint file, or arena.BuiltinModel: its network's first choice (no search) is compared with the engine's best; "" none
	// Weights is the judge's evaluation (nil: the engine's default for
	// the variant, classic.DefaultWeights); classic.HandWeights names
	// the first, hand-written one, the judge of earlier diagnoses.
	Weights *classic.Weights
}

// Diagnosis is what Diagnose found: the player's results and its actions'
// value lost, by the mover's phase, the kind of action, the material and
// the ply.
type Diagnosis struct {
	Player    string  `json:"player"`
	Variant   string  `json:"variant"`
	Depth     int     `json:"depth"`
	Cap       float64 `json:"cap"`       // pieces
	Threshold float64 `json:"threshold"` // pieces
	Model     string  `json:"model,omitempty"`
	Judge     string  `json:"judge"` // the engine's evaluation weights: a named set, or a weights file
	Seconds   float64 `json:"seconds"`

	Games        int            `json:"games"`
	Wins         int            `json:"wins"`
	Draws        int            `json:"draws"`
	Losses       int            `json:"losses"`
	Unfinished   int            `json:"unfinished"`    // games left unfinished (Record.Unfinished): not in the wins, draws or losses
	LostBy       map[string]int `json:"lost_by"`       // the lost games by Record.Reason
	DrawnBy      map[string]int `json:"drawn_by"`      // the drawn games by Record.Reason
	DrawnAt      map[string]int `json:"drawn_at"`      // the drawn games by the player's material at the end (its pieces less the opponent's, as Material's groups)
	DrawnFrom    map[string]int `json:"drawn_from"`    // the drawn games by the best score the engine gave the player's turns (peakGroups)
	DrawnAfter   map[string]int `json:"drawn_after"`   // the drawn games by their length in plies (lengthGroups)
	NotWonFrom   map[string]int `json:"not_won_from"`  // the games not won ("draw", "loss") in which the engine found a win at one of the player's turns
	FirstBlunder map[string]int `json:"first_blunder"` // the lost games by the mover's phase at the player's first blunder, "none" without one
	AboveBest    int            `json:"above_best"`    // actions that scored above the engine's best (the searches of a position and of the one after it differ): they lose 0
	AboveBy      float64        `json:"above_by"`      // by how much in all, pieces: the noise of the measure

	All      DiagnoseRow   `json:"all"`
	Phases   []DiagnoseRow `json:"phases"`   // placing (pieces in hand), moving, flying
	Actions  []DiagnoseRow `json:"actions"`  // place, move, remove, rotate
	Material []DiagnoseRow `json:"material"` // the mover's pieces (on the board and in hand) less the opponent's
	Plies    []DiagnoseRow `json:"plies"`    // the game's ply, in buckets of 20
}

// DiagnoseRow sums up one group of the player's actions.
type DiagnoseRow struct {
	Group      string  `json:"group"`
	Moves      int     `json:"moves"`
	Lost       float64 `json:"lost"`        // value lost in all, pieces
	MeanLost   float64 `json:"mean_lost"`   // value lost a move, pieces
	Losing     int     `json:"losing"`      // moves that lost Threshold or more
	Blunders   int     `json:"blunders"`    // moves that turned a position not lost into a lost one
	Agree      int     `json:"agree"`       // moves that were the engine's best
	ModelAgree int     `json:"model_agree"` // positions in which the network's first choice was the engine's best (with a model)
}

// The groups of the diagnosis, in their order.
var (
	phaseGroups     = []string{"placing", "moving", "flying"}
	actionGroups    = []string{"place", "move", "remove", "rotate"}
	materialGroups  = []string{"<=-3", "-2", "-1", "0", "+1", "+2", ">=+3"}
	peakGroups      = []string{"won", ">=+2", "+1..+2", "<+1"}
	plyGroups       = []string{"0-19", "20-39", "40-59", "60-79", "80-99", "100-119", "120-139", "140-159", "160-179", "180-199", "200+"}
	lengthGroups    = []string{"0-59", "60-99", "100-149", "150-199", "200+"}
	lengthGroupEnds = []int{60, 100, 150, 200} // where each of lengthGroups but the last ends
)

// lengthGroup is the group of lengthGroups of a game of plies actions.
func lengthGroup(plies int) string {
	i := 0
	for i < len(lengthGroupEnds) && plies >= lengthGroupEnds[i] {
		i++
	}
	return lengthGroups[i]
}

// ReadGames reads the arena records of a Parquet file, or of every such
// file in a directory.
func ReadGames(path string) ([]arena.Record, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read games: %w", err)
	}
	var recs []arena.Record
	if st.IsDir() {
		recs, err = arena.ReadRecordDir(path)
	} else {
		recs, err = arena.ReadRecords(path)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("games %s: no arena records in it (the Parquet files of the arena or of the strength benchmark)", path)
	}
	return recs, nil
}

// isYardstick says whether a player's name is one of the fixed
// yardsticks: the classical engine, alpha-beta or random.
func isYardstick(name string) bool {
	return strings.HasPrefix(name, "classic") || strings.HasPrefix(name, "alphabeta") || name == arena.RandomName
}

// DiagnosedPlayer is the player of recs to diagnose: name when it played
// in them, else (name "") the one player that is not a yardstick. An
// error names the players to choose from; src names the games.
func DiagnosedPlayer(src string, recs []arena.Record, name string) (string, error) {
	var all, others []string
	for i := range recs {
		for s := 0; s < recs[i].Seats(); s++ {
			if n := recs[i].PlayerAt(s); !slices.Contains(all, n) {
				all = append(all, n)
				if !isYardstick(n) {
					others = append(others, n)
				}
			}
		}
	}
	switch {
	case name != "" && slices.Contains(all, name):
		return name, nil
	case name != "":
		return "", fmt.Errorf("games %s: no games of player %q; the players: %s", src, name, strings.Join(all, ", "))
	case len(others) == 1:
		return others[0], nil
	}
	return "", fmt.Errorf("games %s: %w: one of %s", src, ErrNoPlayer, strings.Join(all, ", "))
}

// Run diagnoses the games of player (see DiagnosedPlayer) in the records
// at path (see ReadGames). onGame, when not nil, is called after each game
// judged, from one goroutine at a time.
func (d *Diagnose) Run(ctx context.Context, path, player string, onGame func(done, total int)) (*Diagnosis, error) {
	recs, err := ReadGames(path)
	if err != nil {
		return nil, err
	}
	return d.diagnose(ctx, path, recs, player, onGame)
}

// diagnose is Run on the records recs read from src.
func (d *Diagnose) diagnose(ctx context.Context, src string, recs []arena.Record, player string, onGame func(done, total int)) (*Diagnosis, error) {
	start := time.Now()
	depth, threshold, capPieces := d.Depth, d.Threshold, d.Cap
	if depth == 0 {
		depth = DefaultDiagnoseDepth
	}
	if threshold == 0 {
		threshold = 1
	}
	if capPieces == 0 {
		capPieces = DiagnoseCap
	}
	if depth < 1 || depth > classic.MaxDepth || threshold < 0 || capPieces < 0 || d.Workers < 0 {
		return nil, fmt.Errorf("diagnose: depth %d, threshold %v, cap %v, workers %d: want a depth in 1..%d and positive values", depth, threshold, capPieces, d.Workers, classic.MaxDepth)
	}
	player, err := DiagnosedPlayer(src, recs, player)
	if err != nil {
		return nil, err
	}
	v, games, err := gamesToJudge(src, recs, player)
	if err != nil {
		return nil, err
	}
	var net *model.Network
	modelName := ""
	if d.Model != "" {
		ck, name, err := LoadReference(d.Model)
		if err == nil {
			err = ck.CheckVariant(v)
		}
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", d.Model, err)
		}
		net, modelName = ck.Net, name
	}
	w := d.Weights
	if w == nil {
		w = classic.DefaultWeights(v)
	}
	judged, err := d.judgeAll(ctx, v, net, w, games, depth, capPieces, onGame)
	if err != nil {
		return nil, err
	}
	out := &Diagnosis{Player: player, Variant: v.Name, Depth: depth, Cap: capPieces, Threshold: threshold, Model: modelName, Judge: w.Name}
	out.count(games, judged)
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}

// gamesToJudge are the games of player in recs, read from src, and their
// variant: one, of two players, every game replaying.
func gamesToJudge(src string, recs []arena.Record, player string) (v *engine.Variant, games []judgedGame, err error) {
	for i := range recs {
		r := &recs[i]
		seat := r.SeatOf(player)
		if seat < 0 {
			continue
		}
		if v == nil {
			if v, err = engine.Load(r.Variant); err != nil {
				return nil, nil, fmt.Errorf("games %s: %w", src, err)
			}
			if v.Players != 2 {
				return nil, nil, fmt.Errorf("games %s: variant %s has %d players: the diagnosis is for two-player variants", src, v.Name, v.Players)
			}
		} else if r.Variant != v.Name {
			return nil, nil, fmt.Errorf("games %s: games of %s and of %s: diagnose one variant at a time", src, v.Name, r.Variant)
		}
		end, err := replay(v, r)
		if err != nil {
			return nil, nil, fmt.Errorf("games %s: %w", src, err)
		}
		games = append(games, judgedGame{rec: r, seat: seat, actions: end.Actions,
			endLead: end.Pos.PiecesLeft(seat) - end.Pos.PiecesLeft(1-seat)})
	}
	return v, games, nil
}

// count sums up the judged actions of the games (judged[i] those of
// games[i]) and the games' results, for the player.
func (out *Diagnosis) count(games []judgedGame, judged [][]judgement) {
	out.LostBy, out.FirstBlunder, out.All = map[string]int{}, map[string]int{}, DiagnoseRow{Group: "all"}
	out.DrawnBy, out.DrawnAt, out.DrawnFrom, out.DrawnAfter, out.NotWonFrom = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	groups := []struct {
		rows   *[]DiagnoseRow
		labels []string
		of     func(*judgement) int
	}{
		{&out.Phases, phaseGroups, func(m *judgement) int { return m.phase }},
		{&out.Actions, actionGroups, func(m *judgement) int { return m.action }},
		{&out.Material, materialGroups, func(m *judgement) int { return m.material }},
		{&out.Plies, plyGroups, func(m *judgement) int { return m.ply }},
	}
	for _, g := range groups {
		*g.rows = make([]DiagnoseRow, len(g.labels))
		for i, l := range g.labels {
			(*g.rows)[i].Group = l
		}
	}
	for i, g := range games {
		out.Games++
		lost, drawn := false, false
		switch r := g.rec; {
		case r.Unfinished != "":
			out.Unfinished++
		case r.Winner < 0:
			out.Draws++
			out.DrawnBy[r.Reason]++
			out.DrawnAt[materialGroups[min(max(g.endLead, -3), 3)+3]]++
			out.DrawnAfter[lengthGroup(int(r.Plies))]++
			drawn = true
		case int(r.Winner) == g.seat:
			out.Wins++
		default:
			out.Losses++
			out.LostBy[g.rec.Reason]++
			lost = true
		}
		first, peak := "none", math.MinInt
		for j := range judged[i] {
			m := &judged[i][j]
			peak = max(peak, m.best)
			if m.above > 0 {
				out.AboveBest++
				out.AboveBy += m.above
			}
			if m.blunder && first == "none" {
				first = phaseGroups[m.phase]
			}
			out.All.add(m, out.Threshold)
			for _, gr := range groups {
				(*gr.rows)[gr.of(m)].add(m, out.Threshold)
			}
		}
		if lost {
			out.FirstBlunder[first]++
		}
		if drawn && peak > math.MinInt {
			out.DrawnFrom[peakGroup(peak)]++
		}
		if peak > classic.Decisive && (drawn || lost) {
			out.NotWonFrom[map[bool]string{true: "draw", false: "loss"}[drawn]]++
		}
	}
	out.All.finish()
	for _, gr := range groups {
		rows := (*gr.rows)[:0]
		for _, row := range *gr.rows {
			if row.Moves > 0 {
				row.finish()
				rows = append(rows, row)
			}
		}
		*gr.rows = rows
	}
}

// peakGroup is the group of peakGroups of the best score the engine gave a
// player's turns, in hundredths of a piece.
func peakGroup(score int) string {
	switch {
	case score > classic.Decisive:
		return peakGroups[0]
	case score >= 200:
		return peakGroups[1]
	case score >= 100:
		return peakGroups[2]
	}
	return peakGroups[3]
}

// add counts the action m in the row.
func (r *DiagnoseRow) add(m *judgement, threshold float64) {
	r.Moves++
	r.Lost += m.lost
	if m.lost >= threshold {
		r.Losing++
	}
	if m.blunder {
		r.Blunders++
	}
	if m.agree {
		r.Agree++
	}
	if m.modelAgree {
		r.ModelAgree++
	}
}

// finish works out the row's means.
func (r *DiagnoseRow) finish() {
	if r.Moves > 0 {
		r.MeanLost = r.Lost / float64(r.Moves)
	}
}

// replay plays r's game, each action legal where it is played, and returns
// the game at its end; an error names the game and the action.
func replay(v *engine.Variant, r *arena.Record) (*engine.Game, error) {
	g := engine.NewGame(v)
	if err := g.PlayAll(r.Moves); err != nil {
		return nil, fmt.Errorf("match %s, pair %d, game %d (%s): %w", r.Match, r.Pair, r.Game, r.Lineup(), err)
	}
	if int(r.Opening) > len(g.Actions) || r.Opening < 0 {
		return nil, fmt.Errorf("match %s, pair %d, game %d (%s): an opening of %d actions in a game of %d", r.Match, r.Pair, r.Game, r.Lineup(), r.Opening, len(g.Actions))
	}
	return g, nil
}

// Write prints the diagnosis as tables.
func (d *Diagnosis) Write(out io.Writer) {
	fmt.Fprintf(out, "%s in %d games of %s against the classical engine (weights %s) at depth %d (after the action played: %d), no contempt\n",
		d.Player, d.Games, d.Variant, d.Judge, d.Depth, max(d.Depth-1, 1))
	fmt.Fprintf(out, "results: +%d =%d -%d", d.Wins, d.Draws, d.Losses)
	if d.Unfinished > 0 {
		fmt.Fprintf(out, " (unfinished %d)", d.Unfinished)
	}
	fmt.Fprintln(out)
	if d.Losses > 0 {
		fmt.Fprintf(out, "lost games by reason: %s\n", countsString(d.LostBy))
		fmt.Fprintf(out, "lost games by the phase of the first blunder: %s\n", countsString(d.FirstBlunder))
	}
	if d.Draws > 0 {
		fmt.Fprintf(out, "drawn games by reason: %s\n", countsString(d.DrawnBy))
		fmt.Fprintf(out, "drawn games by the player's material at the end: %s\n", countsString(d.DrawnAt))
		fmt.Fprintf(out, "drawn games by the best score the engine gave the player's turns: %s\n", countsString(d.DrawnFrom))
		fmt.Fprintf(out, "drawn games by their length in plies: %s\n", orderedCounts(d.DrawnAfter, lengthGroups))
	}
	if len(d.NotWonFrom) > 0 {
		fmt.Fprintf(out, "games not won from a position the engine scored won: %s\n", countsString(d.NotWonFrom))
	}
	header := func(title string) {
		fmt.Fprintf(out, "\n%-9s %6s %9s %7s %8s %6s", title, "moves", "lost/move", "losing", "blunders", "agree")
		if d.Model != "" {
			fmt.Fprintf(out, " %7s", "network")
		}
		fmt.Fprintln(out)
	}
	row := func(r DiagnoseRow) {
		fmt.Fprintf(out, "%-9s %6d %9.3f %6.1f%% %8d %5.1f%%", r.Group, r.Moves, r.MeanLost,
			pct(r.Losing, r.Moves), r.Blunders, pct(r.Agree, r.Moves))
		if d.Model != "" {
			fmt.Fprintf(out, " %6.1f%%", pct(r.ModelAgree, r.Moves))
		}
		fmt.Fprintln(out)
	}
	for _, t := range []struct {
		title string
		rows  []DiagnoseRow
	}{{"phase", d.Phases}, {"action", d.Actions}, {"material", d.Material}, {"ply", d.Plies}} {
		header(t.title)
		for _, r := range t.rows {
			row(r)
		}
		if t.title == "phase" {
			row(d.All)
		}
	}
	fmt.Fprintf(out, "\nlost/move: the engine's best score less the played action's, for the mover, in pieces, each capped at ±%g;\n", d.Cap)
	fmt.Fprintf(out, "losing: actions that lost %g piece(s) or more; blunders: actions from a position not lost into one the engine scores lost;\n", d.Threshold)
	if d.AboveBest > 0 {
		fmt.Fprintf(out, "%d actions (%.1f%%) scored above the engine's best, by %.3f pieces on average (the searches of a position and of the one after it prune and extend differently): they lose 0;\n",
			d.AboveBest, pct(d.AboveBest, d.All.Moves), d.AboveBy/float64(d.AboveBest))
	}
	fmt.Fprintf(out, "agree: the action played was the engine's best; material: the mover's pieces (board and hand) less the opponent's.\n")
	if d.Model != "" {
		fmt.Fprintf(out, "network: the first choice of %s's network, without search, was the engine's best.\n", d.Model)
	}
	fmt.Fprintf(out, "time: %.0fs\n", d.Seconds)
}

// countsString is counts as "a 3, b 1", the largest first.
func countsString(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return orderedCounts(counts, keys)
}

// orderedCounts is the counts of the labels that have any, in the labels'
// order.
func orderedCounts(counts map[string]int, labels []string) string {
	var parts []string
	for _, l := range labels {
		if n := counts[l]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", l, n))
		}
	}
	return strings.Join(parts, ", ")
}

// pct is n of total as a percentage, 0 of none.
func pct(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}
