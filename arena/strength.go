package arena

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/millzero/millzero/arena/rating"
	"github.com/millzero/millzero/engine"
	"github.com/millzero/millzero/mcts"
)

// Strength measures one player against fixed yardsticks: a paired match
// against each opponent from the same seeded random openings (or positions
// of an opening book), so every player measured with the same settings
// meets the same positions. It is
// the strength benchmark of a run: a number that does not move with the
// loop's own arena, refits or gating.
type Strength struct {
	Variant      *engine.Variant // two players
	Player       Player          // the player measured
	Opponents    []Player        // the yardsticks, met one after another
	Pairs        int             // pairs of games against each opponent
	OpeningPlies int             // random legal actions that open each pair
	Book         *Book           // when not nil, each pair opens from a position of the book instead (Match.Book)
	Seed         uint64          // the openings' seed: the same for every player measured
	Workers      int             // games played at once; 0 means one per core
	Dir          string          // where the games are recorded as Parquet; "" records none
	Tables       mcts.Prover     // endgame tables: with them each row counts the endgames the player threw away (ThrownEndgames); nil none
}

// StrengthRow is the player's result against one opponent.
type StrengthRow struct {
	Opponent       string       `json:"opponent"`
	Book           string       `json:"book,omitempty"`       // the opening book the pairs opened from (Book.ID); "" random openings
	Games          int          `json:"games"`                // finished games: the unfinished are counted apart
	Unfinished     int          `json:"unfinished,omitempty"` // games left unfinished (an external engine's draw claim, no move or timeout), out of the score
	Wins           int          `json:"wins"`
	Draws          int          `json:"draws"`
	Losses         int          `json:"losses"`
	Penta          rating.Penta `json:"pentanomial"` // complete pairs by the player's pair score: 0, 1/2, 1, 3/2, 2
	Score          float64      `json:"score"`       // the player's mean score per game, 0..1
	Elo            float64      `json:"elo"`         // the player's Elo difference to the opponent
	Low            float64      `json:"elo_low"`     // its 95% interval, from the variance of the pair scores
	High           float64      `json:"elo_high"`
	Clamped        bool         `json:"clamped"`         // the score was 0% or 100%: Elo is taken a quarter pair from the edge, and only the bound towards the middle says anything
	BlockadeLosses int          `json:"blockade_losses"` // games the player lost with no legal action left
	MedianLossPly  int          `json:"median_loss_ply"` // the median length of the player's lost games, 0 without losses
	ThrownEndgames int          `json:"thrown_endgames"` // with tables: lost games in which the player had reached a table position it held (a draw or a win for it); -1 without tables
	Seconds        float64      `json:"seconds"`         // wall time of the match
}

