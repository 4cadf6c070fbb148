package play

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/millzero/millzero/arena"
	"github.com/millzero/millzero/engine"
)

// Text is a game against the model in a terminal: the board after every
// action, the people's actions typed in the variant's notation, the
// model playing every other seat.
type Text struct {
	v      *engine.Variant
	g      *Game
	humans Seats // the people's seats; the model plays every other one
	bot    *Bot
	in     *bufio.Scanner
	out    io.Writer
	legal  []engine.Action
	told   bool // the result of the finished game has been printed
}

// NewText is the terminal game of v in which people play the humans
// seats and bot the others, reading the people's lines from in.
func NewText(v *engine.Variant, humans Seats, bot *Bot, in io.Reader, out io.Writer) *Text {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 4096), 1<<16)
	return &Text{v: v, g: NewGame(v), humans: humans, bot: bot, in: sc, out: out,
		legal: make([]engine.Action, 0, engine.MaxActions)}
}

const textHelp = `Type an action in the game's notation: d6 (place), d6-d5 (move), xd7 (remove
after a mill), r1+ / r1- (turn ring 1 clockwise / anticlockwise). Or:
  moves   list the legal actions      hint   ask the model for a move
  undo    take back your last action  board  draw the board again
  new     start again                 quit   leave
`

// Run plays until the person quits or the input ends.
func (t *Text) Run() error {
	var people, others []string
	for s := 0; s < t.v.Players; s++ {
		if t.humans.Has(s) {
			people = append(people, seatLabel(t.v, s))
		} else {
			others = append(others, seatLabel(t.v, s))
		}
	}
	if len(others) == 0 {
		others = []string{"no seat"}
	}
	fmt.Fprintf(t.out, "millzero play: %s. You are %s; the model plays %s.\n", t.v.Name, strings.Join(people, ", "), strings.Join(others, ", "))
	fmt.Fprintf(t.out, "Model: %s.\n", t.bot.Desc)
	fmt.Fprint(t.out, textHelp)
	t.show()
	for {
		r, why := t.g.Outcome()
		if r == engine.Ongoing && !t.humans.Has(int(t.g.Pos.Side)) {
			if err := t.modelMove(); err != nil {
				return err
			}
			continue
		}
		if r != engine.Ongoing && !t.told {
			fmt.Fprintf(t.out, "Game over: %s.\n", arena.ResultText(t.v, &t.g.Pos, r, why))
			fmt.Fprintln(t.out, "Type undo to take back your last action, new to play again, or quit.")
			t.told = true
		}
		fmt.Fprint(t.out, "> ")
		if !t.in.Scan() {
			fmt.Fprintln(t.out)
			if err := t.in.Err(); err != nil {
				return fmt.Errorf("reading input: %w", err)
			}
			return nil
		}
		line := strings.TrimSpace(t.in.Text())
		switch strings.ToLower(line) {
		case "":
		case "quit", "exit", "q":
			return nil
		case "help", "?":
			fmt.Fprint(t.out, textHelp)
		case "board":
			t.show()
		case "moves", "legal":
			t.listLegal()
		case "hint":
			t.hint()
		case "undo":
			t.undo()
		case "new":
			t.g = NewGame(t.v)
			t.told = false
			fmt.Fprintln(t.out, "New game.")
			t.show()
		default:
			t.humanMove(line)
		}
	}
}

// humanMove plays the person's action, or says why it cannot be played.
func (t *Text) humanMove(text string) {
	if r, why := t.g.Outcome(); r != engine.Ongoing {
		fmt.Fprintf(t.out, "The game is over (%s): type undo, new or quit.\n", arena.ResultText(t.v, &t.g.Pos, r, why))
		return
	}
	a, err := t.v.ParseAction(&t.g.Pos, text)
	if err != nil {
		if errors.Is(err, engine.ErrIllegal) {
			fmt.Fprintf(t.out, "Illegal: %v.\n", err)
		} else {
			fmt.Fprintf(t.out, "Not understood: %v (type help for the commands).\n", err)
		}
		t.listLegal()
		return
	}
	t.play(a)
}