// Run plays every opponent in turn. With Dir, the games kept there that
// a match would play (Match.Found: the same players, setups, seed, opening
// length) are taken instead of played again, so a benchmark stopped early
// and run again plays only its missing games. onMatch, when not nil, is
// called before each opponent's match with the games found of it; onGame
// after each game played, from one goroutine. The rows come in the order
// of Opponents; on an error the rows so far are returned with it, and
// when ctx ends, also the row of the games finished against the opponent
// of the moment.
func (s *Strength) Run(ctx context.Context, onMatch func(opponent, found int), onGame func(opponent int, r *Record)) ([]StrengthRow, error) {
	if s.Player == nil || len(s.Opponents) == 0 {
		return nil, fmt.Errorf("strength: want a player and at least one opponent")
	}
	var kept []Record
	if s.Dir != "" {
		var err error
		if kept, err = ReadRecordDir(s.Dir); err != nil {
			return nil, err
		}
	}
	rows := make([]StrengthRow, 0, len(s.Opponents))
	for i, opp := range s.Opponents {
		m := Match{Variant: s.Variant, A: s.Player, B: opp, Pairs: s.Pairs, OpeningPlies: s.OpeningPlies, Book: s.Book,
			Seed: s.Seed, Workers: s.Workers, Dir: s.Dir}
		m.Played = m.Found(kept) // Run takes these few, not every kept game, through Found again
		if onMatch != nil {
			onMatch(i, len(m.Played))
		}
		start := time.Now()
		recs, err := m.Run(ctx, func(r *Record) error {
			if onGame != nil {
				onGame(i, r)
			}
			return nil
		})
		row := StrengthOf(s.Player.Name(), opp.Name(), recs)
		row.Seconds, row.Book = time.Since(start).Seconds(), m.bookID()
		if err == nil && s.Tables != nil {
			row.ThrownEndgames, err = ThrownEndgames(s.Variant, s.Tables, s.Player.Name(), recs)
		}
		if err != nil {
			if ctx.Err() != nil && row.Games+row.Unfinished > 0 {
				rows = append(rows, row)
			}
			return rows, fmt.Errorf("strength against %s: %w", opp.Name(), err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// StrengthOf sums up the games between player and opponent in recs (other
// games are ignored). The interval treats each complete pair of games as
// one sample, as the pentanomial SPRT does: pairs share an opening, so
// their two games are not independent.
func StrengthOf(player, opponent string, recs []Record) StrengthRow {
	row := StrengthRow{Opponent: opponent, ThrownEndgames: -1}
	type pairKey struct {
		match string
		pair  int32
	}
	pairs := map[pairKey][]float64{}
	var lossPlies []int
	total := 0.0
	for i := range recs {
		r := &recs[i]
		var seat int
		switch {
		case r.Player0 == player && r.Player1 == opponent:
			seat = 0
		case r.Player1 == player && r.Player0 == opponent:
			seat = 1
		default:
			continue
		}
		if r.Unfinished != "" {
			row.Unfinished++ // no result to score
			continue
		}
		sc := r.Score(seat)
		row.Games++
		total += sc
		switch sc {
		case 1:
			row.Wins++
		case 0.5:
			row.Draws++
		default:
			row.Losses++
			lossPlies = append(lossPlies, int(r.Plies))
			if r.Reason == engine.NoLegalAction.String() {
				row.BlockadeLosses++
			}
		}
		k := pairKey{r.Match, r.Pair}
		pairs[k] = append(pairs[k], sc)
	}
	if len(lossPlies) > 0 {
		sort.Ints(lossPlies)
		row.MedianLossPly = lossPlies[len(lossPlies)/2]
	}
	for _, sc := range pairs {
		if len(sc) == 2 {
			row.Penta.Add(sc[0] + sc[1])
		}
	}
	if row.Games == 0 {
		row.Elo, row.Low, row.High = math.NaN(), math.NaN(), math.NaN()
		return row
	}
	row.Score = total / float64(row.Games)
	row.Elo, row.Low, row.High, row.Clamped = rating.PentaElo(row.Penta, row.Score)
	return row
}

// ThrownEndgames counts the games in recs that player lost after reaching
// a position the tables know to be a draw or a win for it: endgames it
// held and then threw away, which the tables would have saved. It replays
// each lost game; a move that does not replay is an error naming the game.
func ThrownEndgames(v *engine.Variant, tables mcts.Prover, player string, recs []Record) (int, error) {
	thrown := 0
	for i := range recs {
		r := &recs[i]
		seat := r.SeatOf(player)
		if seat < 0 || r.Unfinished != "" || r.Score(seat) != 0 {
			continue
		}
		g := engine.NewGame(v)
		for k, m := range strings.Fields(r.Moves) {
			if err := g.PlayString(m); err != nil {
				return thrown, fmt.Errorf("replay game %s pair %d game %d, action %d: %w", r.Match, r.Pair, r.Game, k+1, err)
			}
			if res, _, ok := tables.Prove(&g.Pos); ok && res.Score(seat, v.Players) > 0 {
				thrown++
				break
			}
		}
	}
	return thrown, nil
}

// WriteStrength prints rows as a table, player's name on top: each row's
// games won, drawn and lost, the share drawn beside the Elo (near an even
// score an Elo says little without it), the games lost by blockade and
// the median length of the lost games.
func WriteStrength(w io.Writer, player string, rows []StrengthRow) {
	tables := false
	for _, r := range rows {
		tables = tables || r.ThrownEndgames >= 0
	}
	openings := "random openings"
	if len(rows) > 0 && rows[0].Book != "" {
		openings = "openings from the book " + rows[0].Book
	}
	fmt.Fprintf(w, "%s against the yardsticks (paired games, %s, 95%% intervals from the pair scores):\n\n", player, openings)
	fmt.Fprintf(w, "%-12s %6s %7s %5s %5s %5s %6s %20s %9s %10s", "opponent", "games", "score", "won", "drawn", "lost", "draws", "Elo [95%]", "blockade", "loss ply")
	if tables {
		fmt.Fprintf(w, " %7s", "thrown")
	}
	fmt.Fprintf(w, " %7s\n", "time")
	for _, r := range rows {
		fmt.Fprintf(w, "%-12s %6d %6.1f%% %5d %5d %5d %5.0f%% %20s %9d %10d", r.Opponent, r.Games, 100*r.Score,
			r.Wins, r.Draws, r.Losses, 100*r.DrawShare(), r.EloCell(), r.BlockadeLosses, r.MedianLossPly)
		if tables {
			fmt.Fprintf(w, " %7s", thrownCell(r.ThrownEndgames))
		}
		fmt.Fprintf(w, " %6.0fs\n", r.Seconds)
	}
	fmt.Fprintln(w, "\nwon, drawn, lost: the player's games; draws: the share drawn; blockade: games the player lost with no legal action;")
	fmt.Fprintln(w, "loss ply: the median length of its lost games.")
	if tables {
		fmt.Fprintln(w, "thrown: lost games in which the player had reached a table position that it held (a draw or a win for it).")
	}
}

// DrawShare is the share of the row's finished games drawn, 0 without
// games.
func (r StrengthRow) DrawShare() float64 {
	if r.Games == 0 {
		return 0
	}
	return float64(r.Draws) / float64(r.Games)
}

// WDL is the row's wins, draws and losses: "+12 =5 -3".
func (r StrengthRow) WDL() string { return fmt.Sprintf("+%d =%d -%d", r.Wins, r.Draws, r.Losses) }

// EloCell is the row's Elo with its interval, or with a clamped score
// only the bound towards the middle.
func (r StrengthRow) EloCell() string {
	switch {
	case r.Clamped && r.Score < 0.5:
		return fmt.Sprintf("< %+.0f", r.High)
	case r.Clamped:
		return fmt.Sprintf("> %+.0f", r.Low)
	}
	return fmt.Sprintf("%+.0f [%+.0f, %+.0f]", r.Elo, r.Low, r.High)
}

func thrownCell(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// WritePairs prints each two-player match of recs (a and b of each
// pairing) from a's side: its games won, drawn and lost, the share drawn,
// and its Elo interval from the pair scores (the two games of an opening
// are one sample, as in the strength benchmark), which the ratings'
// interval, taking each game alone, understates.
func WritePairs(out io.Writer, recs []Record, matches []Pairing) {
	width := len("match")
	for _, m := range matches {
		width = max(width, len(m.A.Name())+len(" against ")+len(m.B.Name()))
	}
	fmt.Fprintf(out, "\n%-*s %6s %7s %5s %5s %5s %6s %20s\n", width, "match", "games", "score", "won", "drawn", "lost", "draws", "Elo [95%]")
	for _, m := range matches {
		r := StrengthOf(m.A.Name(), m.B.Name(), recs)
		if r.Games == 0 {
			continue
		}
		fmt.Fprintf(out, "%-*s %6d %6.1f%% %5d %5d %5d %5.0f%% %20s\n", width, m.A.Name()+" against "+m.B.Name(), r.Games, 100*r.Score,
			r.Wins, r.Draws, r.Losses, 100*r.DrawShare(), r.EloCell())
	}
	fmt.Fprintln(out, "\nmatch: the first player's games won, drawn and lost, the share drawn, and its Elo, the interval from the pair scores")
	fmt.Fprintln(out, "(an opening's two games are one sample).")
}