// modelMove searches and plays the model's action for the side to move.
func (t *Text) modelMove() error {
	seat := int(t.g.Pos.Side)
	a, res, err := t.bot.Act(context.Background(), t.g.Game, 0, 0)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	var alt []string
	for _, c := range TopChoices(t.v, res, 4)[1:] {
		alt = append(alt, fmt.Sprintf("%s %.0f%%", c.Action, 100*c.Share))
	}
	fmt.Fprintf(t.out, "%s plays %s  (%d visits, expected score for %s %.2f", arena.SeatName(t.v, seat), t.v.FormatAction(a),
		res.Visited, arena.SeatName(t.v, seat), res.Value[seat])
	if len(alt) > 0 {
		fmt.Fprintf(t.out, "; also considered %s", strings.Join(alt, ", "))
	}
	fmt.Fprintln(t.out, ")")
	t.play(a)
	return nil
}

// play makes legal action a and draws the board.
func (t *Text) play(a engine.Action) {
	t.g.PlayAction(a) // a is legal: it came from ParseAction or the search
	t.show()
}

// undo takes back the person's last action and the model's replies.
func (t *Text) undo() {
	taken := t.g.UndoSeats(t.humans)
	if len(taken) == 0 {
		fmt.Fprintln(t.out, "Nothing to undo: you have not played yet.")
		return
	}
	t.told = false
	fmt.Fprintf(t.out, "Took back %s.\n", t.g.Format(taken))
	t.show()
}

// hint searches the person's position and shows the model's choices.
func (t *Text) hint() {
	if r, _ := t.g.Outcome(); r != engine.Ongoing {
		fmt.Fprintln(t.out, "The game is over: no hint.")
		return
	}
	res, err := t.bot.Think(context.Background(), t.g.Game, 0, 0)
	if err != nil {
		fmt.Fprintf(t.out, "No hint: %v.\n", err)
		return
	}
	var top []string
	for _, c := range TopChoices(t.v, res, 5) {
		top = append(top, fmt.Sprintf("%s %.0f%%", c.Action, 100*c.Share))
	}
	fmt.Fprintf(t.out, "Hint: %s  (%d visits: %s; your expected score %.2f)\n", t.v.FormatAction(res.Best), res.Visited,
		strings.Join(top, ", "), res.Value[t.g.Pos.Side])
}

// listLegal prints the legal actions of the side to move.
func (t *Text) listLegal() {
	t.legal = t.v.Legal(&t.g.Pos, t.legal[:0])
	if len(t.legal) == 0 {
		fmt.Fprintln(t.out, "No legal actions.")
		return
	}
	names := make([]string, len(t.legal))
	for i, a := range t.legal {
		names[i] = t.v.FormatAction(a)
	}
	fmt.Fprintf(t.out, "Legal actions: %s\n", strings.Join(names, " "))
}

// show draws the board, with the point names on boards whose diagram has
// no coordinates round the edge (the ring board).
func (t *Text) show() {
	fmt.Fprintln(t.out)
	if n := len(t.g.Actions); n > 0 {
		fmt.Fprintf(t.out, "Action %d: %s %s\n", n, arena.SeatName(t.v, t.g.Movers[n-1]), t.v.FormatAction(t.g.Actions[n-1]))
	}
	fmt.Fprint(t.out, t.v.Diagram(&t.g.Pos))
	if t.v.Board.Rotating {
		fmt.Fprint(t.out, PointKey(t.v, &t.g.Pos))
	}
}

// seatLabel is the seat's name with its symbol on the text board.
func seatLabel(v *engine.Variant, seat int) string {
	return fmt.Sprintf("%s (%c)", arena.SeatName(v, seat), engine.SeatChars[seat])
}
